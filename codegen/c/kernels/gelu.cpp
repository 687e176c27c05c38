// Gelu, as the reference (ops/gelu.cpp): approximate "none" is
// mlip/kmath_f.h's mlip_gelu_f_map from x into y (one pass, a loop the
// compiler vectorizes, the scalar function's bits); "tanh" the same with
// mlip_gelu_tanh_f_map.
#include "c/kernels/elementwise.h"
#include "c/kernels/kernels.h"

namespace mlipc::c::kernels {

void prepare_Gelu(const Graph& g, const Node& n, KernelSpec& spec) {
  expect_float(g, n, 0);
  spec.includes.push_back("mlip/kmath_f.h");
  float32_map_f(g, n, spec, n.attrs.get_string("approximate") == "tanh" ? "mlip_gelu_tanh_f_map" : "mlip_gelu_f_map");
}

}  // namespace mlipc::c::kernels
