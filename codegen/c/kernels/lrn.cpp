// LRN: batch, channel and spatial loops with the channel window clipped at
// the edges; same order and expressions as ops/lrn.h.
#include "c/kernels/kernels.h"
#include "ops/lrn.h"

namespace mlipc::c::kernels {

void prepare_LRN(const Graph& g, const Node& n, KernelSpec& spec) {
  expect_float(g, n, 0);
  const ops::LrnParams p = ops::lrn_params(n.attrs, g.value(n.inputs[0]).shape);
  spec.template_name = "lrn.c";
  spec.set("N", c_int(p.n));
  spec.set("C", c_int(p.c));
  spec.set("S", c_int(p.spatial));
  spec.set("LO", c_int(p.lo));
  spec.set("HI", c_int(p.hi));
  spec.set("ALPHA_OVER_SIZE", c_float(p.alpha_over_size));
  spec.set("BETA", c_float(p.beta));
  spec.set("BIAS", c_float(p.bias));
  spec.args = {0};
}

}  // namespace mlipc::c::kernels
