// Pow: the cases of ops/pow.cpp in C (float powers through mlip/kmath.h,
// integer powers by repeated squaring as ops::int_pow, integer bases with
// float exponents converted back as ops::saturate_cast).
#include <fmt/format.h>

#include "c/kernels/elementwise.h"
#include "c/kernels/kernels.h"
#include "ops/elem.h"

namespace mlipc::c::kernels {

namespace {

// y is a constant 2 (in any numeric type) whose broadcast leaves x's shape as it is.
bool squares(const Graph& g, const Node& n) {
  const Value& y = g.value(n.inputs[1]);
  if (!y.is_constant() || numel(y.shape) != 1 || y.shape.size() > g.value(n.inputs[0]).shape.size()) return false;
  return static_cast<float>(y.constant->at(0)) == 2.0f;
}

}  // namespace

void prepare_Pow(const Graph& g, const Node& n, KernelSpec& spec) {
  expect_dtype_in(g, n, 0, {DType::Float32, DType::Int32, DType::Int64});
  expect_dtype_in(g, n, 1, ops::numeric_types());
  const DType x = g.value(n.inputs[0]).dtype, y = g.value(n.inputs[1]).dtype;
  const std::string ct(dtype_ctype(x));
  std::string body;
  if (x == DType::Float32 && squares(g, n)) {
    // mlip_powf(x, 2) is x * x for every float (checked over all 2^32 in
    // tests/unit/c/pow_square_test.cpp): one multiply, which vectorizes.
    elementwise_kernel(g, n, spec, {{0}, "float v = v0 * v0;", {}});
    return;
  }
  if (x == DType::Float32) {
    body = "float v = mlip_powf(v0, (float)v1);";
  } else if (dtype_is_float(y)) {
    body = fmt::format("const float t = mlip_powf((float)v0, (float)v1);\n    {} v = {};", ct,
                       c_saturate(x, DType::Float32, "t"));
  } else {
    const std::string u = dtype_size(x) > 4 ? "uint64_t" : "uint32_t";
    const std::string square = fmt::format(
        "{{\n      {0} r = 1u, b = ({0})v0;\n      uint64_t e = (uint64_t)v1;\n"
        "      for (; e != 0; e >>= 1) {{\n        if (e & 1u) r *= b;\n        b *= b;\n      }}\n"
        "      v = ({1})r;\n    }}",
        u, ct);
    body = fmt::format("{} v;\n    ", ct);
    // A negative exponent: the real result truncated (1, -1 or 0).
    if (dtype_is_signed(y)) body += "if (v1 < 0) v = v0 == 1 ? 1 : (v0 == -1 ? ((v1 & 1) ? -1 : 1) : 0);\n    else ";
    body += square;
  }
  elementwise_kernel(g, n, spec, {{0, 1}, body, {}});
}

}  // namespace mlipc::c::kernels
