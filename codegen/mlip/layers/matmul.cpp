// MATMUL: the MatMul of transformers, on row-major tensors: A [..., M, K]
// computed, B [..., K, N] constant (a Linear on 3-D tensors: weights stored
// [N][K] in WEIGHTS and pinnable) or computed (attention's Q.K^T and .V:
// one B per product, or one for all), batched over the leading dimensions,
// with a bias per column (the Add after it, fused by the lowering when it
// is the product's only reader) and a fused activation. MatMul belongs to
// the FC kind (layers/fc.cpp), which takes the 2-D product with constant
// weights as before and hands the other forms here. Split across tiles by
// rows of the products (a reduction is never split: the sums keep the
// spec's order, so tiles and passes give the same bits); each tile's share
// in chunks of columns and rows that fit OCM.
// int8 (docs/mlip-spec.md 4a): QLinearMatMul of two computed operands
// (attention's Q.K^T and .V in a quantized transformer), per-tensor scales
// and zero points: the int32 sum of both operands less their zero points,
// one requantization record per column (FC's), the clamp of the output
// type; the arithmetic of the CPU's QLinearMatMul kernel, so its bits.
// 16x8 (int16 A and output, zero points 0): B int16 (computed: q k^T, s v)
// or int8 constant weights of any batch (stored [batch][N][K] in WEIGHTS),
// an int64 sum, 16-byte records (per-tensor or per-column scales), the
// CPU's 16x8 QLinearMatMul (an int64 sum, mlip_requantize64), so its bits.
#include <algorithm>
#include <functional>

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include "ops/matmul_integer.h"
#include "ops/quant.h"
#include "mlip/layer_kind.h"
#include "mlip/layers/rules.h"
#include "mlip/lower.h"
#include "mlip/plan.h"
#include "support/error.h"

