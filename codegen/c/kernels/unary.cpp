// The activations' C expressions, one per operator, each the reference's
// (ops/unary.cpp) term for term but Sigmoid's and Tanh's float-precision
// functions; the shape rule has written every attribute's default into the
// node.
#include <fmt/format.h>

#include "c/kernels/elementwise.h"
#include "c/kernels/kernels.h"
#include "ops/elem.h"

namespace mlipc::c::kernels {

namespace {

// A float32 map y = expr(v0).
void float32_map(const Graph& g, const Node& n, KernelSpec& spec, const std::string& expr) {
  expect_float(g, n, 0);
  elementwise_kernel(g, n, spec, {{0}, "float v = " + expr + ";", {}});
}

std::string attr(const Node& n, const char* name) { return c_float(n.attrs.get_float(name)); }

// The clamp of t to [0, 1] that keeps NaN.
const char* kUnitClamp = "t > 1.0f ? 1.0f : (t < 0.0f ? 0.0f : t)";

}  // namespace

void prepare_Relu(const Graph& g, const Node& n, KernelSpec& spec) {
  expect_dtype_in(g, n, 0, ops::join({ops::float_types(), ops::signed_types()}));
  const DType t = g.value(n.inputs[0]).dtype;
  const std::string zero = c_const(t, 0);
  // Activation::relu: a NaN stays NaN (integers have none: their form is kept).
  const std::string expr =
      dtype_is_float(t) ? fmt::format("v0 <= {0} ? {0} : v0", zero) : fmt::format("v0 > {0} ? v0 : {0}", zero);
  elementwise_kernel(g, n, spec, {{0}, define_v(g, n, expr), {}});
}

void prepare_LeakyRelu(const Graph& g, const Node& n, KernelSpec& spec) {
  float32_map(g, n, spec, "v0 < 0.0f ? v0 * " + attr(n, "alpha") + " : v0");
}

// Sigmoid and Tanh: mlip/kmath_f.h's float-precision map forms from x into y
// (float32_map_f); the reference has kmath.h's double functions, which these
// are within the bounds kmath_f.h documents.
void prepare_Sigmoid(const Graph& g, const Node& n, KernelSpec& spec) { float32_map_f(g, n, spec, "mlip_sigmoid_f_map"); }

void prepare_Tanh(const Graph& g, const Node& n, KernelSpec& spec) { float32_map_f(g, n, spec, "mlip_tanh_f_map"); }

void prepare_Softplus(const Graph& g, const Node& n, KernelSpec& spec) {
  float32_map(g, n, spec, "v0 > 0.0f ? v0 + mlip_log1pf(mlip_expf(-v0)) : mlip_log1pf(mlip_expf(v0))");
}

void prepare_Softsign(const Graph& g, const Node& n, KernelSpec& spec) {
  float32_map(g, n, spec, "v0 / (1.0f + fabsf(v0))");
}

void prepare_Elu(const Graph& g, const Node& n, KernelSpec& spec) {
  float32_map(g, n, spec, fmt::format("v0 < 0.0f ? {} * mlip_expm1f(v0) : v0", attr(n, "alpha")));
}

void prepare_Selu(const Graph& g, const Node& n, KernelSpec& spec) {
  float32_map(g, n, spec,
              fmt::format("v0 > 0.0f ? {1} * v0 : {1} * ({0} * mlip_expm1f(v0))", attr(n, "alpha"), attr(n, "gamma")));
}

void prepare_Celu(const Graph& g, const Node& n, KernelSpec& spec) {
  float32_map(g, n, spec, fmt::format("v0 > 0.0f ? v0 : {0} * mlip_expm1f(v0 / {0})", attr(n, "alpha")));
}

void prepare_HardSigmoid(const Graph& g, const Node& n, KernelSpec& spec) {
  expect_float(g, n, 0);
  elementwise_kernel(g, n, spec,
                     {{0},
                      fmt::format("const float t = {} * v0 + {};\n    float v = {};", attr(n, "alpha"), attr(n, "beta"),
                                  kUnitClamp),
                      {}});
}

void prepare_HardSwish(const Graph& g, const Node& n, KernelSpec& spec) {
  expect_float(g, n, 0);
  elementwise_kernel(
      g, n, spec,
      {{0}, fmt::format("const float t = {} * v0 + 0.5f;\n    float v = v0 * ({});", c_float(1.0f / 6.0f), kUnitClamp), {}});
}

void prepare_ThresholdedRelu(const Graph& g, const Node& n, KernelSpec& spec) {
  float32_map(g, n, spec, fmt::format("v0 > {} ? v0 : 0.0f", attr(n, "alpha")));
}

void prepare_Shrink(const Graph& g, const Node& n, KernelSpec& spec) {
  const float lambd = n.attrs.get_float("lambd");
  float32_map(g, n, spec,
              fmt::format("v0 < {} ? v0 + {} : (v0 > {} ? v0 - {} : 0.0f)", c_float(-lambd), attr(n, "bias"),
                          c_float(lambd), attr(n, "bias")));
}

}  // namespace mlipc::c::kernels
