// MatMul: nested loops over the (simplified) broadcast batch axes with baked
// matrix offsets for A and B, then one dot product per output element. Same
// order as ops::eval_MatMul.
#include <fmt/format.h>

#include "c/kernels/kernels.h"
#include "ir/ops/broadcast.h"
#include "ir/ops/matmul.h"

namespace mlipc::c::kernels {

namespace {
std::string offset_expr(const std::string& p, size_t d, int64_t stride) {
  const std::string prev = fmt::format("{}{}", p, d - 1);
  if (stride == 0) return prev;
  return fmt::format("{} + i{} * {}", prev, d, c_int(stride));
}
}  // namespace

void prepare_MatMul(const Graph& g, const Node& n, KernelSpec& spec) {
  expect_float(g, n, 0);
  expect_float(g, n, 1);
  const ops::MatMulDims d = ops::matmul_dims(g.value(n.inputs[0]).shape, g.value(n.inputs[1]).shape);
  const ops::Loops l = ops::simplify_loops(d.batch, {d.a_batch_stride, d.b_batch_stride});
  std::vector<TemplateData> loops;
  for (size_t i = 1; i <= l.dims.size(); ++i) {
    TemplateData item;
    item.set("d", std::to_string(i));
    item.set("dim", c_int(l.dims[i - 1]));
    item.set("a_off", offset_expr("a", i, l.strides[0][i - 1]));
    item.set("b_off", offset_expr("b", i, l.strides[1][i - 1]));
    loops.push_back(item);
  }
  spec.template_name = "matmul.c";
  spec.set_list("loops", loops);
  spec.set("r", static_cast<int64_t>(l.dims.size()));
  spec.set("M", c_int(d.m));
  spec.set("N", c_int(d.n));
  spec.set("K", c_int(d.k));
  spec.args = {0, 1};
}

}  // namespace mlipc::c::kernels
