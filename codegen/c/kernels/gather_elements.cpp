// GatherElements: loops over the indices' shape (axes merged where the data
// is contiguous), the data offset of each position built from baked strides
// with the axis coordinate read from `indices` at run time. Out-of-range
// indices make the kernel return MLIP_ERR_INVALID_ARG before it writes.
#include "c/kernels/elements_loops.h"
#include "c/kernels/kernels.h"
#include "ops/indexing.h"

namespace mlipc::c::kernels {

void prepare_GatherElements(const Graph& g, const Node& n, KernelSpec& spec) {
  expect_dtype(g, n, 1, {DType::Int64, DType::Int32});
  const Shape& data = g.value(n.inputs[0]).shape;
  const Shape& indices = g.value(n.inputs[1]).shape;
  const int axis = ops::elements_axis(n.attrs, data, indices);
  set_elements_loops(spec, data, indices, axis);
  spec.template_name = "gather_elements.c";
  spec.returns_status = true;
  spec.includes = {"mlip/status.h"};
  spec.args = {0, 1};
}

}  // namespace mlipc::c::kernels
