// Max, Min, Sum, Mean: the inputs folded from first to last in the compute
// type, as ops/variadic.cpp (float16 sums rounded after every addition;
// Max and Min keep a NaN of either side).
#include <fmt/format.h>

#include "c/kernels/elementwise.h"
#include "c/kernels/kernels.h"
#include "ops/elem.h"

namespace mlipc::c::kernels {

namespace {

// "ct v = v0;" then one statement per further input, step(k) giving the new v.
template <class Step>
void fold(const Graph& g, const Node& n, KernelSpec& spec, Step step, const std::string& finish = "") {
  ElementwiseBody b;
  const DType t = g.value(n.inputs[0]).dtype;
  b.body = fmt::format("{} v = v0;", c_compute_type(t));
  for (size_t k = 0; k < n.inputs.size(); ++k) {
    b.inputs.push_back(static_cast<int>(k));
    if (k > 0) b.body += fmt::format("\n    v = {};", step(fmt::format("v{}", k)));
  }
  if (!finish.empty()) b.body += "\n    v = " + finish + ";";
  elementwise_kernel(g, n, spec, b);
}

void select(const Graph& g, const Node& n, KernelSpec& spec, const char* op) {
  expect_dtype_in(g, n, 0, ops::numeric_types());
  const bool is_float = dtype_is_float(g.value(n.inputs[0]).dtype);
  fold(g, n, spec, [&](const std::string& x) {
    return is_float ? fmt::format("(v {} {} || v != v) ? v : {}", op, x, x) : fmt::format("v {} {} ? v : {}", op, x, x);
  });
}

void sum(const Graph& g, const Node& n, KernelSpec& spec, bool mean) {
  expect_dtype_in(g, n, 0, ops::float_types());
  const DType t = g.value(n.inputs[0]).dtype;
  fold(
      g, n, spec, [&](const std::string& x) { return c_round(t, "v + " + x); },
      mean ? "v / " + c_const(t, static_cast<double>(n.inputs.size())) : "");
}

}  // namespace

void prepare_Max(const Graph& g, const Node& n, KernelSpec& spec) { select(g, n, spec, ">"); }
void prepare_Min(const Graph& g, const Node& n, KernelSpec& spec) { select(g, n, spec, "<"); }
void prepare_Sum(const Graph& g, const Node& n, KernelSpec& spec) { sum(g, n, spec, false); }
void prepare_Mean(const Graph& g, const Node& n, KernelSpec& spec) { sum(g, n, spec, true); }

}  // namespace mlipc::c::kernels
