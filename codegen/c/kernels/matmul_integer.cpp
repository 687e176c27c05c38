// MatMulInteger and QLinearMatMul: one template, the batch loops as
// MatMul's, zero points as pointers (one value, per row of A or per column
// of B), and for QLinearMatMul the requantization constants baked in.
#include <fmt/format.h>

#include "c/kernels/kernels.h"
#include "c/kernels/matmul_loops.h"
#include "ops/matmul_integer.h"
#include "support/error.h"

namespace mlipc::c::kernels {

namespace {

// a and b are node inputs ia and ib, their zero points za and zb (-1: none).
ops::MatMulDims set_common(const Graph& g, const Node& n, KernelSpec& spec, int ia, int ib, int za, int zb) {
  const ops::MatMulDims d = ops::matmul_dims(g.value(n.inputs[static_cast<size_t>(ia)]).shape,
                                             g.value(n.inputs[static_cast<size_t>(ib)]).shape);
  spec.template_name = "matmul_integer.c";
  set_matmul_loops(spec, d);
  spec.set("a_t", std::string(dtype_ctype(g.value(n.inputs[static_cast<size_t>(ia)]).dtype)));
  spec.set("b_t", std::string(dtype_ctype(g.value(n.inputs[static_cast<size_t>(ib)]).dtype)));
  spec.args = {ia, ib};
  const bool has_za = za >= 0 && n.has_input(static_cast<size_t>(za));
  const bool has_zb = zb >= 0 && n.has_input(static_cast<size_t>(zb));
  spec.set_flag("has_za", has_za);
  spec.set_flag("has_zb", has_zb);
  if (has_za) {
    spec.args.push_back(za);
    spec.set("za_i", ops::per_row_count(g.value(n.inputs[static_cast<size_t>(za)]).shape, d.m, "a_zero_point") > 1
                         ? "i" : "0");
  }
  if (has_zb) {
    spec.args.push_back(zb);
    spec.set("zb_j", ops::per_column_count(g.value(n.inputs[static_cast<size_t>(zb)]).shape, d.n, "b_zero_point") > 1
                         ? "j" : "0");
  }
  return d;
}

}  // namespace

void prepare_MatMulInteger(const Graph& g, const Node& n, KernelSpec& spec) {
  expect_dtype(g, n, 0, {DType::Int8, DType::UInt8});
  expect_dtype(g, n, 1, {DType::Int8, DType::UInt8});
  set_common(g, n, spec, 0, 1, 2, 3);
  spec.set_flag("qlinear", false);
  spec.set("y_t", "int32_t");
}

void prepare_QLinearMatMul(const Graph& g, const Node& n, KernelSpec& spec) {
  expect_dtype(g, n, 0, {DType::Int8, DType::UInt8});
  expect_dtype(g, n, 3, {DType::Int8, DType::UInt8});
  const ops::MatMulDims d = set_common(g, n, spec, 0, 3, 2, 5);
  auto constant = [&](int i) -> const TensorData& {
    const TensorData* t = g.value(n.inputs[static_cast<size_t>(i)]).constant.get();
    if (!t) fail("internal: QLinearMatMul scale #{} is not a constant", i);
    return *t;
  };
  const ops::MatMulRequant q = ops::matmul_requant(constant(1), constant(4), constant(6), d.m, d.n);
  std::vector<std::string> qs, shifts;
  for (const ops::Requant& r : q.r) {
    qs.push_back(c_int(r.q));
    shifts.push_back(c_int(r.shift));
  }
  const DType out = g.value(n.outputs[0]).dtype;
  spec.set_flag("qlinear", true);
  spec.set("y_t", std::string(dtype_ctype(out)));
  spec.set("NQ", static_cast<int64_t>(q.r.size()));
  spec.set("q_list", fmt::format("{}", fmt::join(qs, ", ")));
  spec.set("shift_list", fmt::format("{}", fmt::join(shifts, ", ")));
  spec.set("q_i", q.rows > 1 && q.cols > 1 ? "i * " + c_int(d.n) + " + j"
                  : q.rows > 1              ? "i"
                  : q.cols > 1              ? "j"
                                            : "0");
  spec.set("LO", c_int(ops::quant_min(out)));
  spec.set("HI", c_int(ops::quant_max(out)));
  spec.args.push_back(7);
  spec.includes.push_back("mlip/requant.h");
}

}  // namespace mlipc::c::kernels
