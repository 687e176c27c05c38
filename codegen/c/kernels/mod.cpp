// Mod: the statements of ops::mod_apply (ops/elementwise.h) in C.
#include <fmt/format.h>

#include "c/kernels/elementwise.h"
#include "c/kernels/kernels.h"
#include "ops/elem.h"

namespace mlipc::c::kernels {

void prepare_Mod(const Graph& g, const Node& n, KernelSpec& spec) {
  expect_dtype_in(g, n, 0, ops::numeric_types());
  const DType t = g.value(n.inputs[0]).dtype;
  const std::string ct(dtype_ctype(t));
  std::string body;
  if (dtype_is_float(t)) {
    body = define_v(g, n, t == DType::Float64 ? "fmod(v0, v1)" : "fmodf(v0, v1)");
  } else if (!dtype_is_signed(t)) {
    body = define_v(g, n, fmt::format("v1 == 0 ? 0 : ({})(v0 % v1)", ct));
  } else {
    // x % 0 and INT_MIN % -1 trap in C; both are 0 here.
    body = fmt::format("{} v = 0;\n    if (v1 != 0 && v1 != -1) v = ({})(v0 % v1);", ct, ct);
    if (n.attrs.get_int("fmod") == 0)  // Python's sign: the divisor's
      body += fmt::format("\n    if (v != 0 && ((v < 0) != (v1 < 0))) v = ({})(v + v1);", ct);
  }
  elementwise_kernel(g, n, spec, {{0, 1}, body, {}});
}

}  // namespace mlipc::c::kernels
