// C expressions of the one-input math operators, each the reference's
// (ops/math_unary.cpp): float32 functions through mlip/kmath.h, exact
// ones in every type the shape rule accepts (float16 computed in float).
#include <fmt/format.h>

#include "c/kernels/elementwise.h"
#include "c/kernels/kernels.h"
#include "ops/activation.h"
#include "ops/elem.h"

namespace mlipc::c::kernels {

namespace {

DType in_type(const Graph& g, const Node& n) { return g.value(n.inputs[0]).dtype; }

void map(const Graph& g, const Node& n, KernelSpec& spec, const std::vector<DType>& allowed, const std::string& expr) {
  expect_dtype_in(g, n, 0, allowed);
  elementwise_kernel(g, n, spec, {{0}, define_v(g, n, expr), {}});
}

// The math.h function for the compute type: "sqrtf" for float (and float16), "sqrt" for double.
std::string fn(const Graph& g, const Node& n, const char* name) {
  return in_type(g, n) == DType::Float64 ? name : std::string(name) + "f";
}

std::string wrap_type(DType t) { return dtype_size(t) > 4 ? "uint64_t" : "uint32_t"; }

}  // namespace

// Exp and Erf: the loop copies x into y, then kmath_n.h's array form maps y
// in place (the bits of the scalar function, several lanes at a time); with
// a fused activation, which must come after, the scalar function per element.
#define MLIPC_FLOAT32_ARRAY_FN(Op, cfn)                                                    \
  void prepare_##Op(const Graph& g, const Node& n, KernelSpec& spec) {                      \
    if (activation_of(n.attrs).kind != Activation::None) {                                  \
      map(g, n, spec, {DType::Float32}, cfn "(v0)");                                        \
      return;                                                                               \
    }                                                                                       \
    map(g, n, spec, {DType::Float32}, "v0");                                                \
    spec.set("post", fmt::format("  " cfn "_n(y, {});\n", c_int(numel(g.value(n.outputs[0]).shape)))); \
    spec.includes.push_back("mlip/kmath_n.h");                                              \
  }
MLIPC_FLOAT32_ARRAY_FN(Exp, "mlip_expf")
MLIPC_FLOAT32_ARRAY_FN(Erf, "mlip_erff")
#undef MLIPC_FLOAT32_ARRAY_FN

#define MLIPC_FLOAT32_FN(Op, cfn)                                          \
  void prepare_##Op(const Graph& g, const Node& n, KernelSpec& spec) {     \
    map(g, n, spec, {DType::Float32}, cfn "(v0)");                         \
  }
MLIPC_FLOAT32_FN(Log, "mlip_logf")
MLIPC_FLOAT32_FN(Sin, "mlip_sinf")
MLIPC_FLOAT32_FN(Cos, "mlip_cosf")
MLIPC_FLOAT32_FN(Tan, "mlip_tanf")
MLIPC_FLOAT32_FN(Asin, "mlip_asinf")
MLIPC_FLOAT32_FN(Acos, "mlip_acosf")
MLIPC_FLOAT32_FN(Atan, "mlip_atanf")
MLIPC_FLOAT32_FN(Sinh, "mlip_sinhf")
MLIPC_FLOAT32_FN(Cosh, "mlip_coshf")
MLIPC_FLOAT32_FN(Asinh, "mlip_asinhf")
MLIPC_FLOAT32_FN(Acosh, "mlip_acoshf")
MLIPC_FLOAT32_FN(Atanh, "mlip_atanhf")
#undef MLIPC_FLOAT32_FN

void prepare_Sqrt(const Graph& g, const Node& n, KernelSpec& spec) {
  map(g, n, spec, ops::float_types(), fn(g, n, "sqrt") + "(v0)");
}

void prepare_Reciprocal(const Graph& g, const Node& n, KernelSpec& spec) {
  map(g, n, spec, ops::float_types(), c_const(in_type(g, n), 1) + " / v0");
}

void prepare_Floor(const Graph& g, const Node& n, KernelSpec& spec) {
  map(g, n, spec, ops::float_types(), fn(g, n, "floor") + "(v0)");
}

void prepare_Ceil(const Graph& g, const Node& n, KernelSpec& spec) {
  map(g, n, spec, ops::float_types(), fn(g, n, "ceil") + "(v0)");
}

void prepare_Round(const Graph& g, const Node& n, KernelSpec& spec) {
  map(g, n, spec, ops::float_types(), fn(g, n, "rint") + "(v0)");
}

void prepare_Abs(const Graph& g, const Node& n, KernelSpec& spec) {
  const DType t = in_type(g, n);
  std::string e = "v0";
  if (dtype_is_float(t)) e = fn(g, n, "fabs") + "(v0)";
  else if (dtype_is_signed(t)) e = fmt::format("v0 < 0 ? ({})(({})0 - ({})v0) : v0", dtype_ctype(t), wrap_type(t), wrap_type(t));
  map(g, n, spec, ops::numeric_types(), e);
}

void prepare_Neg(const Graph& g, const Node& n, KernelSpec& spec) {
  const DType t = in_type(g, n);
  const std::string e =
      dtype_is_float(t) ? "-v0" : fmt::format("({})(({})0 - ({})v0)", dtype_ctype(t), wrap_type(t), wrap_type(t));
  map(g, n, spec, ops::join({ops::float_types(), ops::signed_types()}), e);
}

void prepare_Sign(const Graph& g, const Node& n, KernelSpec& spec) {
  const DType t = in_type(g, n);
  std::string e;
  if (dtype_is_float(t)) e = fmt::format("v0 > {0} ? {1} : (v0 < {0} ? {2} : v0)", c_const(t, 0), c_const(t, 1), c_const(t, -1));
  else if (dtype_is_signed(t)) e = fmt::format("({})((v0 > 0) - (v0 < 0))", dtype_ctype(t));
  else e = fmt::format("({})(v0 != 0)", dtype_ctype(t));
  map(g, n, spec, ops::numeric_types(), e);
}

void prepare_IsNaN(const Graph& g, const Node& n, KernelSpec& spec) { map(g, n, spec, ops::float_types(), "isnan(v0)"); }

void prepare_IsInf(const Graph& g, const Node& n, KernelSpec& spec) {
  const bool pos = n.attrs.get_int("detect_positive") != 0, neg = n.attrs.get_int("detect_negative") != 0;
  const char* e = pos && neg ? "isinf(v0)" : pos ? "isinf(v0) && v0 > 0" : neg ? "isinf(v0) && v0 < 0" : "isinf(v0) && 0";
  map(g, n, spec, ops::float_types(), e);
}

}  // namespace mlipc::c::kernels
