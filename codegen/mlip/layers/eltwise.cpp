// ELTWISE: Sub, Mul, Max, Min and PRelu of a tensor with a tensor of the
// same shape, with one value per channel ([N or 1, C, 1, 1], [C, 1, 1],
// [1, C] ...) or with a scalar, the second operand computed or constant;
// Add when it broadcasts or adds a constant (add.cpp asks this rule then).
// With its fused activation. Two products are activations instead
// (mlip/activation.h): x * Sigmoid(x) and x * HardSigmoid(x), and PRelu
// with a single slope is LEAKYRELU. Split across tiles by elements of each
// image (64 at a time), each tile's share in chunks that fit OCM; a cycled
// operand is loaded once per tile and image. int8 (docs/mlip-spec.md 4a):
// QLinearMul (and the QDQ Mul passes/fold_qdq folds into it), the product
// of the operands minus their zero points requantized as the CPU kernel
// does, with the same operand shapes.
#include <algorithm>
#include <cmath>
#include <cstring>
#include <optional>

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include "mlip/kmath.h"
#include "ops/quant.h"
#include "mlip/activation.h"
#include "mlip/layer_kind.h"
#include "mlip/layers/rules.h"
#include "mlip/lower.h"
#include "mlip/plan.h"
#include "support/error.h"

