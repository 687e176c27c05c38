// RNN: LSTM and GRU (forward, reverse, bidirectional; GRU
// linear_before_reset 0 and 1; initial states given, computed or absent),
// layout 0, with the default activations. Per direction and chunk of time
// steps that fits OCM: X's rows in, one MATMUL for the chunk's input
// projections (X W^T + Wb), one RNN command that steps through the chunk
// (R h + Rb, the gates, the state update: the time loop inside the command,
// the state kept in OCM from chunk to chunk), Y's rows of the chunk out at
// their direction's place ([seq, dirs, batch, hidden]); Y_h, when read, is
// a second layer (RNN_STATE) that copies each direction's last step of Y;
// Y_c, when read, another, from a step the RNN layer writes after Y's
// (its output is then [seq + 1, ...], Y a view of it). The command buffer
// grows with the number of chunks only (one for every suite model). A
// direction is one tile's work (directions split across tiles; a direction
// is sequential in time); its steps are computed in the same order
// whatever the tiles, so tiles and wb_pin_ocm give the same bits. The
// weights are streamed (not pinned): every chunk reads the same OCM copy.
// The 8-bit form (an int8 model: DequantizeLinear, LSTM or GRU,
// QuantizeLinear, the CPU's int8 build's float node between its pairs) is
// one RNN command per chunk that reads the 8-bit X rows, computes the input
// projections itself and writes 8-bit Y rows, in the CPU kernel's fp32
// operations (fp32 weights and state): the CPU's bytes.
#include <algorithm>
#include <cmath>

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include "mlip/layer_kind.h"
#include "mlip/layers/rules.h"
#include "mlip/lower.h"
#include "mlip/plan.h"
#include "ops/op.h"
#include "ops/recurrent.h"
#include "support/error.h"

