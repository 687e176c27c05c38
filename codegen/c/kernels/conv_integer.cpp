// ConvInteger and QLinearConv: one template for 1-D to 3-D (as 3-D with
// size-1 leading axes), geometry baked in, zero points and bias as
// pointers, and for QLinearConv the per-channel requantization constants
// baked in. A QLinearConv with constant int8 weights whose zero points are
// 0 (and constant zero points and bias) runs on mlip/kq8.h's int8 product
// instead, whose instruction-set variants give the same bits
// (qlinear_conv_q8.c).
#include <algorithm>
#include <memory>

#include <fmt/format.h>

#include "c/kernels/kernels.h"
#include "mlip/kq4.h"
#include "mlip/kq8.h"
#include "ops/conv_integer.h"
#include "support/error.h"

namespace mlipc::c::kernels {

namespace {

// x and w are node inputs ix and iw, their zero points zx and zw.
void set_common(const Graph& g, const Node& n, KernelSpec& spec, int ix, int iw, int zx, int zw) {
  const Shape& x = g.value(n.inputs[static_cast<size_t>(ix)]).shape;
  const Shape& w = g.value(n.inputs[static_cast<size_t>(iw)]).shape;
  const ops::Geometry3 geo = ops::to_3d(ops::int_conv_geometry(n.attrs, x, w));
  const int64_t group = n.attrs.get_int("group", 1);
  spec.template_name = "conv_integer.c";
  spec.set("N", x[0]);
  spec.set("C", x[1]);
  spec.set("M", w[0]);
  spec.set("ICG", x[1] / group);
  spec.set("OCG", w[0] / group);
  set_window(spec, geo);
  spec.set("WSIZE", x[1] / group * geo.kernel[0] * geo.kernel[1] * geo.kernel[2]);
  set_integer_operands(g, n, spec, {ix, iw, zx, zw}, "m");
}

}  // namespace

TensorData pack_weights_4bit(const TensorData& w, int64_t m, int64_t k, int64_t block, const std::string& what) {
  const int32_t M = static_cast<int32_t>(m), K = static_cast<int32_t>(k), B = static_cast<int32_t>(block);
  TensorData out(DType::Int8, {mlip_kq4_bytes(M, K, B)});
  int32_t bad = 0;
  if (mlip_kq4_pack(w.data<int8_t>(), M, K, B, reinterpret_cast<uint8_t*>(out.data<int8_t>()), &bad) != 0) {
    const int32_t nb = (K + B - 1) / B;
    fail("{}: its weights are marked 4-bit but row {} block {} holds values no int4 times 2^0..2^{} gives", what,
         bad / nb, bad % nb, MLIP_KQ4_MAX_EXPONENT);
  }
  return out;
}

namespace {

// Output positions per product (fewer when the output has fewer): four rows
// are what the Helium, NEON and AVX2 variants take at once (the DSP one
// two), for a scratch of 4 rows.
constexpr int64_t kQ8Rows = 4;

// QLinearConv on mlip/kq8.h's convolution (templates/kernels/qlinear_conv_q8.c)
// when its weights are constant int8 with every zero point 0 (onnxruntime's
// per-channel symmetric weights, TFLite's) and its input and output zero
// points and bias are constants: the weight rows (padded to the CPU's row
// alignment unless the layer is fully connected), per output channel the
// sum's start with the bias, q and shift (mlip_kq8_start, ops::conv_requant),
// and the scratch its windows take (mlip_kq8_conv_scratch and a banded
// layer's mlip_kq8_conv_band; none for a fully-connected layer). False, with nothing set, otherwise.
bool prepare_q8(const Graph& g, const Node& n, KernelSpec& spec) {
  auto constant = [&](size_t i) -> const TensorData* {
    return n.has_input(i) ? g.value(n.inputs[i]).constant.get() : nullptr;
  };
  const Value& xv = g.value(n.inputs[0]);
  const Value& wv = g.value(n.inputs[3]);
  const Value& yv = g.value(n.outputs[0]);
  if (wv.dtype != DType::Int8 || !wv.is_constant() || numel(yv.shape) == 0) return false;
  if (ops::qlinear_conv_16x8(g, n)) return false;  // kq8.h's rows are 8-bit: the reference loops
  if ((n.has_input(2) && !constant(2)) || !constant(7) || (n.has_input(8) && !constant(8))) return false;
  if (n.has_input(5)) {
    const TensorData* zw = constant(5);
    if (!zw) return false;
    for (int64_t v : zw->as_int64())
      if (v != 0) return false;
  }
  const int32_t lo = ops::clamp_lo(n.attrs, yv.dtype), hi = ops::clamp_hi(n.attrs, yv.dtype);
  if (lo > hi) return false;

  const ops::Geometry3 geo = ops::to_3d(ops::int_conv_geometry(n.attrs, xv.shape, wv.shape));
  const int64_t group = n.attrs.get_int("group", 1), m = wv.shape[0];
  const int64_t taps = numel(wv.shape) / m;  // C / group * kernel taps
  mlip_kq8_conv_t d{};
  d.n = static_cast<int32_t>(xv.shape[0]);
  d.c = static_cast<int32_t>(xv.shape[1]);
  d.m = static_cast<int32_t>(m);
  d.groups = static_cast<int32_t>(group);
  for (int a = 0; a < ops::kMaxSpatial; ++a) {
    d.in[a] = static_cast<int32_t>(geo.in[a]);
    d.out[a] = static_cast<int32_t>(geo.out[a]);
    d.kernel[a] = static_cast<int32_t>(geo.kernel[a]);
    d.stride[a] = static_cast<int32_t>(geo.stride[a]);
    d.dilation[a] = static_cast<int32_t>(geo.dilation[a]);
    d.pad[a] = static_cast<int32_t>(geo.pad_begin[a]);
  }
  d.x_u8 = xv.dtype == DType::UInt8;  // mlip_kq8_conv_direct asks it
  // Channels-last tensors (c/layout.h), where the backend chose them: any
  // layer writes y so; a pointwise layer reads x so as one product, a
  // depthwise one of mlip_kq8_conv_dwc (x tied to y) all channels at once
  // (mlip_kq8_conv_reads_cl). Not the 4-bit kernel's.
  const bool four = n.attrs.get_int(ops::kWeightBitsAttr, 8) == 4;
  if (!four) {
    d.x_cl = spec.input_cl(0);
    d.y_cl = spec.output_cl(0);
    spec.layouts.output = true;
    if (mlip_kq8_conv_dwc(&d)) spec.layouts.tied = {0};
    else if (mlip_kq8_conv_pointwise(&d)) spec.layouts.free = {0};
  }
  const bool dwc = d.x_cl && mlip_kq8_conv_depthwise(&d);
  // A fully-connected or channels-last pointwise layer reads x itself
  // (rows of exactly C bytes), a channels-last depthwise one its band (rows
  // of exactly its taps); others gather windows into rows padded to the
  // CPU's alignment.
  d.k = static_cast<int32_t>(taps);
  const bool pw_cl = d.x_cl && mlip_kq8_conv_pointwise(&d);  // rows of exactly C bytes, read or copied as runs
  if (pw_cl) d.k = d.c;
  if (!dwc && !pw_cl && !mlip_kq8_conv_direct(&d)) {
    const int64_t align = spec.q8_row_align();
    d.k = static_cast<int32_t>((taps + align - 1) / align * align);
  }
  d.rows = static_cast<int32_t>(std::min<int64_t>(kQ8Rows, geo.out[0] * geo.out[1] * geo.out[2]));
  const int64_t k = d.k;
  const int32_t x_u8 = d.x_u8;
  const int32_t zx = n.has_input(2) ? static_cast<int32_t>(constant(2)->as_int64()[0]) : 0;
  const int32_t zy = static_cast<int32_t>(constant(7)->as_int64()[0]);

  std::shared_ptr<TensorData> wpk = std::make_shared<TensorData>(DType::Int8, Shape{m * k});
  const int8_t* w = wv.constant->data<int8_t>();
  int8_t* wp = wpk->data<int8_t>();
  // The weights' order, [ic][kh][kw], or for a banded layer (windows
  // gathered channels-last, mlip_kq8_conv_banded) [kh][kw][ic]; a
  // channels-last depthwise layer's tap-major, [kh][kw][oc].
  const bool banded = !four && mlip_kq8_conv_banded(&d);
  const int64_t icg = taps / (geo.kernel[0] * geo.kernel[1] * geo.kernel[2]), ktaps = taps / icg;
  for (int64_t oc = 0; oc < m; ++oc)
    for (int64_t t = 0; t < taps; ++t)
      wp[dwc ? t * m + oc : oc * k + (banded ? t % ktaps * icg + t / ktaps : t)] = w[oc * taps + t];
  const std::vector<ops::Requant> q = ops::conv_requant(*constant(1), *constant(4), *constant(6), ops::requant_mode(n.attrs));
  const std::vector<int64_t> bias = n.has_input(8) ? constant(8)->as_int64() : std::vector<int64_t>(m, 0);
  std::vector<std::string> ch;
  for (int64_t oc = 0; oc < m; ++oc) {
    // The bias joins the start where QLinearConv's saturating add cannot
    // saturate (mlip_kq8_start; every layer the suite has): else the loops.
    int32_t start = 0;
    if (mlip_kq8_start(dwc ? w + oc * taps : wp + oc * k, static_cast<int32_t>(k), x_u8, zx,
                       static_cast<int32_t>(bias[static_cast<size_t>(oc)]), &start) != 0)
      return false;
    const ops::Requant& r = q[q.size() > 1 ? static_cast<size_t>(oc) : 0];
    for (int64_t v : {int64_t{start}, int64_t{r.q}, int64_t{r.shift}}) ch.push_back(c_int(v));
  }

  // 4-bit weights (PTQ's mark, ops::kWeightBitsAttr): the rows as nibbles
  // and exponents (mlip/kq4.h), the same int8 values unpacked.
  if (four) {
    const int64_t block = n.attrs.get_int(ops::kWeightBlockAttr, k);  // a Conv's row: one block
    wpk = std::make_shared<TensorData>(pack_weights_4bit(*wpk, m, k, block, n.describe()));
    spec.set("BLOCK", block);
  }
  spec.template_name = four ? "qlinear_conv_q4.c" : "qlinear_conv_q8.c";
  spec.includes.push_back(four ? "mlip/kq4.h" : "mlip/kq8.h");
  spec.set("x_t", std::string(dtype_ctype(xv.dtype)));
  spec.set("y_t", std::string(dtype_ctype(yv.dtype)));
  spec.set("N", xv.shape[0]);
  spec.set("C", xv.shape[1]);
  spec.set("M", m);
  spec.set("G", group);
  set_window(spec, geo);
  spec.set("KROW", k);
  spec.set("ROWS", d.rows);
  spec.set("X_U8", x_u8);
  spec.set("ZX", zx);
  spec.set("ZY", zy);
  spec.set("LO", c_int(lo));
  spec.set("HI", c_int(hi));
  spec.set("X_CL", d.x_cl);
  spec.set("Y_CL", d.y_cl);
  spec.set("ch_list", fmt::format("{}", fmt::join(ch, ", ")));
  spec.args = {0};
  spec.packed.push_back(wpk);
  spec.scratch_bytes =
      static_cast<size_t>(four ? mlip_kq4_conv_scratch(&d) : mlip_kq8_conv_scratch(&d) + mlip_kq8_conv_band(&d));
  spec.set_flag("has_scratch", spec.scratch_bytes > 0);
  return true;
}

}  // namespace

void set_integer_operands(const Graph& g, const Node& n, KernelSpec& spec, const std::array<int, 4>& in,
                          const char* channel) {
  const auto [ix, iw, zx, zw] = in;
  spec.set("x_t", std::string(dtype_ctype(g.value(n.inputs[static_cast<size_t>(ix)]).dtype)));
  spec.set("w_t", std::string(dtype_ctype(g.value(n.inputs[static_cast<size_t>(iw)]).dtype)));
  spec.args = {ix, iw};
  const bool has_zx = n.has_input(static_cast<size_t>(zx)), has_zw = n.has_input(static_cast<size_t>(zw));
  spec.set_flag("has_zx", has_zx);
  spec.set_flag("has_zw", has_zw);
  if (has_zx) spec.args.push_back(zx);
  if (has_zw) {
    spec.args.push_back(zw);
    spec.set("zw_index", numel(g.value(n.inputs[static_cast<size_t>(zw)]).shape) > 1 ? channel : "0");
  }
}

void prepare_ConvInteger(const Graph& g, const Node& n, KernelSpec& spec) {
  expect_dtype(g, n, 0, {DType::Int8, DType::UInt8});
  expect_dtype(g, n, 1, {DType::Int8, DType::UInt8});
  set_common(g, n, spec, 0, 1, 2, 3);
  spec.set_flag("qlinear", false);
  spec.set_flag("wide", false);
  spec.set("acc_t", "int32_t");
  spec.set_flag("has_bias", false);
  spec.set("y_t", "int32_t");
}

void set_qlinear_conv_requant(const Graph& g, const Node& n, KernelSpec& spec, const char* channel) {
  auto constant = [&](int i) -> const TensorData& {
    const TensorData* t = g.value(n.inputs[static_cast<size_t>(i)]).constant.get();
    if (!t) fail("internal: {} scale #{} is not a constant", n.op, i);
    return *t;
  };
  const std::vector<ops::Requant> q = ops::conv_requant(constant(1), constant(4), constant(6), ops::requant_mode(n.attrs));
  std::vector<std::string> qs, shifts;
  for (const ops::Requant& r : q) {
    qs.push_back(c_int(r.q));
    shifts.push_back(c_int(r.shift));
  }
  const DType out = g.value(n.outputs[0]).dtype;
  spec.set("y_t", std::string(dtype_ctype(out)));
  spec.set("NQ", static_cast<int64_t>(q.size()));
  spec.set("q_list", fmt::format("{}", fmt::join(qs, ", ")));
  spec.set("shift_list", fmt::format("{}", fmt::join(shifts, ", ")));
  spec.set("q_index", q.size() > 1 ? channel : "0");
  spec.set("LO", c_int(ops::clamp_lo(n.attrs, out)));
  spec.set("HI", c_int(ops::clamp_hi(n.attrs, out)));
  spec.args.push_back(7);
  const bool has_bias = n.has_input(8);
  spec.set_flag("has_bias", has_bias);
  if (has_bias) spec.args.push_back(8);
  // 16x8 (int16 x or y): an int64 sum and bias, mlip_requantize64.
  const bool wide = ops::qlinear_conv_16x8(g, n);
  spec.set_flag("wide", wide);
  spec.set("acc_t", wide ? "int64_t" : "int32_t");
  spec.set("b_t", has_bias ? std::string(dtype_ctype(g.value(n.inputs[8]).dtype)) : "int32_t");
  spec.set("requant_fn", wide ? "mlip_requantize64" : "mlip_requantize");
  spec.includes.push_back("mlip/requant.h");
}

void prepare_QLinearConv(const Graph& g, const Node& n, KernelSpec& spec) {
  expect_dtype(g, n, 0, {DType::Int8, DType::UInt8, DType::Int16});
  expect_dtype(g, n, 3, {DType::Int8, DType::UInt8});
  if (prepare_q8(g, n, spec)) return;
  set_common(g, n, spec, 0, 3, 2, 5);
  spec.set_flag("qlinear", true);
  set_qlinear_conv_requant(g, n, spec, "m");
}

}  // namespace mlipc::c::kernels