namespace mlipc::mlip::layers {

namespace eltwise_layer {

// An ELTWISE layer's own parameters (RLayer::params): its function
// (MLIP_ELT_*), its constant second operand (in WEIGHTS, always streamed:
// one value per channel at most) of operand_len values when that operand
// is not a tensor, and the 8-bit form's zero points, requantization and
// output clamp.
struct EltwiseParams {
  uint32_t func = 0;
  int64_t operand_offset = -1, operand_len = 0;
  int32_t a_zp = 0, b_zp = 0, y_zp = 0, q = 0, shift = 0, lo = 0, hi = 0;
  // Row-major operands (the transformers' broadcasting): b cycles over the
  // whole tensor, each of its values for `rep` consecutive elements.
  bool rowmajor = false;
  int64_t rep = 1;
  // A guard folded into a Div (Div(a, Add(b, eps)), Div(a, Sqrt(Add(b,
  // eps)))): added to b in fp32, then its square root.
  float b_add = 0.0f;
  bool b_sqrt = false;
};

// Whether binary node n has a constant float scalar operand: its value and
// the other input, `x`.
bool scalar_operand(const Graph& g, const Node& n, ValueId& x, float& value) {
  if (n.inputs.size() != 2 || n.attrs.has("legacy_axis")) return false;
  for (int k = 0; k < 2; ++k) {
    const Value& c = g.value(n.inputs[static_cast<size_t>(k)]);
    if (c.is_constant() && c.dtype == DType::Float32 && c.constant->numel() == 1) {
      x = n.inputs[static_cast<size_t>(1 - k)];
      value = static_cast<float>(c.constant->at(0));
      return !g.value(x).is_constant() && g.value(x).shape == g.value(n.outputs[0]).shape;
    }
  }
  return false;
}

// How a node's two operands map onto the command: a (input `full`) has the
// output's shape; b (input `other`) is either the same shape (equal) or
// cycled with `len` values per image (one per channel, or one).
struct Operands {
  int full = -1, other = -1;
  bool equal = false;
  bool other_const = false;
  int64_t len = 0;
  std::string why;  // "" when the node fits
};

// The node's two operands: inputs 0 and 1, or QLinearMul's A and B (0, 3).
std::vector<ValueId> operands_of(const Node& n) {
  if (n.op == "QLinearMul") return {n.inputs[0], n.inputs[3]};
  return n.inputs;
}

Operands classify(const Graph& g, const Node& n) {
  Operands o;
  const Shape& s = g.value(n.outputs[0]).shape;
  if (s.size() != 4 && s.size() != 2) {
    o.why = "only 2-D and 4-D tensors";
    return o;
  }
  const std::vector<ValueId> ops = operands_of(n);
  if (ops.size() != 2) {
    o.why = "only two operands";
    return o;
  }
  const DType t = g.value(n.outputs[0]).dtype;
  for (ValueId v : ops)
    if (n.op == "QLinearMul" ? g.value(v).dtype != t : g.value(v).dtype != DType::Float32) {
      o.why = n.op == "QLinearMul" ? "operands of another type than the output" : "only float32 operands";
      return o;
    }
  auto full = [&](int i) {
    const Value& v = g.value(ops[static_cast<size_t>(i)]);
    return !v.is_constant() && v.shape == s;
  };
  const bool f0 = full(0), f1 = full(1);
  if (!f0 && !f1) {
    o.why = "neither operand is a computed tensor of the output's shape";
    return o;
  }
  o.full = f0 ? 0 : 1;
  o.other = 1 - o.full;
  const Value& b = g.value(ops[static_cast<size_t>(o.other)]);
  o.other_const = b.is_constant();
  if (f0 && f1) {
    o.equal = true;
    o.len = numel(s) / s[0];
    return o;
  }
  // b padded to the output's rank with leading ones.
  Shape p(s.size() - std::min(s.size(), b.shape.size()), 1);
  p.insert(p.end(), b.shape.begin(), b.shape.end());
  const size_t ch = 1;  // NCHW and [N, C] both have channels at 1
  bool ok = p.size() == s.size() && (p[0] == 1 || p[0] == s[0]) && (p[ch] == 1 || p[ch] == s[ch]);
  for (size_t d = 2; d < p.size(); ++d) ok = ok && p[d] == 1;
  if (!ok) {
    o.why = "only broadcasting of one value per channel or a scalar";
    return o;
  }
  if (o.other_const && p[0] != 1) {
    o.why = "a constant operand that differs between images";
    return o;
  }
  o.len = p[ch];
  return o;
}

// Row-major broadcasting (any rank up to kMaxRank): b, padded with leading
// ones, equals the output on one run of consecutive dimensions [j0, j1) and
// is 1 on the others: element e of a reads b[(e / rep) % len], len the
// run's elements and rep those of the dimensions after it. A scalar and
// equal shapes are the runs of none and of all dimensions.
struct RowOperands {
  int full = -1, other = -1;
  bool other_const = false;
  int64_t len = 1, rep = 1;
  std::string why;
};

RowOperands classify_rows(const Graph& g, const Node& n) {
  RowOperands o;
  const Value& y = g.value(n.outputs[0]);
  // QLinearMul: its A and B (inputs 0 and 3), 8-bit of the output's type
  const bool q8 = n.op == "QLinearMul";
  const std::vector<ValueId> ops = operands_of(n);
  if (ops.size() != 2 || (q8 && !is_q8_type(y.dtype))) {
    o.why = q8 ? "only 8-bit operands" : "only float32 operands of two";
    return o;
  }
  Value shape_of = y;  // the row-major kinds' shape rules (rowmajor_reason asks for float32)
  shape_of.dtype = DType::Float32;
  if (std::string r = rowmajor_reason(shape_of); !r.empty()) {
    o.why = r;
    return o;
  }
  const Shape& s = y.shape;
  for (ValueId v : ops)
    if (g.value(v).dtype != (q8 ? y.dtype : DType::Float32)) {
      o.why = q8 ? "operands of another type than the output" : "only float32 operands";
      return o;
    }
  auto full = [&](int i) {
    const Value& v = g.value(ops[static_cast<size_t>(i)]);
    return !v.is_constant() && v.shape == s;
  };
  if (!full(0) && !full(1)) {
    o.why = "neither operand is a computed tensor of the output's shape";
    return o;
  }
  o.full = full(0) ? 0 : 1;
  o.other = 1 - o.full;
  const Value& b = g.value(ops[static_cast<size_t>(o.other)]);
  o.other_const = b.is_constant();
  if (b.shape.size() > s.size()) {
    o.why = "an operand of more dimensions than the output";
    return o;
  }
  Shape p(s.size() - b.shape.size(), 1);
  p.insert(p.end(), b.shape.begin(), b.shape.end());
  size_t j0 = 0, j1 = 0;
  while (j0 < p.size() && p[j0] == 1) ++j0;
  j1 = j0;
  while (j1 < p.size() && p[j1] != 1) ++j1;
  for (size_t d = 0; d < p.size(); ++d)
    if ((d >= j0 && d < j1 && p[d] != s[d]) || ((d < j0 || d >= j1) && p[d] != 1 && p[d] != s[d])) {
      o.why = "an operand that broadcasts on dimensions that are not one run";
      return o;
    }
  for (size_t d = j1; d < p.size(); ++d)
    if (p[d] != 1) {
      o.why = "an operand that broadcasts on dimensions that are not one run";
      return o;
    }
  for (size_t d = j0; d < j1; ++d) o.len *= s[d];
  for (size_t d = j1; d < s.size(); ++d) o.rep *= s[d];
  return o;
}

uint32_t func_of(const Node& n, const Operands& o) {
  if (n.op == "Add") return MLIP_ELT_ADD;
  if (n.op == "Sub") return o.full == 0 ? MLIP_ELT_SUB : MLIP_ELT_RSUB;
  if (n.op == "Mul" || n.op == "QLinearMul") return MLIP_ELT_MUL;
  if (n.op == "Max") return MLIP_ELT_MAX;
  if (n.op == "Min") return MLIP_ELT_MIN;
  if (n.op == "Div") return MLIP_ELT_DIV;
  return MLIP_ELT_PRELU;
}

const char* func_name(uint32_t f) {
  switch (f) {
    case MLIP_ELT_ADD: return "add";
    case MLIP_ELT_SUB: return "sub";
    case MLIP_ELT_RSUB: return "rsub";
    case MLIP_ELT_MUL: return "mul";
    case MLIP_ELT_MAX: return "max";
    case MLIP_ELT_MIN: return "min";
    case MLIP_ELT_DIV: return "div";
    default: return "prelu";
  }
}

// A PRelu whose slope is one constant value is LEAKYRELU.
bool scalar_prelu(const Graph& g, const Node& n) {
  return n.op == "PRelu" && n.inputs.size() == 2 && g.value(n.inputs[1]).is_constant() &&
         g.value(n.inputs[1]).constant->numel() == 1 && g.value(n.inputs[0]).dtype == DType::Float32;
}

// a, b and the result of `elems` elements of `eb` bytes, b `len` values when cycled.
uint64_t pass_bytes(int64_t elems, bool equal, int64_t len, int64_t eb) {
  return 2 * ocm_round(elems * eb) + ocm_round((equal ? elems : len) * eb);
}

}  // namespace eltwise_layer

std::optional<Guard> guard_of(const Graph& g, const std::vector<std::vector<int>>& consumers,
                              const std::vector<int>& producers, const Node& div) {
  if (div.op != "Div" || div.inputs.size() != 2 || div.attrs.has("legacy_axis")) return std::nullopt;
  if (g.value(div.inputs[0]).dtype != DType::Float32) return std::nullopt;
  Guard gd;
  ValueId v = div.inputs[1];
  int p = producers[v];
  const int self = static_cast<int>(&div - g.nodes.data());
  if (p >= 0 && g.nodes[static_cast<size_t>(p)].op == "Sqrt" && only_consumer(g, consumers, v) == self) {
    gd.sqrt = p;
    v = g.nodes[static_cast<size_t>(p)].inputs[0];
    p = producers[v];
  }
  const int reader = gd.sqrt >= 0 ? gd.sqrt : self;
  ValueId x = kNoValue;
  float eps = 0.0f;
  if (p >= 0 && g.nodes[static_cast<size_t>(p)].op == "Add" && only_consumer(g, consumers, v) == reader &&
      eltwise_layer::scalar_operand(g, g.nodes[static_cast<size_t>(p)], x, eps)) {
    gd.add = p;
    gd.eps = eps;
    v = x;
  }
  if (gd.add < 0 && gd.sqrt < 0) return std::nullopt;
  gd.b = v;
  return gd;
}

bool folded_guard(const Graph& g, const std::vector<std::vector<int>>& consumers, const std::vector<int>& producers,
                  int node) {
  int at = node;
  for (int step = 0; step < 2; ++step) {  // the Add, the Sqrt, then the Div
    const int r = only_consumer(g, consumers, g.nodes[static_cast<size_t>(at)].outputs[0]);
    if (r < 0) return false;
    const Node& rn = g.nodes[static_cast<size_t>(r)];
    if (rn.op == "Div") {
      const std::optional<Guard> gd = guard_of(g, consumers, producers, rn);
      return gd && (gd->add == node || gd->sqrt == node);
    }
    if (rn.op != "Sqrt") return false;
    at = r;
  }
  return false;
}

namespace eltwise_layer {

// n with its divisor replaced by the guard's input (what the command reads).
Node guarded(const Node& n, const std::optional<Guard>& gd) {
  Node c = n;
  if (gd) c.inputs[1] = gd->b;
  return c;
}

// Why a constant operand of n cannot be an fp16 operand (an operand of at
// most 4096 values that binary16 cannot hold, underflow too), or "".
std::string constant_reason(const Graph& g, const Node& n) { return half_constant_reason(g, n.inputs, true, 4096); }

std::string support(const Graph& g, const Node& n0, const SupportLimits& lim);

// The rule of n as written (its constants checked).
std::string support_checked(const Graph& g, const Node& n, const SupportLimits& lim) {
  if (!lim.int8)
    if (std::string r = constant_reason(g, n); !r.empty()) return r;
  return support(g, n, lim);
}

std::string support(const Graph& g, const Node& n, const SupportLimits& lim) {
  if (lim.int8 && n.op != "QLinearMul") return fmt::format("{} has no int8 MLIP layer", n.op);
  if (!lim.int8 && n.op == "QLinearMul") return "QLinearMul needs -quantize=int8";
  if (n.op == "QLinearMul")
    for (size_t i : {1, 2, 4, 5, 6, 7})
      if (n.has_input(i) && !is_const(g, n, i)) return fmt::format("input #{} is not constant", i);
  if (n.attrs.has("legacy_axis")) return "legacy broadcasting";
  if (scalar_prelu(g, n)) {  // LEAKYRELU: the ACTIVATION layer's shapes
    const Shape& x = g.value(n.inputs[0]).shape;
    if (x.size() != 4 && x.size() != 2) return "only 2-D and 4-D tensors";
    return batch_reason(x[0]);
  }
  const Operands o = classify(g, n);
  const char* divisor = "a Div whose divisor has the output's shape and x does not";
  if (!o.why.empty() || (n.op == "Div" && o.full != 0)) {  // the row-major form, if it applies
    const RowOperands r = classify_rows(g, n);
    if ((lim.int8 && n.op != "QLinearMul") || !r.why.empty()) return o.why.empty() ? divisor : o.why;
    if (n.op == "PRelu" && r.full != 0) return "PRelu whose slope has the output's shape and x does not";
    if (n.op == "Div" && r.full != 0) return divisor;
    const bool equal = r.rep == 1 && r.len == numel(g.value(n.outputs[0]).shape);
    if (pass_bytes(1, equal, r.len, n.op == "QLinearMul" ? 1 : kF16Bytes) > lim.work_bytes)
      return "the broadcast operand does not fit OCM";
    return "";
  }
  if (n.op == "PRelu" && o.full != 0) return "PRelu whose slope has the output's shape and x does not";
  if (std::string r = batch_reason(g.value(n.outputs[0]).shape[0]); !r.empty()) return r;
  const bool wide = g.value(n.outputs[0]).dtype == DType::Int16;  // 16x8 QLinearMul: two bytes
  if (pass_bytes(1, o.equal, o.len, lim.int8 && !wide ? 1 : kF16Bytes) > lim.work_bytes)
    return "one value per channel does not fit OCM";
  return "";
}

// A QLinearMul's constant operand b of `len` values in WEIGHTS: its bytes,
// one per value (int8/uint8 as stored; 16x8: two, little-endian).
int64_t q8_operand(LowerContext& ctx, const Node& n, ValueId b, int64_t len) {
  const Graph& g = ctx.graph();
  const TensorData& c = *g.value(b).constant;
  const std::vector<int64_t> v = c.as_int64();
  const size_t eb = g.value(n.outputs[0]).dtype == DType::Int16 ? 2 : 1;
  std::vector<uint8_t> bytes(static_cast<size_t>(len) * eb);
  std::vector<float> shown(static_cast<size_t>(len));
  for (int64_t i = 0; i < len; ++i) {
    const int64_t x = v[static_cast<size_t>(c.numel() == 1 ? 0 : i)];
    for (size_t k = 0; k < eb; ++k) bytes[static_cast<size_t>(i) * eb + k] = static_cast<uint8_t>((x >> (8 * k)) & 0xff);
    shown[static_cast<size_t>(i)] = static_cast<float>(x);
  }
  const int64_t off = ctx.add_bytes(bytes);
  ctx.add_const({g.value(b).name, {len}, shown});
  return off;
}

// The CPU kernel's constants (ops/qlinear_binary.cpp) of QLinearMul n:
// (q, shift) of a_scale * b_scale / c_scale, the zero points (operand
// `full`'s first), the output clamp.
void set_q8(LowerContext& ctx, const Node& n, int full, RLayer& l, EltwiseParams& ep) {
  const DType t = ctx.graph().value(n.outputs[0]).dtype;
  auto scale = [&](size_t i) { return ctx.any_constant(n, i).data<float>()[0]; };
  auto zp = [&](size_t i) { return n.has_input(i) ? static_cast<int32_t>(ctx.any_constant(n, i).as_int64()[0]) : 0; };
  const ops::Requant r = ops::requant_multiplier(scale(1), scale(4), scale(6), ops::requant_mode(n.attrs));
  l.dtype = mlip_dtype(t);
  ep.a_zp = zp(full == 0 ? 2 : 5);
  ep.b_zp = zp(full == 0 ? 5 : 2);
  ep.y_zp = zp(7);
  ep.q = r.q;
  ep.shift = r.shift;
  ep.lo = ops::clamp_lo(n.attrs, t);
  ep.hi = ops::clamp_hi(n.attrs, t);
}

// The 8-bit command's operands of layer l.
void set_q8_args(const RLayer& l, const EltwiseParams& ep, mlip_eltwise_args& c) {
  c.a_zp = ep.a_zp;
  c.b_zp = ep.b_zp;
  c.y_zp = ep.y_zp;
  c.q = ep.q;
  c.shift = ep.shift;
  c.lo = ep.lo;
  c.hi = ep.hi;
  c.requant = l.requant;
}

// The row-major form: both operands (b, or its constant values in
// WEIGHTS) in row-major order, b cycled with period len and repeat rep.
void lower_rows(LowerContext& ctx, const Node& n, const RowOperands& o) {
  const Graph& g = ctx.graph();
  const std::vector<ValueId> operands = operands_of(n);
  const ValueId a = operands[static_cast<size_t>(o.full)], b = operands[static_cast<size_t>(o.other)];
  const bool q8 = n.op == "QLinearMul";
  std::vector<int> inputs = {ctx.rowmajor_of(a)};
  int64_t operand_offset = -1;
  if (o.other_const && q8) {
    operand_offset = q8_operand(ctx, n, b, o.len);
  } else if (o.other_const) {
    const TensorData& c = ctx.constant(n, static_cast<size_t>(o.other));
    std::vector<float> values(static_cast<size_t>(o.len));
    for (int64_t i = 0; i < o.len; ++i) values[static_cast<size_t>(i)] = static_cast<float>(c.at(c.numel() == 1 ? 0 : i));
    operand_offset = ctx.add_f16(values);
    ctx.add_const({g.value(b).name, {o.len}, values});
  } else {
    inputs.push_back(ctx.rowmajor_of(b));
  }
  RLayer& l = ctx.new_layer(MLIP_LAYER_ELTWISE, n);
  l.inputs = inputs;
  EltwiseParams ep;
  Operands ops;
  ops.full = o.full;
  ep.func = func_of(n, ops);
  ep.operand_offset = operand_offset;
  ep.operand_len = o.len;
  ep.rowmajor = true;
  ep.rep = o.rep;
  if (q8) set_q8(ctx, n, o.full, l, ep);
  l.params = ep;
  l.output = ctx.output_tensor(n, 0, true);
}

// The row-major form's plan: the tensor's elements split across tiles (in
// multiples of rep, so that a command starts at a value of b), each tile's
// share in chunks; b whole in OCM when it cycles, else chunk by chunk.
void plan_rows(LayerPlanner& p) {
  const RLayer& l = p.layer();
  const EltwiseParams& ep = params_of<EltwiseParams>(l);
  const RTensor& a = p.in(0);
  const RTensor& y = p.out();
  const bool has_b = l.inputs.size() > 1;
  const int64_t eb = a.elem_bytes();  // halves, or 8-bit values (QLinearMul)
  const int64_t E = a.elems(), len = ep.operand_len, rep = ep.rep;
  const bool equal = len * rep == E && rep == 1;
  // a multiple of rep of at least 64 elements: every tile's share starts a row
  const auto parts = split_range(E, p.num_tiles(), rep > 1 ? rep * ((64 + rep - 1) / rep) : 64);
  p.set_split(Split::Elements, parts);
  const int64_t step = rep > 1 ? rep : 1;
  const int64_t chunk = largest(E / step, [&](int64_t v) { return pass_bytes(v * step, equal, len, eb) <= p.work_limit(); }) * step;
  if (chunk == 0) fail("layer '{}' does not fit OCM", l.name);
  const int64_t bb = has_b ? p.ddr_base(p.in(1)) : ep.operand_offset;
  const uint32_t b_bind = has_b ? p.binding(p.in(1)) : p.weights_binding();
  for (size_t t = 0; t < parts.size(); ++t) {
    const int tile = static_cast<int>(t);
    Ocm ocm(p.work_limit());
    const int64_t n = std::min(chunk, parts[t].second - parts[t].first);
    const uint32_t a_off = ocm.take(n * eb), b_off = ocm.take((equal ? n : len) * eb),
                   o_off = ocm.take(n * eb);
    p.note_ocm(tile, ocm);
    if (!equal) p.dma_in(tile, b_bind, bb, b_off, len * eb);
    for (int64_t e0 = parts[t].first; e0 < parts[t].second; e0 += n) {
      const int64_t en = std::min(n, parts[t].second - e0);
      p.count_pass();
      p.dma_in(tile, p.binding(a), p.ddr_base(a) + e0 * eb, a_off, en * eb);
      if (equal) p.dma_in(tile, b_bind, bb + e0 * eb, b_off, en * eb);
      mlip_eltwise_args c{};
      c.a = a_off;
      c.b = b_off;
      c.out = o_off;
      c.count = u32(en);
      c.b_len = u32(equal ? en : len);
      c.b_base = u32(equal ? 0 : (e0 / rep) % len);
      c.b_rep = u32(rep > 1 ? rep : 0);
      c.func = ep.func;
      p.fused(c);
      c.b_add = ep.b_add;
      c.b_sqrt = ep.b_sqrt ? 1 : 0;
      if (l.q8()) set_q8_args(l, ep, c);
      p.emit(MLIP_OP_ELTWISE, tile, c);
      p.dma_out(tile, p.binding(y), p.ddr_base(y) + e0 * eb, o_off, en * eb);
    }
  }
}

void lower_node(LowerContext& ctx, const Node& n) {
  const Graph& g = ctx.graph();
  const int self = ctx.index_of(n);
  if (n.op == "Mul") {
    const int gate = gate_of_product(g, ctx.consumers(), ctx.producers(), n);
    if (gate >= 0) {
      const Node& gn = g.nodes[static_cast<size_t>(gate)];
      ctx.apply_activation(n, gn.inputs[0], product_activation(gn), {gate, self});
      return;
    }
  }
  if (scalar_prelu(g, n)) {
    Activation a;
    a.kind = MLIP_ACT_LEAKYRELU;
    a.lo = static_cast<float>(g.value(n.inputs[1]).constant->at(0));
    ctx.apply_activation(n, n.inputs[0], a, {self});
    return;
  }
  const Operands o = classify(g, n);
  if (n.op != "QLinearMul") {
    // Row-major operands, or a broadcast only the row-major form has.
    const RowOperands r = classify_rows(g, n);
    const bool nhwc_ok = o.why.empty() && !(n.op == "Div" && o.full != 0);
    if (r.why.empty() && (!nhwc_ok || ctx.is_rowmajor(operands_of(n)[static_cast<size_t>(r.full)])))
      return lower_rows(ctx, n, r);
  } else if (!o.why.empty()) {
    // 8-bit: the row-major form where the NHWC one has no place (a
    // transformer's LayerNorm scale per column on [1, T, d])
    const RowOperands r = classify_rows(g, n);
    if (r.why.empty()) return lower_rows(ctx, n, r);
  }
  if (!o.why.empty()) fail("{}", o.why);
  const std::vector<ValueId> ops = operands_of(n);
  const ValueId a = ops[static_cast<size_t>(o.full)], b = ops[static_cast<size_t>(o.other)];
  const bool q8 = n.op == "QLinearMul";
  // An 8-bit product of equal shapes or by one value is the same in any
  // element order: a row-major 4-D operand (an int8 MATMUL's output: the
  // attention scores times their scale) stays row-major, with no relayout
  // to NHWC and back.
  const bool rows = q8 && (o.equal || o.len == 1) && g.value(a).shape.size() == 4 &&
                    ctx.tensor(ctx.tensor_as_is(a)).rowmajor;
  std::vector<int> inputs = {rows ? ctx.rowmajor_of(a) : ctx.tensor_of(a)};
  int64_t operand_offset = -1;
  if (o.other_const && q8) {
    operand_offset = q8_operand(ctx, n, b, o.len);
  } else if (o.other_const) {
    const TensorData& c = ctx.constant(n, static_cast<size_t>(o.other));
    std::vector<float> values(static_cast<size_t>(o.len));
    for (int64_t i = 0; i < o.len; ++i) values[static_cast<size_t>(i)] = static_cast<float>(c.at(c.numel() == 1 ? 0 : i));
    operand_offset = ctx.add_f16(values);
    ctx.add_const({g.value(b).name, {o.len}, values});
  } else {
    inputs.push_back(rows ? ctx.rowmajor_of(b) : ctx.tensor_of(b));
  }
  RLayer& l = ctx.new_layer(MLIP_LAYER_ELTWISE, n);
  l.inputs = inputs;
  EltwiseParams ep;
  ep.func = func_of(n, o);
  ep.operand_offset = operand_offset;
  ep.operand_len = o.len;
  l.output = ctx.output_tensor(n, 0, rows);
  if (q8) set_q8(ctx, n, o.full, l, ep);
  l.params = ep;
}

// A Div with a guard lowers as a Div of the guard's input, the guard in
// the command (b_add, b_sqrt); the Add and Sqrt make no layer.
void lower(LowerContext& ctx, const Node& n) {
  std::optional<Guard> gd;
  if (n.op == "Div") gd = guard_of(ctx.graph(), ctx.consumers(), ctx.producers(), n);
  if (!gd) return lower_node(ctx, n);
  const Node c = guarded(n, gd);
  lower_node(ctx, c);
  RLayer& l = ctx.region().layers.back();
  EltwiseParams& ep = params_of<EltwiseParams>(l);
  ep.b_add = gd->eps;
  ep.b_sqrt = gd->sqrt >= 0;
  for (int k : {gd->add, gd->sqrt})
    if (k >= 0) {
      const auto& o = ctx.graph().nodes[static_cast<size_t>(k)].origins;
      l.origins.insert(l.origins.end(), o.begin(), o.end());
    }
}

void plan(LayerPlanner& p) {
  const RLayer& l = p.layer();
  const EltwiseParams& ep = params_of<EltwiseParams>(l);
  if (ep.rowmajor) return plan_rows(p);
  const RTensor& a = p.in(0);
  const RTensor& y = p.out();
  const int64_t eb = a.elem_bytes();
  const bool has_b = l.inputs.size() > 1;
  const int64_t E = a.image_elems();
  const int64_t len = has_b ? p.in(1).image_elems() : ep.operand_len;
  const bool equal = len == E;
  const int64_t b_image = has_b && p.in(1).n > 1 ? len : 0;  // b's elements per image, 0 when shared
  const auto parts = split_range(E, p.num_tiles(), 64);
  p.set_split(Split::Elements, parts);
  const int64_t chunk = largest(E, [&](int64_t v) { return pass_bytes(v, equal, len, eb) <= p.work_limit(); });
  for (int64_t img = 0; img < a.n; ++img) {
    const int64_t bb = has_b ? p.ddr_base(p.in(1)) + img * b_image * eb : ep.operand_offset;
    const uint32_t b_bind = has_b ? p.binding(p.in(1)) : p.weights_binding();
    for (size_t t = 0; t < parts.size(); ++t) {
      const int tile = static_cast<int>(t);
      Ocm ocm(p.work_limit());
      const int64_t n = std::min(chunk, parts[t].second - parts[t].first);
      const uint32_t a_off = ocm.take(n * eb), b_off = ocm.take((equal ? n : len) * eb),
                     o_off = ocm.take(n * eb);
      p.note_ocm(tile, ocm);
      if (!equal) p.dma_in(tile, b_bind, bb, b_off, len * eb);
      for (int64_t e0 = parts[t].first; e0 < parts[t].second; e0 += n) {
        const int64_t en = std::min(n, parts[t].second - e0);
        p.count_pass();
        p.dma_in(tile, p.binding(a), p.ddr_base(a) + (img * E + e0) * eb, a_off, en * eb);
        if (equal) p.dma_in(tile, b_bind, bb + e0 * eb, b_off, en * eb);
        mlip_eltwise_args c{};
        c.a = a_off;
        c.b = b_off;
        c.out = o_off;
        c.count = u32(en);
        c.b_len = u32(equal ? en : len);
        c.b_base = u32(equal ? 0 : e0 % len);
        c.func = ep.func;
        p.fused(c);
        c.b_add = ep.b_add;
        c.b_sqrt = ep.b_sqrt ? 1 : 0;
        if (l.q8()) set_q8_args(l, ep, c);
        p.emit(MLIP_OP_ELTWISE, tile, c);
        p.dma_out(tile, p.binding(y), p.ddr_base(y) + (img * E + e0) * eb, o_off, en * eb);
      }
    }
  }
}

void json(const RLayer& l, nlohmann::json& attrs) {
  const EltwiseParams& ep = params_of<EltwiseParams>(l);
  attrs["eltwise_op"] = func_name(ep.func);
  if (ep.b_add != 0.0f || ep.b_sqrt) attrs["guard"] = {{"epsilon", ep.b_add}, {"sqrt", ep.b_sqrt}};
  if (ep.operand_offset >= 0) attrs["operand_len"] = ep.operand_len;
}

}  // namespace eltwise_layer

std::string eltwise_reason(const Graph& g, const Node& n, const SupportLimits& lim) {
  return eltwise_layer::support_checked(g, n, lim);
}
void lower_eltwise(LowerContext& ctx, const Node& n) { eltwise_layer::lower(ctx, n); }

bool clamp16(const Graph& g, const Node& n) {
  return n.op == "Clip" && !n.inputs.empty() && !g.value(n.inputs[0]).is_constant() &&
         g.value(n.inputs[0]).dtype == DType::Int16;
}

std::string clamp16_reason(const Graph& g, const Node& n, const SupportLimits& lim) {
  if (!lim.int8) return "a Clip on int16 (16x8) needs -quantize=int8";
  for (size_t i : {1, 2})
    if (n.has_input(i) && (!is_const(g, n, i) || g.value(n.inputs[i]).dtype != DType::Int16))
      return fmt::format("input #{} is not an int16 constant", i);
  const Shape& s = g.value(n.outputs[0]).shape;
  if (s.size() != 4 && s.size() != 2) return "a Clip on int16 (16x8): only 2-D and 4-D tensors";
  return batch_reason(s[0]);  // one element of each fits any OCM
}

// y = clamp(x * 1): requantize(x * 1, q = 2^30, shift 1) is x exactly
// (mlip_requantize: x * 2, then the rounding doubling high multiply by
// 2^30 halves it with no remainder), then [lo, hi]: the Clip's bounds, as
// the CPU's Clip on the int16 values. Fixed-point pair whatever the
// build's requant mode (both give x).
void lower_clamp16(LowerContext& ctx, const Node& n) {
  const Graph& g = ctx.graph();
  auto bound = [&](size_t i, int32_t none) {
    return n.has_input(i) ? static_cast<int32_t>(ctx.any_constant(n, i).as_int64()[0]) : none;
  };
  const int in = ctx.tensor_of(n.inputs[0]);
  const std::vector<uint8_t> one = {1, 0};  // int16 1, little-endian
  const int64_t operand = ctx.add_bytes(one);
  ctx.add_const({g.value(n.inputs[0]).name + "_one", {1}, {1.0f}});
  RLayer& l = ctx.new_layer(MLIP_LAYER_ELTWISE, n);
  l.inputs = {in};
  l.output = ctx.output_tensor(n);
  l.dtype = MLIP_DT_INT16;
  l.requant = MLIP_REQUANT_FIXED;
  eltwise_layer::EltwiseParams ep;
  ep.func = MLIP_ELT_MUL;
  ep.operand_offset = operand;
  ep.operand_len = 1;
  ep.q = 1 << 30;
  ep.shift = 1;
  ep.lo = bound(1, -32768);
  ep.hi = std::max(ep.lo, bound(2, 32767));  // min > max: passes/fold_qdq gave lo = hi already
  l.params = ep;
}

// The kind's rule: a Div reads its guard's input (the folded Add and Sqrt).
std::string kind_support(const Graph& g, const Node& n, const SupportLimits& lim) {
  if (n.op == "Div") {
    const auto consumers = g.consumers();
    const auto producers = g.producers();
    if (const std::optional<Guard> gd = guard_of(g, consumers, producers, n))
      return eltwise_layer::support_checked(g, eltwise_layer::guarded(n, gd), lim);
  }
  return eltwise_layer::support_checked(g, n, lim);
}

extern const LayerKind kEltwise = {MLIP_LAYER_ELTWISE, "eltwise", "Eltwise", "mrvl.eltwise",
                                   {"Sub", "Mul", "Max", "Min", "PRelu", "QLinearMul", "Div"},
                                   /*fuses_activation=*/true, kind_support, eltwise_layer::lower, eltwise_layer::plan,
                                   nullptr, eltwise_layer::json};

}  // namespace mlipc::mlip::layers