namespace mlipc::mlip::layers {

namespace matmul_layer {

// A MATMUL layer's own parameters (RLayer::params).
struct MatmulParams {
  int64_t batch = 1, m = 1, k = 1, n = 1;
  bool b_shared = true;  // one B for every product
  bool trans_b = false;  // B stored [N][K]
  bool b_const = false;  // B in WEIGHTS (RLayer's weights), else input 1
  bool b_int16 = false;  // 16x8: B int16 (computed), else int8
  // 8-bit (RLayer::q8()): the zero points and the output clamp
  int32_t a_zp = 0, b_zp = 0, y_zp = 0, lo = 0, hi = 0;
};

// The OCM of a pass: rc rows of A, B for nc columns (unless pinned), their
// fp32 bias, the output. 8-bit: one-byte elements, a requantization record
// per column.
// 16x8 (wide): two-byte A and output, B two bytes (b16) or one, 16-byte
// records.
struct MatmulPass {
  int64_t k;
  bool bias;
  bool q8 = false;
  bool wide = false, b16 = false;
  int64_t eb() const { return q8 && !wide ? 1 : kF16Bytes; }
  int64_t beb() const { return wide ? (b16 ? 2 : 1) : eb(); }
  int64_t bb() const {
    if (wide) return static_cast<int64_t>(MLIP_REQUANT16_RECORD_BYTES);
    return q8 ? static_cast<int64_t>(MLIP_REQUANT_RECORD_BYTES) : kF32Bytes;
  }
  uint64_t bytes(int64_t rc, int64_t nc, bool pinned) const {
    return ocm_round(rc * k * eb()) + (pinned ? 0 : ocm_round(k * nc * beb()) + (bias ? ocm_round(nc * bb()) : 0)) +
           ocm_round(rc * nc * eb());
  }
};

int64_t product(const Shape& s, size_t from, size_t to) {
  int64_t v = 1;
  for (size_t d = from; d < to; ++d) v *= s[d];
  return v;
}

// The operand shapes both forms take: 2-D or more, A's batch the output's,
// B's batch one or A's.
std::string operands_reason(const Value& a, const Value& b, const Value& y) {
  if (a.shape.size() < 2 || b.shape.size() < 2) return "a 1-D operand";
  const size_t ra = a.shape.size(), rb = b.shape.size();
  const int64_t batch = product(y.shape, 0, y.shape.size() - 2);
  if (product(a.shape, 0, ra - 2) != batch) return "a first operand that broadcasts";
  const int64_t bb = product(b.shape, 0, rb - 2);
  if (bb != 1 && (rb != ra || !std::equal(a.shape.begin(), a.shape.end() - 2, b.shape.begin())))
    return "a second operand whose batch dimensions differ from the first's";
  return "";
}

// What the integer forms check after their types: the operands row-major
// (the fp16 shape rules; with constants_too 0 a constant operand, stored as
// the layer's own weights, is not), their shapes (operands_reason), at most
// MLIP_INT8_MAX_TAPS products per output (`form` names the bound), and one
// output's pass (pass_for(k)) within the OCM's work bytes.
std::string integer_shape_reason(const Value& a, const Value& b, const Value& y, bool constants_too,
                                 const char* form, const std::function<MatmulPass(int64_t)>& pass_for,
                                 const SupportLimits& lim) {
  for (const Value* v : {&a, &b, &y}) {
    if (v->is_constant() && !constants_too) continue;
    Value as_float = *v;
    as_float.dtype = DType::Float32;
    if (std::string r = rowmajor_reason(as_float); !r.empty()) return r;
  }
  if (std::string r = operands_reason(a, b, y); !r.empty()) return r;
  const int64_t k = a.shape.back();
  if (k > static_cast<int64_t>(MLIP_INT8_MAX_TAPS))
    return fmt::format("{} products per output, above the {} bound of {}", k, form, MLIP_INT8_MAX_TAPS);
  if (pass_for(k).bytes(1, 1, false) > lim.work_bytes)
    return fmt::format("one output needs more than the {} bytes of OCM", lim.work_bytes);
  return "";
}

}  // namespace matmul_layer

std::string matmul_reason(const Graph& g, const Node& n, const SupportLimits& lim) {
  if (lim.int8) return "int8 MatMul of this form has no MLIP layer yet";
  const Value& a = g.value(n.inputs[0]);
  const Value& b = g.value(n.inputs[1]);
  const Value& y = g.value(n.outputs[0]);
  for (const Value* v : {&a, &b, &y})
    if (std::string r = rowmajor_reason(*v); !r.empty()) return r;
  if (a.is_constant()) return "a constant first operand";
  if (std::string r = matmul_layer::operands_reason(a, b, y); !r.empty()) return r;
  const int64_t k = a.shape.back();
  if (matmul_layer::MatmulPass{k, true}.bytes(1, 1, false) > lim.work_bytes)
    return fmt::format("one output needs more than the {} bytes of OCM", lim.work_bytes);
  return "";
}

bool matmul_q16_weights(const Graph& g, const Node& n) {
  const Value& a = g.value(n.inputs[0]);
  const Value& b = g.value(n.inputs[3]);
  return a.dtype == DType::Int16 && b.is_constant() && !(a.shape.size() == 2 && b.shape.size() == 2);
}

namespace matmul_layer {

// The 16x8 form (QLinearMatMul with int16 A): "" or why it stays on the CPU.
std::string q16_reason(const Graph& g, const Node& n, const SupportLimits& lim) {
  const Value& a = g.value(n.inputs[0]);
  const Value& b = g.value(n.inputs[3]);
  const Value& y = g.value(n.outputs[0]);
  if (y.dtype != DType::Int16) return "a 16x8 matrix product with an int8 output (the MLIP's writes int16)";
  if (b.is_constant() ? b.dtype != DType::Int8 : b.dtype != DType::Int16)
    return "a 16x8 matrix product of int16 by a computed int8 operand (the MLIP's takes int16 or constant int8)";
  for (size_t i : {2, 5, 7})
    if (n.has_input(i))
      for (int64_t z : g.value(n.inputs[i]).constant->as_int64())
        if (z != 0) return fmt::format("input #{} (a zero point) is not 0: 16x8 is symmetric", i);
  const Shape& bss = g.value(n.inputs[4]).shape;  // QLinearMatMul's per-column forms: [N], [1, N]
  if (numel(bss) != 1 && (numel(bss) != b.shape.back() || bss.size() > 2))
    return "input #4 (B's scale) is neither one value nor one per column";
  return integer_shape_reason(a, b, y, false, "16x8",
                              [&](int64_t k) { return MatmulPass{k, true, true, true, !b.is_constant()}; }, lim);
}

}  // namespace matmul_layer

std::string matmul_q8_reason(const Graph& g, const Node& n, const SupportLimits& lim) {
  // QLinearMatMul: a, a_scale, a_zp, b, b_scale, b_zp, y_scale, y_zp
  if (!lim.int8) return "int8 matrix products need -quantize=int8";
  if (g.value(n.inputs[0]).dtype == DType::Int16) {
    for (size_t i : {1, 4, 6})
      if (!is_const(g, n, i)) return fmt::format("input #{} (a scale) is not constant", i);
    if (numel(g.value(n.inputs[1]).shape) != 1 || numel(g.value(n.inputs[6]).shape) != 1)
      return "A's or the output's scale is not one value";
    for (size_t i : {2, 5, 7})
      if (n.has_input(i) && !is_const(g, n, i)) return fmt::format("input #{} (a zero point) is not constant", i);
    return matmul_layer::q16_reason(g, n, lim);
  }
  for (size_t i : {1, 4, 6})
    if (!is_const(g, n, i) || numel(g.value(n.inputs[i]).shape) != 1)
      return fmt::format("input #{} (a scale) is not one constant: only per-tensor scales", i);
  for (size_t i : {2, 5, 7})
    if (n.has_input(i) && (!is_const(g, n, i) || numel(g.value(n.inputs[i]).shape) != 1))
      return fmt::format("input #{} (a zero point) is not one constant: only per-tensor zero points", i);
  const Value& a = g.value(n.inputs[0]);
  const Value& b = g.value(n.inputs[3]);
  const Value& y = g.value(n.outputs[0]);
  if (a.is_constant()) return "a constant first operand";
  if (!is_q8_type(a.dtype) || b.dtype != a.dtype || y.dtype != a.dtype)
    return "int8 matrix products of one 8-bit type (A, B and the output) only";
  return matmul_layer::integer_shape_reason(
      a, b, y, true, "int8", [](int64_t k) { return matmul_layer::MatmulPass{k, true, true}; }, lim);
}

void lower_matmul_q8(LowerContext& ctx, const Node& n) {
  const Graph& g = ctx.graph();
  const Value& av = g.value(n.inputs[0]);
  const Value& bv = g.value(n.inputs[3]);
  const Value& yv = g.value(n.outputs[0]);
  const Shape& ys = yv.shape;
  matmul_layer::MatmulParams mp;
  mp.m = av.shape[av.shape.size() - 2];
  mp.k = av.shape.back();
  mp.n = bv.shape.back();
  mp.batch = matmul_layer::product(ys, 0, ys.size() - 2);
  mp.b_shared = matmul_layer::product(bv.shape, 0, bv.shape.size() - 2) == 1;
  auto zp = [&](size_t i) { return n.has_input(i) ? static_cast<int32_t>(ctx.any_constant(n, i).as_int64()[0]) : 0; };
  mp.a_zp = zp(2);
  mp.b_zp = zp(5);
  mp.y_zp = zp(7);
  mp.lo = static_cast<int32_t>(ops::quant_min(yv.dtype));
  mp.hi = static_cast<int32_t>(ops::quant_max(yv.dtype));
  mp.b_int16 = bv.dtype == DType::Int16;
  std::vector<int> inputs = {ctx.rowmajor_of(n.inputs[0])};
  std::vector<uint8_t> wbytes;  // 16x8 weights: int8 [batch][N][K], a chunk of columns contiguous
  std::vector<float> shown;
  if (bv.is_constant()) {
    const std::vector<int64_t> src = ctx.any_constant(n, 3).as_int64();
    const int64_t nb = matmul_layer::product(bv.shape, 0, bv.shape.size() - 2);
    wbytes.resize(src.size());
    shown.resize(src.size());
    for (int64_t t = 0; t < nb; ++t)
      for (int64_t j = 0; j < mp.n; ++j)
        for (int64_t kk = 0; kk < mp.k; ++kk) {
          const int64_t v = src[static_cast<size_t>((t * mp.k + kk) * mp.n + j)];
          const size_t dst = static_cast<size_t>((t * mp.n + j) * mp.k + kk);
          wbytes[dst] = static_cast<uint8_t>(v & 0xff);
          shown[dst] = static_cast<float>(v);
        }
    mp.trans_b = true;
    mp.b_const = true;
  } else {
    inputs.push_back(ctx.rowmajor_of(n.inputs[3]));
  }
  RLayer& l = ctx.new_layer(MLIP_LAYER_MATMUL, n);
  l.inputs = inputs;
  l.dtype = mlip_dtype(yv.dtype);  // before the records: a 16x8 layer's are 16 bytes
  if (mp.b_const) {
    l.weight_offset = ctx.add_bytes(wbytes);
    l.weight_bytes = static_cast<int64_t>(wbytes.size());
    l.weight_name = bv.name;
    ctx.add_const({bv.name, {static_cast<int64_t>(wbytes.size()) / (mp.n * mp.k), mp.n, mp.k}, shown});
  }
  // One requantization per column (a per-column B scale, 16x8's weights) or
  // one for all.
  const ops::MatMulRequant q =
      ops::matmul_requant(ctx.any_constant(n, 1), ctx.any_constant(n, 4), ctx.any_constant(n, 6), 1,
                          numel(g.value(n.inputs[4]).shape) > 1 ? mp.n : 1,
                          ops::requant_mode(n.attrs));
  add_requant_records(ctx, l, q.r, {}, mp.n, mp.n, n.name + ":requant");
  l.params = mp;
  l.macs = static_cast<uint64_t>(mp.batch * mp.m * mp.k * mp.n);
  l.output = ctx.output_tensor(n, 0, true);
}

void lower_matmul(LowerContext& ctx, const Node& n) {
  if (n.op == "QLinearMatMul") return lower_matmul_q8(ctx, n);
  const Graph& g = ctx.graph();
  const Value& av = g.value(n.inputs[0]);
  const Value& bv = g.value(n.inputs[1]);
  const Shape& ys = g.value(n.outputs[0]).shape;
  matmul_layer::MatmulParams mp;
  mp.m = av.shape[av.shape.size() - 2];
  mp.k = av.shape.back();
  mp.n = bv.shape.back();
  mp.batch = matmul_layer::product(ys, 0, ys.size() - 2);
  mp.b_shared = matmul_layer::product(bv.shape, 0, bv.shape.size() - 2) == 1;
  std::vector<int> inputs = {ctx.rowmajor_of(n.inputs[0])};
  int64_t w_off = -1;
  std::vector<float> w;
  if (bv.is_constant()) {  // weights: stored [N][K], so a chunk of columns is contiguous
    const TensorData& b = ctx.constant(n, 1);
    const float* src = b.data<float>();
    w.resize(static_cast<size_t>(mp.n * mp.k));
    for (int64_t j = 0; j < mp.n; ++j)
      for (int64_t kk = 0; kk < mp.k; ++kk) w[static_cast<size_t>(j * mp.k + kk)] = src[kk * mp.n + j];
    w_off = ctx.add_f16(w);
    mp.trans_b = true;
    mp.b_const = true;
    ctx.add_const({bv.name, {mp.n, mp.k}, w});
  } else {
    inputs.push_back(ctx.rowmajor_of(n.inputs[1]));
  }
  RLayer& l = ctx.new_layer(MLIP_LAYER_MATMUL, n);
  l.inputs = inputs;
  if (w_off >= 0) {
    l.weight_offset = w_off;
    l.weight_bytes = mp.n * mp.k * kF16Bytes;
    l.weight_name = bv.name;
  }
  l.params = mp;
  l.macs = static_cast<uint64_t>(mp.batch * mp.m * mp.k * mp.n);
  l.output = ctx.output_tensor(n, 0, true);
}

bool fuse_matmul_bias(LowerContext& ctx, const Node& add) {
  const Graph& g = ctx.graph();
  if (add.op != "Add" || add.inputs.size() != 2 || add.attrs.has("legacy_axis")) return false;
  for (int k = 0; k < 2; ++k) {
    const ValueId x = add.inputs[static_cast<size_t>(k)], c = add.inputs[static_cast<size_t>(1 - k)];
    const Value& cv = g.value(c);
    if (!cv.is_constant() || cv.dtype != DType::Float32 || g.is_graph_output(x) || ctx.consumers()[x].size() != 1) continue;
    if (g.value(add.outputs[0]).shape != g.value(x).shape) continue;
    const int t = ctx.tensor_as_is(x);
    RLayer* mm = nullptr;
    for (RLayer& l : ctx.region().layers)
      if (l.output == t && l.kind == MLIP_LAYER_MATMUL) mm = &l;
    if (!mm || mm->has_bias() || mm->act.kind != MLIP_ACT_NONE) continue;
    const int64_t n = params_of<matmul_layer::MatmulParams>(*mm).n;
    // one value per column: [N], [1, .., 1, N]
    if (cv.constant->numel() != n || cv.shape.empty() || cv.shape.back() != n) continue;
    std::vector<float> bias(static_cast<size_t>(n));
    for (int64_t j = 0; j < n; ++j) bias[static_cast<size_t>(j)] = static_cast<float>(cv.constant->at(j));
    add_f32_bias(ctx, *mm, bias, cv.name);
    mm->origins.insert(mm->origins.end(), add.origins.begin(), add.origins.end());
    ctx.alias_output(add, t, g.value(add.outputs[0]).shape, true);
    return true;
  }
  return false;
}

namespace matmul_layer {

void plan(LayerPlanner& p) {
  const RLayer& l = p.layer();
  const MatmulParams& mp = params_of<MatmulParams>(l);
  const RTensor& a = p.in(0);
  const RTensor& y = p.out();
  const int64_t K = mp.k, N = mp.n, M = mp.m;
  const bool q8 = l.q8();
  const MatmulPass pass{K, l.has_bias(), q8, l.dtype == MLIP_DT_INT16, mp.b_int16};
  const int64_t eb = pass.eb(), beb = pass.beb(), rb = pass.bb();
  // Rows of every product in order; with one B they are one matrix.
  const int64_t items = mp.b_shared ? 1 : mp.batch, rows = mp.b_shared ? mp.batch * M : M;
  const auto parts = split_range(items * rows, p.num_tiles());
  p.set_split(Split::Rows, parts);
  // One constant matrix per product (16x8's batch of weights): a command
  // reads product t's at t * N * K bytes into the pinned slice, an OCM
  // operand, so that must be aligned.
  if (mp.b_const && !mp.b_shared && p.pinned(0) && (N * K * beb) % MLIP_OCM_ALIGN != 0)
    return p.refuse_pinned("pinned weights of a MATMUL with one matrix per product need each matrix aligned in OCM");
  for (size_t t = 0; t < parts.size(); ++t) {
    const int tile = static_cast<int>(t);
    const bool pin = mp.b_const && p.pinned(tile);
    const int64_t share = parts[t].second - parts[t].first;
    const int64_t nc = largest(N, [&](int64_t v) { return pass.bytes(1, v, pin) <= p.work_limit(); });
    if (nc == 0 || (pin && nc < N)) {
      if (pin) return p.refuse_pinned("pinned weights of a MATMUL need every column in one pass");
      fail("layer '{}' does not fit OCM", l.name);
    }
    const int64_t rc = largest(std::min(share, rows), [&](int64_t v) { return pass.bytes(v, nc, pin) <= p.work_limit(); });
    Ocm ocm(p.work_limit());
    const uint32_t a_off = ocm.take(rc * K * eb);
    const uint32_t b_off = pin ? 0 : ocm.take(K * nc * beb);
    const uint32_t bias_off = l.has_bias() && !pin ? ocm.take(nc * rb) : MLIP_NO_OFFSET;
    const uint32_t o_off = ocm.take(rc * nc * eb);
    p.note_ocm(tile, ocm);
    for (int64_t g0 = parts[t].first; g0 < parts[t].second;) {
      const int64_t item = g0 / rows, r_end = std::min(parts[t].second, (item + 1) * rows);
      for (int64_t j0 = 0; j0 < N; j0 += nc) {
        const int64_t jn = std::min(nc, N - j0);
        // B's columns j0 .. j0 + jn of this product, and their bias
        uint32_t b_at = b_off, bias_at = bias_off;
        // constant weights: this product's matrix, stored [N][K]
        const int64_t w_at = ((mp.b_shared ? 0 : item * N * K) + j0 * K) * beb;
        if (pin) {
          b_at = u32(p.pinned_weights(tile) + w_at);
          if (l.has_bias()) bias_at = u32(p.pinned_bias(tile) + j0 * rb);
        } else {
          if (mp.b_const) {
            p.dma_in(tile, p.weights_binding(), l.weight_offset + w_at, b_off, jn * K * beb);
          } else {
            const RTensor& b = p.in(1);
            const int64_t base = p.ddr_base(b) + (mp.b_shared ? 0 : item * K * N) * beb;
            if (jn == N) p.dma_in(tile, p.binding(b), base, b_off, K * N * beb);
            else p.dma_in(tile, p.binding(b), base + j0 * beb, b_off, K, jn * beb, N * beb, jn * beb);
          }
          if (l.has_bias()) p.dma_in(tile, p.weights_binding(), l.bias_offset + j0 * rb, bias_off, jn * rb);
        }
        for (int64_t r0 = g0; r0 < r_end; r0 += rc) {
          const int64_t rn = std::min(rc, r_end - r0);  // rows r0 .. of the flattened products
          p.count_pass();
          p.dma_in(tile, p.binding(a), p.ddr_base(a) + r0 * K * eb, a_off, rn * K * eb);
          mlip_matmul_args c{};
          c.a = a_off;
          c.b = b_at;
          c.bias = bias_at;
          c.out = o_off;
          c.batch = 1;
          c.m = u32(rn);
          c.k = u32(K);
          c.n = u32(jn);
          c.b_shared = 1;
          c.trans_b = mp.trans_b ? 1 : 0;
          p.fused(c);
          if (q8) {
            c.clamp_lo = mp.lo;
            c.clamp_hi = mp.hi;
            c.a_zp = mp.a_zp;
            c.b_zp = mp.b_zp;
            c.y_zp = mp.y_zp;
            c.requant = l.requant;
            c.b_int16 = mp.b_int16 ? 1 : 0;
          } else {
            c.alpha = 1.0f;
          }
          p.emit(MLIP_OP_MATMUL, tile, c, pin);
          if (jn == N) p.dma_out(tile, p.binding(y), p.ddr_base(y) + r0 * N * eb, o_off, rn * N * eb);
          else
            p.dma_out(tile, p.binding(y), p.ddr_base(y) + (r0 * N + j0) * eb, o_off, rn, jn * eb,
                      N * eb, jn * eb);
        }
      }
      g0 = r_end;
    }
  }
}

void json(const RLayer& l, nlohmann::json& a) {
  const MatmulParams& mp = params_of<MatmulParams>(l);
  a["batch"] = mp.batch;
  a["shape"] = {mp.m, mp.k, mp.n};
  a["b_shared"] = mp.b_shared;
  if (l.has_weights()) json_weights(l, "NK", a);
}

}  // namespace matmul_layer

extern const LayerKind kMatmul = {MLIP_LAYER_MATMUL, "matmul", "MatMul", "mrvl.matmul", {},
                                  /*fuses_activation=*/true, nullptr, nullptr, matmul_layer::plan, nullptr,
                                  matmul_layer::json};

}  // namespace mlipc::mlip::layers
