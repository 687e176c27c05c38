// MatMul's batch loops: a<d> and b<d> are the matrix offsets after d loops,
// each the previous one plus the loop index times the axis' stride (kept
// as the previous offset where the axis broadcasts).
#include "c/kernels/matmul_loops.h"

#include <fmt/format.h>

#include "c/kernels/kernels.h"
#include "ops/broadcast.h"

namespace mlipc::c::kernels {

namespace {
std::string offset_expr(const std::string& p, size_t d, int64_t stride) {
  const std::string prev = fmt::format("{}{}", p, d - 1);
  if (stride == 0) return prev;
  return fmt::format("{} + i{} * {}", prev, d, c_int(stride));
}
}  // namespace

void set_matmul_loops(KernelSpec& spec, const ops::MatMulDims& d) {
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
  spec.set_list("loops", loops);
  spec.set("r", static_cast<int64_t>(l.dims.size()));
  spec.set("M", c_int(d.m));
  spec.set("N", c_int(d.n));
  spec.set("K", c_int(d.k));
}

}  // namespace mlipc::c::kernels