namespace mlipc::mlip::layers {

namespace rnn_layer {

// An RNN layer's own parameters (RLayer::params). Weights in WEIGHTS, per
// direction d at d times the size of one: W [gh][input] and R [gh][hidden]
// fp16, Wb and Rb [gh] fp32 (zeros when B is absent); the initial states
// [dirs][batch][hidden] fp16 in WEIGHTS (constants, zeros when absent) or
// a layer input (computed).
struct RnnParams {
  uint32_t cell = MLIP_RNN_LSTM;
  int64_t seq = 1, batch = 1, input = 1, hidden = 1, dirs = 1;
  bool reverse = false, lbr = false;
  int64_t w_off = 0, wb_off = 0, r_off = 0, rb_off = 0;
  int64_t h0_off = -1, c0_off = -1;  // in WEIGHTS, or -1: input h0_in / c0_in
  int h0_in = -1, c0_in = -1;        // index into the layer's inputs
  bool with_c = false;               // the output holds seq + 1 steps: the last is the final cell state (Y_c)
  // 8-bit: fp32 W, R and states; B [dirs][2 * gh] (Wb then Rb) at wb_off;
  // X's and Y's quantization.
  bool q8 = false;
  float x_scale = 1.0f, y_scale = 1.0f;
  int32_t x_zp = 0, y_zp = 0;
  int64_t gates() const { return cell == MLIP_RNN_LSTM ? 4 : 3; }
  int64_t gh() const { return gates() * hidden; }
};

// An RNN_STATE layer's: the recurrent layer's, and which state it copies.
struct StateCopy {
  RnnParams rnn;
  bool cell = false;  // Y_c (else Y_h)
};

// The OCM of one direction: its weights and state, and `steps` steps of X,
// the projections and Y.
uint64_t fixed_bytes(int64_t gh, int64_t input, int64_t hidden, int64_t batch, bool lstm) {
  return ocm_round(gh * input * kF16Bytes) + ocm_round(gh * kF32Bytes) + ocm_round(gh * hidden * kF16Bytes) +
         ocm_round(gh * kF32Bytes) + ocm_round(batch * hidden * kF16Bytes) * (lstm ? 2 : 1) +
         ocm_round((gh + hidden) * kF32Bytes);
}
uint64_t chunk_bytes(int64_t steps, int64_t gh, int64_t input, int64_t hidden, int64_t batch) {
  return ocm_round(steps * batch * input * kF16Bytes) + ocm_round(steps * batch * gh * kF16Bytes) +
         ocm_round(steps * batch * hidden * kF16Bytes);
}
// 8-bit: fp32 W, both biases, R, state, work; 8-bit X and Y rows.
uint64_t q8_fixed_bytes(int64_t gh, int64_t input, int64_t hidden, int64_t batch, bool lstm) {
  return ocm_round(gh * input * kF32Bytes) + ocm_round(2 * gh * kF32Bytes) + ocm_round(gh * hidden * kF32Bytes) +
         ocm_round(batch * hidden * kF32Bytes) * (lstm ? 2 : 1) + ocm_round((gh + hidden) * kF32Bytes);
}
uint64_t q8_chunk_bytes(int64_t steps, int64_t input, int64_t hidden, int64_t batch) {
  return ocm_round(steps * batch * input) + ocm_round(steps * batch * hidden);
}

// The activations the ONNX operator uses by default: the only ones the
// RNN command computes.
bool default_acts(const ops::RecurrentConfig& rc) {
  using A = ops::RecurrentActivation;
  for (int64_t d = 0; d < rc.dirs; ++d) {
    const A* a = &rc.acts[static_cast<size_t>(d * rc.funcs)];
    if (a[0].kind != A::Sigmoid || a[1].kind != A::Tanh) return false;
    if (rc.funcs == 3 && a[2].kind != A::Tanh) return false;
  }
  return true;
}

ops::RecurrentConfig config_of(const Graph& g, const Node& n) {
  return ops::resolve_recurrent(n.op == "LSTM" ? ops::RecurrentConfig::Lstm : ops::RecurrentConfig::Gru, n.attrs,
                                g.value(n.inputs[0]).shape, g.value(n.inputs[1]).shape, g.value(n.inputs[2]).shape);
}

// Whether value v is read (by a node or as a graph output).
bool is_read(const Graph& g, ValueId v) {
  if (g.is_graph_output(v)) return true;
  for (const Node& m : g.nodes)
    if (std::find(m.inputs.begin(), m.inputs.end(), v) != m.inputs.end()) return true;
  return false;
}

// "" or why the RNN layer cannot run node n: fp16, or 8-bit (q8: between
// a DequantizeLinear and a QuantizeLinear, the initial states constants).
std::string node_reason(const Graph& g, const Node& n, const SupportLimits& lim, bool q8) {
  const Value& x = g.value(n.inputs[0]);
  if (x.dtype != DType::Float32 || x.shape.size() != 3) return "only a float32 X of 3 dimensions";
  if (x.is_constant()) return "a constant X";
  for (size_t i = 1; i <= 3; ++i)
    if (n.has_input(i) && !g.value(n.inputs[i]).is_constant())
      return fmt::format("{} computed at run time (the MLIP layer takes constant W, R and B)",
                         i == 1 ? "W" : i == 2 ? "R" : "B");
  ops::RecurrentConfig rc;
  try {
    rc = config_of(g, n);
  } catch (const Error& e) {
    return e.what();
  }
  if (rc.batch_major) return "layout 1 (the MLIP layer takes layout 0; torch's batch_first is Transposes around it)";
  if (rc.has_clip) return "clip (the MLIP layer computes unclipped gates)";
  if (rc.input_forget) return "input_forget 1";
  if (!default_acts(rc)) return "activations other than the defaults (sigmoid, tanh)";
  if (n.has_input(4)) {
    const Value& sl = g.value(n.inputs[4]);
    if (!sl.is_constant()) return "sequence_lens computed at run time";
    for (int64_t b = 0; b < sl.constant->numel(); ++b)
      if (static_cast<int64_t>(sl.constant->at(b)) != rc.seq)
        return fmt::format("sequence_lens other than seq_length {} (entry {} is {})", rc.seq, b,
                           static_cast<int64_t>(sl.constant->at(b)));
  }
  if (n.op == "LSTM" && n.has_input(7)) return "peepholes (input P)";
  for (size_t i = 5; i < std::min<size_t>(n.inputs.size(), n.op == "LSTM" ? 7 : 6); ++i) {
    if (!n.has_input(i)) continue;
    if (g.value(n.inputs[i]).dtype != DType::Float32) return "initial states that are not float32";
    if (q8 && !g.value(n.inputs[i]).is_constant())
      return "initial states computed at run time (the 8-bit layer takes constant ones: a float tensor cannot "
             "enter an int8 region)";
  }
  const bool lstm = n.op == "LSTM";
  const int64_t gh = rc.gates * rc.hidden;
  const uint64_t need = q8 ? q8_fixed_bytes(gh, rc.input, rc.hidden, rc.batch, lstm) +
                                 q8_chunk_bytes(1, rc.input, rc.hidden, rc.batch)
                           : fixed_bytes(gh, rc.input, rc.hidden, rc.batch, lstm) +
                                 chunk_bytes(1, gh, rc.input, rc.hidden, rc.batch);
  if (need > lim.work_bytes)
    return fmt::format("one direction's weights and one step need more than the {} bytes of OCM", lim.work_bytes);
  return "";
}

std::string support(const Graph& g, const Node& n, const SupportLimits& lim) {
  // An LSTM or GRU reads float X: in an int8 model it is a chain's
  // (q8_rnn_reason) or says why not (q8_rnn_missing).
  if (lim.int8) return fmt::format("{} on int8 tensors (ONNX's {} is float)", n.op, n.op);
  return node_reason(g, n, lim, false);
}

// A float32 constant's values in order.
std::vector<float> floats_of(const TensorData& t) {
  std::vector<float> v(static_cast<size_t>(t.numel()));
  for (int64_t i = 0; i < t.numel(); ++i) v[static_cast<size_t>(i)] = static_cast<float>(t.at(i));
  return v;
}

void lower_q8(LowerContext& ctx, const Q8Chain& c);

// The layer's cell, shape and direction from the node's configuration:
// what the fp16 and the 8-bit forms both start from.
RnnParams shape_of(const Node& n, const ops::RecurrentConfig& rc) {
  RnnParams p;
  p.cell = n.op == "LSTM" ? MLIP_RNN_LSTM : MLIP_RNN_GRU;
  p.seq = rc.seq;
  p.batch = rc.batch;
  p.input = rc.input;
  p.hidden = rc.hidden;
  p.dirs = rc.dirs;
  p.reverse = rc.reverse;
  p.lbr = rc.linear_before_reset;
  return p;
}

void lower(LowerContext& ctx, const Node& n) {
  const Graph& g = ctx.graph();
  if (auto c = q8_chain_at(g, ctx.consumers(), ctx.producers(), ctx.index_of(n)))
    if (is_q8_type(g.value(g.nodes[static_cast<size_t>(c->dq)].inputs[0]).dtype)) return lower_q8(ctx, *c);
  const ops::RecurrentConfig rc = config_of(g, n);
  RnnParams p = shape_of(n, rc);
  const int64_t gh = p.gh();
  std::vector<int> inputs = {ctx.rowmajor_of(n.inputs[0])};
  // W [dirs][gh][input] and R [dirs][gh][hidden] are stored as they are
  // (MATMUL's trans_b form, RNN's rows); B [dirs][2 * gh] is Wb then Rb.
  const std::vector<float> w = floats_of(ctx.constant(n, 1)), r = floats_of(ctx.constant(n, 2));
  std::vector<float> wb(static_cast<size_t>(p.dirs * gh), 0.0f), rb = wb;
  if (n.has_input(3)) {
    const std::vector<float> b = floats_of(ctx.constant(n, 3));
    for (int64_t d = 0; d < p.dirs; ++d)
      for (int64_t j = 0; j < gh; ++j) {
        wb[static_cast<size_t>(d * gh + j)] = b[static_cast<size_t>(d * 2 * gh + j)];
        rb[static_cast<size_t>(d * gh + j)] = b[static_cast<size_t>(d * 2 * gh + gh + j)];
      }
  }
  p.w_off = ctx.add_f16(w);
  p.r_off = ctx.add_f16(r);
  p.wb_off = ctx.add_f32(wb);
  p.rb_off = ctx.add_f32(rb);
  ctx.add_const({g.value(n.inputs[1]).name, {p.dirs, gh, p.input}, w});
  ctx.add_const({g.value(n.inputs[2]).name, {p.dirs, gh, p.hidden}, r});
  // The initial states: constants (torch's zeros) or absent into WEIGHTS,
  // computed ones as inputs.
  const size_t state_count = static_cast<size_t>(p.dirs * p.batch * p.hidden);
  auto state = [&](size_t i, int64_t& off, int& in) {
    if (!n.has_input(i)) {
      off = ctx.add_f16(std::vector<float>(state_count, 0.0f));
    } else if (g.value(n.inputs[i]).is_constant()) {
      off = ctx.add_f16(floats_of(*g.value(n.inputs[i]).constant));
    } else {
      in = static_cast<int>(inputs.size());
      inputs.push_back(ctx.rowmajor_of(n.inputs[i]));
    }
  };
  state(5, p.h0_off, p.h0_in);
  if (p.cell == MLIP_RNN_LSTM) state(6, p.c0_off, p.c0_in);
  auto read = [&](size_t o) { return n.outputs.size() > o && n.outputs[o] != kNoValue && is_read(g, n.outputs[o]); };
  // Y_c read: the layer writes [seq + 1, dirs, batch, hidden], Y its first
  // seq steps (a view), the final cell states the last.
  p.with_c = p.cell == MLIP_RNN_LSTM && read(2);
  const Shape ys = {p.seq, p.dirs, p.batch, p.hidden};
  const int out = p.with_c ? ctx.scratch_tensor(g.value(n.outputs[0]).name + ":with_c", {p.seq + 1, p.dirs, p.batch, p.hidden})
                           : ctx.output_tensor(n, 0, true);
  const int y = p.with_c ? ctx.alias_output(n, out, ys, true, 0) : out;
  RLayer& l = ctx.new_layer(MLIP_LAYER_RNN, n);
  l.inputs = inputs;
  l.macs = static_cast<uint64_t>(p.dirs * p.seq * p.batch * gh * (p.input + p.hidden));
  l.params = p;
  l.output = out;
  // Y_h: each direction's last step of Y (the state Y holds, the same bits);
  // Y_c: the step after Y.
  for (size_t o = 1; o <= 2; ++o) {
    if (!read(o) || (o == 2 && !p.with_c)) continue;
    RLayer& s = ctx.new_layer(MLIP_LAYER_RNN_STATE, n);
    s.inputs = {o == 1 ? y : out};
    s.params = StateCopy{p, o == 2};
    s.output = ctx.output_tensor(n, o, true);
  }
}

// The 8-bit RNN layer of chain c: the DequantizeLinear's 8-bit X in, the
// QuantizeLinear's output out (the two make no layer of their own); W, R,
// B and the initial states fp32 in WEIGHTS.
void lower_q8(LowerContext& ctx, const Q8Chain& c) {
  const Graph& g = ctx.graph();
  const Node& dq = g.nodes[static_cast<size_t>(c.dq)];
  const Node& n = g.nodes[static_cast<size_t>(c.node)];
  const Node& q = g.nodes[static_cast<size_t>(c.q)];
  const ops::RecurrentConfig rc = config_of(g, n);
  RnnParams p = shape_of(n, rc);
  p.q8 = true;
  p.x_scale = q8_scale_of(g, dq);
  p.x_zp = q8_zero_point_of(g, dq);
  p.y_scale = q8_scale_of(g, q);
  p.y_zp = q8_zero_point_of(g, q);
  const int64_t gh = p.gh();
  const int in = ctx.rowmajor_of(dq.inputs[0]);
  const std::vector<float> w = floats_of(ctx.constant(n, 1)), r = floats_of(ctx.constant(n, 2));
  // B [dirs][2 * gh] as it is (Wb then Rb); zeros when absent (the sums
  // then differ from the CPU's at most in the sign of a zero, which no
  // quantized output shows).
  const std::vector<float> b =
      n.has_input(3) ? floats_of(ctx.constant(n, 3)) : std::vector<float>(static_cast<size_t>(p.dirs * 2 * gh), 0.0f);
  p.w_off = ctx.add_f32(w);
  p.r_off = ctx.add_f32(r);
  p.wb_off = ctx.add_f32(b);
  ctx.add_const({g.value(n.inputs[1]).name, {p.dirs, gh, p.input}, w});
  ctx.add_const({g.value(n.inputs[2]).name, {p.dirs, gh, p.hidden}, r});
  const size_t state_count = static_cast<size_t>(p.dirs * p.batch * p.hidden);
  auto state = [&](size_t i) {
    return ctx.add_f32(n.has_input(i) ? floats_of(*g.value(n.inputs[i]).constant)
                                      : std::vector<float>(state_count, 0.0f));
  };
  p.h0_off = state(5);
  if (p.cell == MLIP_RNN_LSTM) p.c0_off = state(6);
  RLayer& l = ctx.new_layer(MLIP_LAYER_RNN, n);
  l.origins.insert(l.origins.begin(), dq.origins.begin(), dq.origins.end());
  l.origins.insert(l.origins.end(), q.origins.begin(), q.origins.end());
  l.inputs = {in};
  l.dtype = mlip_dtype(g.value(dq.inputs[0]).dtype);
  l.macs = static_cast<uint64_t>(p.dirs * p.seq * p.batch * gh * (p.input + p.hidden));
  l.params = p;
  l.output = ctx.output_tensor(q, 0, true);
}

}  // namespace rnn_layer

std::string q8_rnn_reason(const Graph& g, const Q8Chain& c, const SupportLimits& lim) {
  if (!lim.int8) return "an int8 recurrent layer needs -quantize=int8";
  const Node& n = g.nodes[static_cast<size_t>(c.node)];
  const float xs = q8_scale_of(g, g.nodes[static_cast<size_t>(c.dq)]);
  const float ys = q8_scale_of(g, g.nodes[static_cast<size_t>(c.q)]);
  if (!(xs > 0.0f) || !(ys > 0.0f) || std::isinf(xs) || std::isinf(ys)) return "a scale that is not positive and finite";
  return rnn_layer::node_reason(g, n, lim, true);
}

std::string q8_rnn_missing(const Graph& g, const std::vector<std::vector<int>>& consumers,
                           const std::vector<int>& producers, const Node& n) {
  const char* what = "the 8-bit RNN layer runs a DequantizeLinear, LSTM or GRU, QuantizeLinear chain";
  for (size_t i = 1; i < n.outputs.size(); ++i)
    if (n.outputs[i] != kNoValue && (g.is_graph_output(n.outputs[i]) || !consumers[n.outputs[i]].empty()))
      return fmt::format("{} whose Y_h and Y_c are unread; {} of {} is read", what, i == 1 ? "Y_h" : "Y_c", n.op);
  const ValueId x = n.inputs[0], y = n.outputs[0];
  const int p = producers[x];
  if (p < 0 || g.nodes[static_cast<size_t>(p)].op != "DequantizeLinear" || g.is_graph_output(x) ||
      consumers[x].size() != 1)
    return fmt::format("{}; {}'s X is not the output of a DequantizeLinear that it alone reads", what, n.op);
  if (y == kNoValue || g.is_graph_output(y) || consumers[y].size() != 1 ||
      g.nodes[static_cast<size_t>(consumers[y][0])].op != "QuantizeLinear")
    return fmt::format("{}; {}'s Y is not read by one QuantizeLinear alone", what, n.op);
  return fmt::format("{} of 8-bit tensors of one type with per-tensor scales and zero points; {}'s are not", what,
                     n.op);
}

bool sequence_tensor(const Graph& g, ValueId v) {
  const std::vector<int> producers = g.producers();
  for (size_t hops = 0; hops <= g.nodes.size(); ++hops) {  // back through the moves, no cycle in a graph
    if (g.value(v).dtype != DType::Float32 && !is_q8_type(g.value(v).dtype)) return false;
    const int p = producers[static_cast<size_t>(v)];
    if (p < 0) return false;
    const Node& n = g.nodes[static_cast<size_t>(p)];
    if (n.op == "LSTM" || n.op == "GRU") return n.outputs[0] == v;
    // An int8 model's: the QuantizeLinear of Y (the 8-bit RNN layer's output).
    if (n.op == "QuantizeLinear" && !n.inputs.empty() && g.value(v).dtype != DType::Float32) {
      v = n.inputs[0];
      continue;
    }
    if (!op_traits(n.op).rearranges || n.inputs.empty()) return false;
    v = n.inputs[0];
  }
  return false;
}

namespace rnn_layer {

// The chunks of at most `sc` of the T steps of a direction, in its time
// order (from the end when reversed): the state flows from one to the next.
// fn(t0, steps) per chunk.
template <typename Fn>
void for_each_chunk(int64_t T, int64_t sc, bool rev, Fn fn) {
  for (int64_t k = 0; k * sc < T; ++k) {
    const int64_t t0 = rev ? std::max<int64_t>(0, T - (k + 1) * sc) : k * sc;
    const int64_t t1 = rev ? T - k * sc : std::min(T, (k + 1) * sc);
    fn(t0, t1 - t0);
  }
}

// What both forms of the RNN command (fp16 and 8-bit) say the same way: the
// OCM places of R, the bias, the state, Y and the work rows; the shape; the
// cell and direction.
struct RnnPlaces {
  uint32_t r, bias, h, c, y, work;
};
mlip_rnn_args rnn_args(const RnnParams& p, const RnnPlaces& at, int64_t steps, bool rev) {
  mlip_rnn_args a{};
  a.r = at.r;
  a.bias = at.bias;
  a.h = at.h;
  a.c = at.c;
  a.y = at.y;
  a.work = at.work;
  a.steps = u32(steps);
  a.batch = u32(p.batch);
  a.hidden = u32(p.hidden);
  a.cell = p.cell;
  a.reverse = rev ? 1 : 0;
  a.lbr = p.lbr ? 1 : 0;
  return a;
}

void plan_q8(LayerPlanner& pl);

void plan(LayerPlanner& pl) {
  const RLayer& l = pl.layer();
  const RnnParams& p = params_of<RnnParams>(l);
  if (p.q8) return plan_q8(pl);
  const RTensor& x = pl.in(0);
  const RTensor& y = pl.out();
  const bool lstm = p.cell == MLIP_RNN_LSTM;
  const int64_t gh = p.gh(), H = p.hidden, B = p.batch, I = p.input, T = p.seq, D = p.dirs;
  const uint64_t fixed = fixed_bytes(gh, I, H, B, lstm);
  const int64_t sc = largest(T, [&](int64_t s) { return fixed + chunk_bytes(s, gh, I, H, B) <= pl.work_limit(); });
  if (sc == 0) fail("layer '{}' does not fit OCM", l.name);
  const auto parts = split_range(D, pl.num_tiles());
  pl.set_split(Split::Channels, parts);  // directions
  const int64_t state_bytes = B * H * kF16Bytes;
  for (size_t t = 0; t < parts.size(); ++t) {
    const int tile = static_cast<int>(t);
    Ocm ocm(pl.work_limit());
    const uint32_t w_at = ocm.take(gh * I * kF16Bytes), wb_at = ocm.take(gh * kF32Bytes);
    const uint32_t r_at = ocm.take(gh * H * kF16Bytes), rb_at = ocm.take(gh * kF32Bytes);
    const uint32_t h_at = ocm.take(state_bytes), c_at = lstm ? ocm.take(state_bytes) : MLIP_NO_OFFSET;
    const uint32_t work_at = ocm.take((gh + H) * kF32Bytes);
    const int64_t sn = std::min(sc, T);
    const uint32_t x_at = ocm.take(sn * B * I * kF16Bytes), xp_at = ocm.take(sn * B * gh * kF16Bytes);
    const uint32_t y_at = ocm.take(sn * B * H * kF16Bytes);
    pl.note_ocm(tile, ocm);
    for (int64_t d = parts[t].first; d < parts[t].second; ++d) {
      const uint32_t wts = pl.weights_binding();
      pl.dma_in(tile, wts, p.w_off + d * gh * I * kF16Bytes, w_at, gh * I * kF16Bytes);
      pl.dma_in(tile, wts, p.wb_off + d * gh * kF32Bytes, wb_at, gh * kF32Bytes);
      pl.dma_in(tile, wts, p.r_off + d * gh * H * kF16Bytes, r_at, gh * H * kF16Bytes);
      pl.dma_in(tile, wts, p.rb_off + d * gh * kF32Bytes, rb_at, gh * kF32Bytes);
      auto state_in = [&](int64_t off, int in, uint32_t at) {
        if (off >= 0) pl.dma_in(tile, wts, off + d * state_bytes, at, state_bytes);
        else pl.dma_in(tile, pl.binding(pl.in(in)), pl.ddr_base(pl.in(in)) + d * state_bytes, at, state_bytes);
      };
      state_in(p.h0_off, p.h0_in, h_at);
      if (lstm) state_in(p.c0_off, p.c0_in, c_at);
      const bool rev = p.reverse || d == 1;
      for_each_chunk(T, sc, rev, [&](int64_t t0, int64_t s) {
        pl.count_pass();
        pl.dma_in(tile, pl.binding(x), pl.ddr_base(x) + t0 * B * I * kF16Bytes, x_at, s * B * I * kF16Bytes);
        mlip_matmul_args m{};
        m.a = x_at;
        m.b = w_at;
        m.bias = wb_at;
        m.out = xp_at;
        m.batch = 1;
        m.m = u32(s * B);
        m.k = u32(I);
        m.n = u32(gh);
        m.b_shared = 1;
        m.trans_b = 1;
        m.alpha = 1.0f;
        m.act = MLIP_ACT_NONE;
        m.dtype = MLIP_DT_FP16;
        pl.emit(MLIP_OP_MATMUL, tile, m);
        mlip_rnn_args a = rnn_args(p, {r_at, rb_at, h_at, c_at, y_at, work_at}, s, rev);
        a.xp = xp_at;
        a.dtype = MLIP_DT_FP16;
        pl.emit(MLIP_OP_RNN, tile, a);
        // Y [seq][dirs][batch][hidden]: the chunk's steps at direction d.
        pl.dma_out(tile, pl.binding(y), pl.ddr_base(y) + (t0 * D + d) * state_bytes, y_at, s, state_bytes,
                   D * state_bytes, state_bytes);
      });
      // The final cell state after Y (step seq of the layer's output).
      if (p.with_c) pl.dma_out(tile, pl.binding(y), pl.ddr_base(y) + (T * D + d) * state_bytes, c_at, state_bytes);
    }
  }
}

// 8-bit: per direction fp32 W, B (Wb, Rb), R and state in OCM, then per
// chunk of steps the 8-bit X rows in, one RNN command (the projections
// inside it), the 8-bit Y rows out at their direction's place.
void plan_q8(LayerPlanner& pl) {
  const RLayer& l = pl.layer();
  const RnnParams& p = params_of<RnnParams>(l);
  const RTensor& x = pl.in(0);
  const RTensor& y = pl.out();
  const bool lstm = p.cell == MLIP_RNN_LSTM;
  const int64_t gh = p.gh(), H = p.hidden, B = p.batch, I = p.input, T = p.seq, D = p.dirs;
  const uint64_t fixed = q8_fixed_bytes(gh, I, H, B, lstm);
  const int64_t sc = largest(T, [&](int64_t s) { return fixed + q8_chunk_bytes(s, I, H, B) <= pl.work_limit(); });
  if (sc == 0) fail("layer '{}' does not fit OCM", l.name);
  const auto parts = split_range(D, pl.num_tiles());
  pl.set_split(Split::Channels, parts);  // directions
  const int64_t state_bytes = B * H * kF32Bytes, row_bytes = B * H;  // fp32 state, 8-bit Y rows
  for (size_t t = 0; t < parts.size(); ++t) {
    const int tile = static_cast<int>(t);
    Ocm ocm(pl.work_limit());
    const uint32_t w_at = ocm.take(gh * I * kF32Bytes), b_at = ocm.take(2 * gh * kF32Bytes);
    const uint32_t r_at = ocm.take(gh * H * kF32Bytes);
    const uint32_t h_at = ocm.take(state_bytes), c_at = lstm ? ocm.take(state_bytes) : MLIP_NO_OFFSET;
    const uint32_t work_at = ocm.take((gh + H) * kF32Bytes);
    const int64_t sn = std::min(sc, T);
    const uint32_t x_at = ocm.take(sn * B * I), y_at = ocm.take(sn * row_bytes);
    pl.note_ocm(tile, ocm);
    for (int64_t d = parts[t].first; d < parts[t].second; ++d) {
      const uint32_t wts = pl.weights_binding();
      pl.dma_in(tile, wts, p.w_off + d * gh * I * kF32Bytes, w_at, gh * I * kF32Bytes);
      pl.dma_in(tile, wts, p.wb_off + d * 2 * gh * kF32Bytes, b_at, 2 * gh * kF32Bytes);
      pl.dma_in(tile, wts, p.r_off + d * gh * H * kF32Bytes, r_at, gh * H * kF32Bytes);
      pl.dma_in(tile, wts, p.h0_off + d * state_bytes, h_at, state_bytes);
      if (lstm) pl.dma_in(tile, wts, p.c0_off + d * state_bytes, c_at, state_bytes);
      const bool rev = p.reverse || d == 1;
      for_each_chunk(T, sc, rev, [&](int64_t t0, int64_t s) {
        pl.count_pass();
        pl.dma_in(tile, pl.binding(x), pl.ddr_base(x) + t0 * B * I, x_at, s * B * I);
        mlip_rnn_args a = rnn_args(p, {r_at, b_at, h_at, c_at, y_at, work_at}, s, rev);
        a.xp = x_at;
        a.w = w_at;
        a.input = u32(I);
        a.x_scale = p.x_scale;
        a.x_zp = p.x_zp;
        a.y_scale = p.y_scale;
        a.y_zp = p.y_zp;
        a.dtype = l.dtype;
        pl.emit(MLIP_OP_RNN, tile, a);
        // Y [seq][dirs][batch][hidden]: the chunk's steps at direction d.
        pl.dma_out(tile, pl.binding(y), pl.ddr_base(y) + (t0 * D + d) * row_bytes, y_at, s, row_bytes,
                   D * row_bytes, row_bytes);
      });
    }
  }
}

// Y_h [dirs, batch, hidden]: direction d's row of Y at its last step (seq
// - 1 forward, 0 reversed); Y_c: row seq of the RNN layer's output (the
// final cell states); one DMA in and one out per direction.
void plan_state(LayerPlanner& pl) {
  const StateCopy& sc = params_of<StateCopy>(pl.layer());
  const RnnParams& p = sc.rnn;
  const RTensor& y = pl.in(0);
  const RTensor& yh = pl.out();
  const int64_t state_bytes = p.batch * p.hidden * kF16Bytes;
  const auto parts = split_range(p.dirs, pl.num_tiles());
  pl.set_split(Split::Channels, parts);  // directions
  for (size_t t = 0; t < parts.size(); ++t) {
    const int tile = static_cast<int>(t);
    Ocm ocm(pl.work_limit());
    const uint32_t at = ocm.take(state_bytes);
    pl.note_ocm(tile, ocm);
    for (int64_t d = parts[t].first; d < parts[t].second; ++d) {
      const int64_t last = sc.cell ? p.seq : p.reverse || d == 1 ? 0 : p.seq - 1;
      pl.count_pass();
      pl.dma_in(tile, pl.binding(y), pl.ddr_base(y) + (last * p.dirs + d) * state_bytes, at, state_bytes);
      pl.dma_out(tile, pl.binding(yh), pl.ddr_base(yh) + d * state_bytes, at, state_bytes);
    }
  }
}

void json_of(const RnnParams& p, nlohmann::json& a) {
  a["cell"] = p.cell == MLIP_RNN_LSTM ? "LSTM" : "GRU";
  a["direction"] = p.dirs == 2 ? "bidirectional" : p.reverse ? "reverse" : "forward";
  a["seq_length"] = p.seq;
  a["batch"] = p.batch;
  a["input_size"] = p.input;
  a["hidden_size"] = p.hidden;
  if (p.cell == MLIP_RNN_GRU) a["linear_before_reset"] = p.lbr ? 1 : 0;
}
void json(const RLayer& l, nlohmann::json& a) { json_of(params_of<RnnParams>(l), a); }
void json_state(const RLayer& l, nlohmann::json& a) {
  const StateCopy& sc = params_of<StateCopy>(l);
  json_of(sc.rnn, a);
  a["output"] = sc.cell ? "Y_c" : "Y_h";
}

}  // namespace rnn_layer

extern const LayerKind kRnn = {MLIP_LAYER_RNN, "rnn", "RNN", "mrvl.rnn", {"LSTM", "GRU"},
                               /*fuses_activation=*/false, rnn_layer::support, rnn_layer::lower, rnn_layer::plan,
                               nullptr, rnn_layer::json};
// Y_h, lowered by kRnn's lowering.
extern const LayerKind kRnnState = {MLIP_LAYER_RNN_STATE, "rnn_state", "RNN_state", "mrvl.rnn_state", {},
                                    /*fuses_activation=*/false, nullptr, nullptr, rnn_layer::plan_state, nullptr,
                                    rnn_layer::json_state};

}  // namespace mlipc::mlip::layers
