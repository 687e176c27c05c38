// Hardmax: the [outer, n, inner] view (ops::softmax_dims) baked in; one pass
// for the first maximum (ops::arg_better), one to write the one-hot row.
// Same order as the reference in ops/hardmax.cpp.
#include "c/kernels/kernels.h"
#include "ops/softmax.h"

namespace mlipc::c::kernels {

void prepare_Hardmax(const Graph& g, const Node& n, KernelSpec& spec) {
  expect_float(g, n, 0);
  const ops::SoftmaxDims d = ops::softmax_dims(n.attrs, g.value(n.inputs[0]).shape);
  spec.template_name = "hardmax.c";
  // An empty axis leaves nothing to write (and no first element to read).
  spec.set("OUTER", c_int(d.n == 0 ? 0 : d.outer));
  spec.set("N", c_int(d.n));
  spec.set("INNER", c_int(d.inner));
  spec.set("BLOCK", c_int(d.n * d.inner));
  spec.args = {0};
}

}  // namespace mlipc::c::kernels
