// MatMulInteger and QLinearMatMul: one template, the batch loops as
// MatMul's, zero points as pointers (one value, per row of A or per column
// of B), and for QLinearMatMul the requantization constants baked in. A
// QLinearMatMul with a constant int8 B whose zero points are 0 (a
// fully-connected layer) runs on mlip/kq8.h's int8 product instead, whose
// instruction-set variants give the same bits (qlinear_matmul_q8.c). Its
// 16x8 form (int16 on a side): the same template with an int64 sum and
// mlip_requantize64.
#include <memory>

#include <fmt/format.h>

#include "c/kernels/kernels.h"
#include "c/kernels/matmul_loops.h"
#include "mlip/kq8.h"
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
  spec.set("acc_t", "int32_t");
  spec.set("prod_cast", "");
  spec.set("requantize", "mlip_requantize");
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

// QLinearMatMul on mlip/kq8.h's product (templates/kernels/qlinear_matmul_q8.c)
// when B is a constant int8 matrix (2-D: one for every row of A) whose zero
// points are all 0, A's zero point one constant, A's scale one value (the
// product requantizes per column) and y's zero point a constant: B
// transposed into the product's weight rows, and per column the sum's
// start, (128 or 0 - za) times the column's sum (mlip_kq8_start, no bias),
// and its q and shift; every row of A (the batch's too) one row of the
// product. False, with nothing set, otherwise.
bool prepare_q8(const Graph& g, const Node& n, KernelSpec& spec) {
  auto constant = [&](size_t i) -> const TensorData* {
    return n.has_input(i) ? g.value(n.inputs[i]).constant.get() : nullptr;
  };
  const Value& av = g.value(n.inputs[0]);
  const Value& bv = g.value(n.inputs[3]);
  const Value& yv = g.value(n.outputs[0]);
  if (bv.dtype != DType::Int8 || !bv.is_constant() || bv.shape.size() != 2 || numel(yv.shape) == 0) return false;
  if (ops::qmatmul_wide(av.dtype, bv.dtype, yv.dtype)) return false;  // kq8.h is 8-bit
  const TensorData *za = constant(2), *zb = constant(5), *zy = constant(7);
  if (!za || numel(za->shape()) != 1 || !zy || (n.has_input(5) && !zb)) return false;
  if (zb)
    for (int64_t v : zb->as_int64())
      if (v != 0) return false;
  const ops::MatMulDims d = ops::matmul_dims(av.shape, bv.shape);
  const ops::MatMulRequant q = ops::matmul_requant(*constant(1), *constant(4), *constant(6), d.m, d.n, ops::requant_mode(n.attrs));
  if (q.rows != 1) return false;
  const int64_t k = d.k, cols = d.n, rows = numel(av.shape) / k;
  const int32_t x_u8 = av.dtype == DType::UInt8;
  const int32_t zx = static_cast<int32_t>(za->as_int64()[0]);

  auto wpk = std::make_shared<TensorData>(DType::Int8, Shape{cols * k});
  const int8_t* b = bv.constant->data<int8_t>();
  int8_t* wp = wpk->data<int8_t>();
  for (int64_t j = 0; j < cols; ++j)
    for (int64_t p = 0; p < k; ++p) wp[j * k + p] = b[p * cols + j];
  std::vector<std::string> ch;
  for (int64_t j = 0; j < cols; ++j) {
    int32_t start = 0;
    if (mlip_kq8_start(wp + j * k, static_cast<int32_t>(k), x_u8, zx, 0, &start) != 0) return false;
    const ops::Requant& r = q.r[q.cols > 1 ? static_cast<size_t>(j) : 0];
    for (int64_t v : {int64_t{start}, int64_t{r.q}, int64_t{r.shift}}) ch.push_back(c_int(v));
  }
  spec.template_name = "qlinear_matmul_q8.c";
  spec.includes.push_back("mlip/kq8.h");
  spec.set("a_t", std::string(dtype_ctype(av.dtype)));
  spec.set("y_t", std::string(dtype_ctype(yv.dtype)));
  spec.set("P", rows);
  spec.set("N", cols);
  spec.set("K", k);
  spec.set("FLIP", std::string(x_u8 ? "0x80u" : "0u"));
  spec.set("ZY", c_int(zy->as_int64()[0]));
  spec.set("LO", c_int(ops::quant_min(yv.dtype)));
  spec.set("HI", c_int(ops::quant_max(yv.dtype)));
  spec.set("ch_list", fmt::format("{}", fmt::join(ch, ", ")));
  spec.args = {0};
  spec.packed.push_back(wpk);
  return true;
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
  expect_dtype(g, n, 0, {DType::Int8, DType::UInt8, DType::Int16});
  expect_dtype(g, n, 3, {DType::Int8, DType::UInt8, DType::Int16});
  if (prepare_q8(g, n, spec)) return;
  const ops::MatMulDims d = set_common(g, n, spec, 0, 3, 2, 5);
  if (ops::qmatmul_wide(g.value(n.inputs[0]).dtype, g.value(n.inputs[3]).dtype, g.value(n.outputs[0]).dtype)) {
    spec.set("acc_t", "int64_t");  // 16x8: products below 2^32, summed in int64
    spec.set("prod_cast", "(int64_t)");
    spec.set("requantize", "mlip_requantize64");
  }
  auto constant = [&](int i) -> const TensorData& {
    const TensorData* t = g.value(n.inputs[static_cast<size_t>(i)]).constant.get();
    if (!t) fail("internal: QLinearMatMul scale #{} is not a constant", i);
    return *t;
  };
  const ops::MatMulRequant q = ops::matmul_requant(constant(1), constant(4), constant(6), d.m, d.n, ops::requant_mode(n.attrs));
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
