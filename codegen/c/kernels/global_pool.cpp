// GlobalAveragePool, GlobalMaxPool: one template reducing each [n, c] plane.
#include "c/kernels/kernels.h"

namespace mlipc::c::kernels {

namespace {
void global_pool(const Graph& g, const Node& n, KernelSpec& spec, bool average) {
  expect_float(g, n, 0);
  const Shape& x = g.value(n.inputs[0]).shape;
  const int64_t planes = x[0] * x[1];
  const int64_t size = planes == 0 ? 0 : numel(x) / planes;
  spec.args = {0};
  if (size > 0) spec.layouts = {{0}, {}, true};  // the output [N, C, 1...] is the same in both
  if (spec.input_cl(0)) {
    spec.template_name = "global_pool_cl.c";
    spec.set("op", average ? "GlobalAveragePool" : "GlobalMaxPool");
    spec.set("N", x[0]);
    spec.set("C", x[1]);
    spec.set("S", size);
    spec.set_flag("average", average);
    return;
  }
  spec.template_name = "global_pool.c";
  spec.set("P", planes);
  spec.set("S", planes == 0 ? 0 : numel(x) / planes);
  spec.set("op", average ? "GlobalAveragePool" : "GlobalMaxPool");
  // Same order and arithmetic as the reference kernels in ops/global_pool.cpp.
  spec.set("init", average ? "0.0f" : "-INFINITY");
  spec.set("update", average ? "acc += xp[i]" : "if (i == 0 || xp[i] > acc || xp[i] != xp[i]) acc = xp[i]");
  spec.set("result", average ? "acc / (float)" + std::to_string(planes == 0 ? 0 : numel(x) / planes) : "acc");
  spec.args = {0};
}
}  // namespace

void prepare_GlobalAveragePool(const Graph& g, const Node& n, KernelSpec& spec) { global_pool(g, n, spec, true); }
void prepare_GlobalMaxPool(const Graph& g, const Node& n, KernelSpec& spec) { global_pool(g, n, spec, false); }

}  // namespace mlipc::c::kernels
