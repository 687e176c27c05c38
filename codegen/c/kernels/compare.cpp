// Equal, Greater, Less, GreaterOrEqual, LessOrEqual: bool results (0 or 1)
// of two inputs in their compute type, as ops/compare.cpp.
#include "c/kernels/elementwise.h"
#include "c/kernels/kernels.h"
#include "ops/elem.h"

namespace mlipc::c::kernels {

namespace {
void compare(const Graph& g, const Node& n, KernelSpec& spec, const std::vector<DType>& allowed, const char* op) {
  expect_dtype_in(g, n, 0, allowed);
  elementwise_kernel(g, n, spec, {{0, 1}, define_v(g, n, std::string("v0 ") + op + " v1"), {}});
}
}  // namespace

void prepare_Equal(const Graph& g, const Node& n, KernelSpec& spec) {
  compare(g, n, spec, ops::join({ops::numeric_types(), {DType::Bool}}), "==");
}
void prepare_Greater(const Graph& g, const Node& n, KernelSpec& spec) { compare(g, n, spec, ops::numeric_types(), ">"); }
void prepare_Less(const Graph& g, const Node& n, KernelSpec& spec) { compare(g, n, spec, ops::numeric_types(), "<"); }
void prepare_GreaterOrEqual(const Graph& g, const Node& n, KernelSpec& spec) {
  compare(g, n, spec, ops::numeric_types(), ">=");
}
void prepare_LessOrEqual(const Graph& g, const Node& n, KernelSpec& spec) {
  compare(g, n, spec, ops::numeric_types(), "<=");
}

}  // namespace mlipc::c::kernels
