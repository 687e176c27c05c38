// Not, And, Or, Xor on bool (loaded as 0 or 1), as ops/logical.cpp.
#include "c/kernels/elementwise.h"
#include "c/kernels/kernels.h"

namespace mlipc::c::kernels {

namespace {
void logical(const Graph& g, const Node& n, KernelSpec& spec, const char* expr) {
  expect_dtype_in(g, n, 0, {DType::Bool});
  expect_dtype_in(g, n, 1, {DType::Bool});
  elementwise_kernel(g, n, spec, {{0, 1}, define_v(g, n, expr), {}});
}
}  // namespace

void prepare_Not(const Graph& g, const Node& n, KernelSpec& spec) {
  expect_dtype_in(g, n, 0, {DType::Bool});
  elementwise_kernel(g, n, spec, {{0}, define_v(g, n, "!v0"), {}});
}
void prepare_And(const Graph& g, const Node& n, KernelSpec& spec) { logical(g, n, spec, "v0 && v1"); }
void prepare_Or(const Graph& g, const Node& n, KernelSpec& spec) { logical(g, n, spec, "v0 || v1"); }
void prepare_Xor(const Graph& g, const Node& n, KernelSpec& spec) { logical(g, n, spec, "v0 != v1"); }

}  // namespace mlipc::c::kernels
