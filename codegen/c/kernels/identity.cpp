// Identity: a byte copy, for any element type.
#include "c/kernels/kernels.h"

namespace mlipc::c::kernels {

void prepare_Identity(const Graph& g, const Node& n, KernelSpec& spec) {
  const Value& x = g.value(n.inputs[0]);
  spec.template_name = "identity.c";
  // Zero-size tensors are passed as null pointers, which memcpy must not see.
  spec.set_flag("empty", x.nbytes() == 0);
  spec.args = {0};
}

}  // namespace mlipc::c::kernels
