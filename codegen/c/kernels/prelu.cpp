// PRelu: x < 0 ? x * slope : x, the slope read with the shape the shape rule
// chose (slope_shape), as ops/prelu.cpp.
#include <fmt/format.h>

#include "c/kernels/elementwise.h"
#include "c/kernels/kernels.h"
#include "ops/elem.h"

namespace mlipc::c::kernels {

void prepare_PRelu(const Graph& g, const Node& n, KernelSpec& spec) {
  expect_dtype_in(g, n, 0, ops::join({ops::float_types(), {DType::Int32, DType::Int64, DType::UInt32, DType::UInt64}}));
  const DType t = g.value(n.inputs[0]).dtype;
  if (!dtype_is_float(t) && !dtype_is_signed(t)) {  // an unsigned x is never negative: y = x
    elementwise_kernel(g, n, spec, {{0}, define_v(g, n, "v0"), {}});
    return;
  }
  std::string e = "v0 < 0 ? v0 * v1 : v0";
  if (dtype_is_integer(t)) {
    const std::string u = dtype_size(t) > 4 ? "uint64_t" : "uint32_t";
    e = fmt::format("v0 < 0 ? ({})(({})v0 * ({})v1) : v0", dtype_ctype(t), u, u);
  }
  const std::vector<int64_t> slope = n.attrs.get_ints("slope_shape");
  elementwise_kernel(g, n, spec, {{0, 1}, define_v(g, n, e), {Shape{}, Shape(slope.begin(), slope.end())}});
}

}  // namespace mlipc::c::kernels
