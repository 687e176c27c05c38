// ScatterElements (and Scatter), ScatterND: the output starts as a copy of
// `data`; the updates are then applied in the reference's order, each index
// read at run time (out of range: MLIP_ERR_INVALID_ARG before any write).
// The reduction is one C expression of the old value `*d` and the update `v`,
// the same arithmetic as ops::reduce_one.
#include <fmt/format.h>

#include "c/kernels/elements_loops.h"
#include "c/kernels/kernels.h"
#include "ops/gather_nd.h"
#include "ops/indexing.h"

namespace mlipc::c::kernels {

namespace {

std::string reduce_expr(ops::Reduction r, DType t) {
  const bool is_float = dtype_is_float(t);
  const std::string ct(dtype_ctype(t));
  const std::string u = dtype_size(t) > 4 ? "uint64_t" : "uint32_t";
  switch (r) {
    case ops::Reduction::None: return "v";
    case ops::Reduction::Add: return is_float ? "*d + v" : fmt::format("({0})(({1})*d + ({1})v)", ct, u);
    case ops::Reduction::Mul: return is_float ? "*d * v" : fmt::format("({0})(({1})*d * ({1})v)", ct, u);
    case ops::Reduction::Max: return is_float ? "(v != v || v > *d) ? v : *d" : "v > *d ? v : *d";
    case ops::Reduction::Min: return is_float ? "(v != v || v < *d) ? v : *d" : "v < *d ? v : *d";
  }
  return "v";
}

void common(const Graph& g, const Node& n, KernelSpec& spec) {
  expect_dtype(g, n, 1, {DType::Int64, DType::Int32});
  const DType t = g.value(n.inputs[0]).dtype;
  spec.set("expr", reduce_expr(n.op == "Scatter" ? ops::Reduction::None : ops::reduction_of(n.attrs, t), t));
  spec.returns_status = true;
  spec.includes = {"mlip/status.h"};
  spec.args = {0, 1, 2};
}

void scatter_elements(const Graph& g, const Node& n, KernelSpec& spec) {
  const Shape& data = g.value(n.inputs[0]).shape;
  const Shape& indices = g.value(n.inputs[1]).shape;
  set_elements_loops(spec, data, indices, ops::elements_axis(n.attrs, data, indices));
  common(g, n, spec);
  spec.template_name = "scatter_elements.c";
}

}  // namespace

void prepare_ScatterElements(const Graph& g, const Node& n, KernelSpec& spec) { scatter_elements(g, n, spec); }
void prepare_Scatter(const Graph& g, const Node& n, KernelSpec& spec) { scatter_elements(g, n, spec); }

void prepare_ScatterND(const Graph& g, const Node& n, KernelSpec& spec) {
  const ops::NdGeometry geo = ops::nd_geometry(g.value(n.inputs[0]).shape, g.value(n.inputs[1]).shape, 0);
  set_nd_geometry(spec, geo);
  common(g, n, spec);
  spec.template_name = "scatter_nd.c";
}

}  // namespace mlipc::c::kernels
