// Softmax, LogSoftmax: the [outer, n, inner] view (ops::softmax_dims) baked
// in; one pass for the max, one for the exponentials and their sum, one to
// normalize. Same order as the reference in ops/softmax.cpp; the
// exponentials (mlip/kmath_f.h's float-precision exp) and a contiguous
// row's max in vectors (mlip/kvec.h; lanes never meet: the same bits).
#include "c/kernels/kernels.h"
#include "ops/softmax.h"

namespace mlipc::c::kernels {

namespace {
void softmax(const Graph& g, const Node& n, KernelSpec& spec, bool log) {
  expect_float(g, n, 0);
  const ops::SoftmaxDims d = ops::softmax_dims(n.attrs, g.value(n.inputs[0]).shape);
  spec.template_name = "softmax.c";
  spec.set("OUTER", c_int(d.outer));
  spec.set("N", c_int(d.n));
  spec.set("INNER", c_int(d.inner));
  // One literal: a product of int literals can overflow where int is 16 bits.
  spec.set("BLOCK", c_int(d.n * d.inner));
  spec.set_flag("log", log);
  spec.set_flag("rows", d.inner == 1);  // the normalized axis is contiguous
  spec.includes.push_back("mlip/kmath_f.h");
  spec.includes.push_back("mlip/kvec.h");
  spec.includes.push_back("mlip/kvec_softmax.h");
  spec.args = {0};
}
}  // namespace

void prepare_Softmax(const Graph& g, const Node& n, KernelSpec& spec) { softmax(g, n, spec, false); }
void prepare_LogSoftmax(const Graph& g, const Node& n, KernelSpec& spec) { softmax(g, n, spec, true); }

}  // namespace mlipc::c::kernels
