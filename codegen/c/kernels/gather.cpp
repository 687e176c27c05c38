// Gather: indices are read at run time (int32 or int64, negative counting
// from the end); each picks a contiguous chunk of the input. An index out of
// range makes the kernel return MLIP_ERR_INVALID_ARG before it writes.
#include "c/kernels/kernels.h"
#include "ops/gather.h"

namespace mlipc::c::kernels {

void prepare_Gather(const Graph& g, const Node& n, KernelSpec& spec) {
  expect_dtype(g, n, 1, {DType::Int64, DType::Int32});
  const Shape& x = g.value(n.inputs[0]).shape;
  const int axis = ops::gather_axis(n.attrs, static_cast<int>(x.size()));
  int64_t outer = 1, inner = 1;
  for (int d = 0; d < axis; ++d) outer *= x[d];
  for (size_t d = axis + 1; d < x.size(); ++d) inner *= x[d];
  spec.template_name = "gather.c";
  spec.returns_status = true;
  spec.includes = {"mlip/status.h"};
  spec.set("outer", c_int(outer));
  spec.set("inner", c_int(inner));
  spec.set("dim", c_int(x[axis]));
  spec.set("count", c_int(numel(g.value(n.inputs[1]).shape)));
  spec.set_flag("empty", numel(g.value(n.outputs[0]).shape) == 0);
  spec.args = {0, 1};
}

}  // namespace mlipc::c::kernels
