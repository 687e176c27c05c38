// Gelu, as the reference (ops/gelu.cpp): approximate "none" copies x into y,
// then mlip/kmath_f.h's mlip_gelu_f_n maps y in place (a loop the compiler
// vectorizes, the scalar function's bits); "tanh" the same with
// mlip_gelu_tanh_f_n.
#include <fmt/format.h>

#include "c/kernels/elementwise.h"
#include "c/kernels/kernels.h"

namespace mlipc::c::kernels {

void prepare_Gelu(const Graph& g, const Node& n, KernelSpec& spec) {
  expect_float(g, n, 0);
  spec.includes.push_back("mlip/kmath_f.h");
  const char* array_fn = n.attrs.get_string("approximate") == "tanh" ? "mlip_gelu_tanh_f_n" : "mlip_gelu_f_n";
  elementwise_kernel(g, n, spec, {{0}, "float v = v0;", {}});
  spec.set("post", fmt::format("  {}(y, {});\n", array_fn, c_int(numel(g.value(n.outputs[0]).shape))));
}

}  // namespace mlipc::c::kernels
