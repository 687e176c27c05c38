// ArgMax, ArgMin: the [outer, n, inner] view (ops::arg_dims) baked in; one
// pass along n per output, the pick replaced when the element is better
// (ops::arg_better: NaN wins, ties go to the first or, with
// select_last_index, the last). Same order as the reference in
// ops/arg_minmax.cpp.
#include <fmt/format.h>

#include "c/kernels/kernels.h"
#include "ops/arg_minmax.h"

namespace mlipc::c::kernels {

namespace {
void arg(const Graph& g, const Node& n, KernelSpec& spec, bool max) {
  expect_dtype(g, n, 0, {DType::Float32, DType::Int32, DType::Int64, DType::Int8, DType::UInt8});
  const Value& x = g.value(n.inputs[0]);
  const ops::ArgDims d = ops::arg_dims(n.attrs, x.shape, 0);
  const bool last = n.attrs.get_int("select_last_index", 0) != 0;
  const std::string cmp = fmt::format("v {}{} best", max ? ">" : "<", last ? "=" : "");
  spec.set("better", x.dtype == DType::Float32
                         ? fmt::format("isnan(v) ? {} : (!isnan(best) && {})", last ? "1" : "!isnan(best)", cmp)
                         : cmp);
  spec.set("op", n.op);
  spec.set("OUTER", c_int(d.outer));
  spec.set("N", c_int(d.n));
  spec.set("INNER", c_int(d.inner));
  spec.set("BLOCK", c_int(d.n * d.inner));
  spec.template_name = "arg_minmax.c";
  spec.args = {0};
}
}  // namespace

void prepare_ArgMax(const Graph& g, const Node& n, KernelSpec& spec) { arg(g, n, spec, true); }
void prepare_ArgMin(const Graph& g, const Node& n, KernelSpec& spec) { arg(g, n, spec, false); }

}  // namespace mlipc::c::kernels
