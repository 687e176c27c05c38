// TopK: for each (outer, inner) slice, a list of the best k elements so far,
// kept sorted in the output itself: each element in index order is inserted
// after every element that ranks at least as high (ops::topk_before), so
// equal values keep the lower index first. O(n k) per slice, no scratch.
// Gives the reference's order (ops/topk.h) element for element.
#include <fmt/format.h>

#include "c/kernels/kernels.h"
#include "ops/topk.h"
#include "support/error.h"

namespace mlipc::c::kernels {

namespace {
// The C condition "a ranks before b" for element type t (ops::topk_before).
std::string before(DType t, bool largest, const std::string& a, const std::string& b) {
  if (t != DType::Float32) return fmt::format("{} {} {}", a, largest ? ">" : "<", b);
  if (largest) return fmt::format("(isnan({0}) ? !isnan({1}) : (!isnan({1}) && {0} > {1}))", a, b);
  return fmt::format("(isnan({1}) ? !isnan({0}) : (!isnan({0}) && {0} < {1}))", a, b);
}
}  // namespace

void prepare_TopK(const Graph& g, const Node& n, KernelSpec& spec) {
  expect_dtype(g, n, 0, {DType::Float32, DType::Int32, DType::Int64, DType::Int8, DType::UInt8});
  const Value& x = g.value(n.inputs[0]);
  const TensorData* k = g.value(n.inputs[1]).constant.get();
  if (!k) fail("K must be a constant known at compile time (the output shape depends on it)");
  const ops::TopKDims d = ops::topk_dims(n.attrs, x.shape, *k);
  const bool largest = n.attrs.get_int("largest", 1) != 0;
  spec.set_flag("empty", d.k == 0 || d.outer * d.inner == 0);
  spec.set_flag("indices", n.outputs.size() > 1);
  spec.set("OUTER", c_int(d.outer));
  spec.set("N", c_int(d.n));
  spec.set("INNER", c_int(d.inner));
  spec.set("K", c_int(d.k));
  spec.set("BLOCK", c_int(d.n * d.inner));
  spec.set("KBLOCK", c_int(d.k * d.inner));
  spec.set("skip", before(x.dtype, largest, "v", "pv[(" + c_int(d.k) + " - 1) * " + c_int(d.inner) + "]"));
  spec.set("shift", before(x.dtype, largest, "v", "pv[(j - 1) * " + c_int(d.inner) + "]"));
  spec.template_name = "topk.c";
  spec.args = {0};
}

}  // namespace mlipc::c::kernels
