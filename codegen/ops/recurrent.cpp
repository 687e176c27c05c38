// RNN, GRU, LSTM: shape rules and the reference kernel (float32).
//
// Inputs X, W, R, B, sequence_lens, initial_h (and for LSTM initial_c, P);
// outputs Y, Y_h (and for LSTM Y_c), any of which may be omitted. Per
// direction and batch entry the cell runs over the first sequence_lens[b]
// steps (backwards for a reversed direction: from step len - 1 down to 0);
// Y is zero at the steps after len, and Y_h / Y_c hold the state after the
// last step run (the initial state when len is 0). A sequence length outside
// [0, seq_length] is an error (the C kernel returns MLIP_ERR_INVALID_ARG).
//
// Summation order, shared with templates/kernels/recurrent.c and
// recurrent_packed.c: every gate pre-activation of hidden unit j is one
// chain of fused multiply-adds (fma: one rounding, ops/fma.h, mlip_fmaf)
//   s = Wb_j + Rb_j (0 without B); s = fma(x_p, W_jp, s) for p in index order;
//   s = fma(h_k, R_jk, s) for k in index order; [LSTM: s = s + P_j * c]
// then the clip (when the attribute is set) and the activation. Cells:
//   RNN:  h = f(s)
//   GRU:  z = f(s_z), r = f(s_r);
//         linear_before_reset = 0: s_h is the chain over x, then over r * h
//         linear_before_reset = 1: sx = the chain from Wbh_j over x, sr = the chain from Rbh_j over h,
//                                  s_h = sx + r_j * sr
//         h_j = (1 - z_j) * g(s_h) + z_j * h_j
//   LSTM: i = f(s_i + P_i c), f = f(s_f + P_f c) (or 1 - i with input_forget), c~ = g(s_c),
//         c_j = f * c_j + i * c~, o = f(s_o + P_o c_j), h_j = o * h(c_j)
// Only the chains are fused; the gate arithmetic multiplies and adds apart.
#include "ops/recurrent.h"

#include <algorithm>
#include <cctype>
#include <cmath>
#include <map>

#include "ops/activation.h"
#include "ops/fma.h"
#include "ops/ops.h"
#include "mlip/kmath.h"
#include "mlip/kmath_f.h"
#include "support/error.h"

namespace mlipc::ops {

namespace {

using Act = RecurrentActivation;

struct ActInfo {
  Act::Kind kind;
  bool alpha, beta;   // takes alpha / beta
  float def_alpha, def_beta;
};

const std::map<std::string, ActInfo>& activation_table() {
  static const std::map<std::string, ActInfo> t = {
      {"relu", {Act::Relu, false, false, 0.0f, 0.0f}},
      {"tanh", {Act::Tanh, false, false, 0.0f, 0.0f}},
      {"sigmoid", {Act::Sigmoid, false, false, 0.0f, 0.0f}},
      {"affine", {Act::Affine, true, true, 1.0f, 0.0f}},
      {"leakyrelu", {Act::LeakyRelu, true, false, 0.01f, 0.0f}},
      {"thresholdedrelu", {Act::ThresholdedRelu, true, false, 1.0f, 0.0f}},
      {"scaledtanh", {Act::ScaledTanh, true, true, 1.0f, 1.0f}},
      {"hardsigmoid", {Act::HardSigmoid, true, true, 0.2f, 0.5f}},
      {"elu", {Act::Elu, true, false, 1.0f, 0.0f}},
      {"softsign", {Act::Softsign, false, false, 0.0f, 0.0f}},
      {"softplus", {Act::Softplus, false, false, 0.0f, 0.0f}},
  };
  return t;
}

const char* cell_name(RecurrentConfig::Cell c) {
  return c == RecurrentConfig::Rnn ? "RNN" : c == RecurrentConfig::Gru ? "GRU" : "LSTM";
}

std::vector<std::string> strings_attr(const Attrs& a, const std::string& name) {
  if (!a.has(name)) return {};
  const auto* v = std::get_if<std::vector<std::string>>(&a.all().at(name));
  if (!v) fail("attribute {} must be a list of strings", name);
  return *v;
}

}  // namespace

float RecurrentActivation::apply(float v) const {
  switch (kind) {
    case Relu: return Activation::relu(v);
    case Tanh: return mlip_tanh_f(v);
    case Sigmoid: return mlip_sigmoid_f(v);
    case Affine: return alpha * v + beta;
    case LeakyRelu: return v >= 0.0f ? v : alpha * v;
    case ThresholdedRelu: return v > alpha ? v : 0.0f;  // as the ThresholdedRelu operator and onnxruntime
    case ScaledTanh: return alpha * mlip_tanh_f(beta * v);
    case HardSigmoid: {
      float t = alpha * v + beta;
      t = t > 0.0f ? t : 0.0f;
      return t < 1.0f ? t : 1.0f;
    }
    case Elu: return v >= 0.0f ? v : alpha * mlip_expm1f(v);
    case Softsign: return v / (1.0f + std::fabs(v));
    case Softplus: return v > 0.0f ? v + mlip_log1pf(mlip_expf(-v)) : mlip_log1pf(mlip_expf(v));
  }
  return v;
}

RecurrentConfig resolve_recurrent(RecurrentConfig::Cell cell, const Attrs& attrs, const Shape& x, const Shape& w,
                                  const Shape& r) {
  RecurrentConfig c;
  c.cell = cell;
  c.gates = cell == RecurrentConfig::Rnn ? 1 : cell == RecurrentConfig::Gru ? 3 : 4;
  c.funcs = cell == RecurrentConfig::Rnn ? 1 : cell == RecurrentConfig::Gru ? 2 : 3;

  const int64_t layout = attrs.get_int("layout", 0);
  if (layout != 0 && layout != 1) fail("attribute layout is {}; it must be 0 or 1", layout);
  c.batch_major = layout == 1;
  const std::string direction = attrs.get_string("direction", "forward");
  if (direction != "forward" && direction != "reverse" && direction != "bidirectional")
    fail("attribute direction '{}' is not one of forward, reverse, bidirectional", direction);
  c.reverse = direction == "reverse";
  c.dirs = direction == "bidirectional" ? 2 : 1;

  if (x.size() != 3)
    fail("input X has shape {}; it must be {}", shape_str(x),
         c.batch_major ? "[batch_size, seq_length, input_size] (layout 1)" : "[seq_length, batch_size, input_size]");
  c.seq = x[c.batch_major ? 1 : 0];
  c.batch = x[c.batch_major ? 0 : 1];
  c.input = x[2];
  if (r.size() != 3) fail("input R has shape {}; it must be [num_directions, {} * hidden_size, hidden_size]",
                          shape_str(r), c.gates);
  c.hidden = attrs.get_int("hidden_size", r[2]);
  if (c.hidden < 1) fail("attribute hidden_size {} must be positive", c.hidden);
  const Shape want_w = {c.dirs, c.gates * c.hidden, c.input};
  const Shape want_r = {c.dirs, c.gates * c.hidden, c.hidden};
  if (w != want_w)
    fail("input W has shape {}; with direction {}, hidden_size {} and input_size {} it must be {}", shape_str(w),
         direction, c.hidden, c.input, shape_str(want_w));
  if (r != want_r)
    fail("input R has shape {}; with direction {} and hidden_size {} it must be {}", shape_str(r), direction,
         c.hidden, shape_str(want_r));

  if (attrs.has("clip")) {
    c.has_clip = true;
    c.clip = attrs.get_float("clip");
    if (!(c.clip > 0.0f)) fail("attribute clip {} must be positive", c.clip);
  }
  const int64_t input_forget = attrs.get_int("input_forget", 0);
  if (input_forget != 0 && input_forget != 1) fail("attribute input_forget is {}; it must be 0 or 1", input_forget);
  if (input_forget && cell != RecurrentConfig::Lstm) fail("attribute input_forget is an LSTM attribute");
  c.input_forget = input_forget == 1;
  const int64_t lbr = attrs.get_int("linear_before_reset", 0);
  if (lbr != 0 && lbr != 1) fail("attribute linear_before_reset is {}; it must be 0 or 1", lbr);
  if (lbr && cell != RecurrentConfig::Gru) fail("attribute linear_before_reset is a GRU attribute");
  c.linear_before_reset = lbr == 1;

  std::vector<std::string> names = strings_attr(attrs, "activations");
  if (names.empty()) {
    static const char* defaults[3][3] = {{"Tanh"}, {"Sigmoid", "Tanh"}, {"Sigmoid", "Tanh", "Tanh"}};
    for (int64_t d = 0; d < c.dirs; ++d)
      for (int f = 0; f < c.funcs; ++f) names.push_back(defaults[c.funcs - 1][f]);
  } else if (c.dirs == 2 && static_cast<int>(names.size()) == c.funcs) {
    names.insert(names.end(), names.begin(), names.end());  // one list for both directions (as onnxruntime)
  }
  if (static_cast<int64_t>(names.size()) != c.dirs * c.funcs)
    fail("attribute activations has {} names; {} with direction {} needs {}", names.size(), cell_name(cell),
         direction, c.dirs * c.funcs);
  const std::vector<float> alphas = attrs.get_floats("activation_alpha", {});
  const std::vector<float> betas = attrs.get_floats("activation_beta", {});
  size_t ai = 0, bi = 0;
  for (const std::string& name : names) {
    std::string key = name;
    std::transform(key.begin(), key.end(), key.begin(), [](unsigned char ch) { return std::tolower(ch); });
    auto it = activation_table().find(key);
    if (it == activation_table().end())
      fail("activation '{}' is not one of Relu, Tanh, Sigmoid, Affine, LeakyRelu, ThresholdedRelu, ScaledTanh, "
           "HardSigmoid, Elu, Softsign, Softplus", name);
    const ActInfo& info = it->second;
    Act a;
    a.kind = info.kind;
    a.alpha = info.alpha && ai < alphas.size() ? alphas[ai++] : info.def_alpha;
    a.beta = info.beta && bi < betas.size() ? betas[bi++] : info.def_beta;
    c.acts.push_back(a);
  }
  if (ai < alphas.size() || bi < betas.size())
    fail("attributes activation_alpha ({} values) and activation_beta ({} values) have more values than the "
         "activations {} take ({} and {})", alphas.size(), betas.size(), fmt::join(names, ","), ai, bi);
  return c;
}

namespace {

// Input and output positions in the two layouts.
struct Layout {
  const RecurrentConfig& c;
  int64_t x(int64_t t, int64_t b) const { return (c.batch_major ? b * c.seq + t : t * c.batch + b) * c.input; }
  int64_t y(int64_t t, int64_t d, int64_t b) const {
    return (c.batch_major ? (b * c.seq + t) * c.dirs + d : (t * c.dirs + d) * c.batch + b) * c.hidden;
  }
  int64_t state(int64_t d, int64_t b) const { return (c.batch_major ? b * c.dirs + d : d * c.batch + b) * c.hidden; }
};

RecurrentConfig::Cell cell_of(const std::string& op) {
  return op == "RNN" ? RecurrentConfig::Rnn : op == "GRU" ? RecurrentConfig::Gru : RecurrentConfig::Lstm;
}

void infer_recurrent(InferContext& ctx) {
  const RecurrentConfig::Cell cell = cell_of(ctx.node().op);
  const bool lstm = cell == RecurrentConfig::Lstm;
  ctx.expect_inputs(3, lstm ? 8 : 6);
  if (ctx.num_outputs() > (lstm ? 3 : 2))
    fail("expects at most {} outputs, got {}", lstm ? 3 : 2, ctx.num_outputs());
  for (int i : {0, 1, 2, 3, 5, 6, 7})
    if (i < ctx.num_inputs() && ctx.has_input(i)) ctx.expect_dtype(i, {DType::Float32});
  const RecurrentConfig c = resolve_recurrent(cell, ctx.attrs(), ctx.in_shape(0), ctx.in_shape(1), ctx.in_shape(2));
  const int64_t g = c.gates, h = c.hidden;
  const Shape state = c.batch_major ? Shape{c.batch, c.dirs, h} : Shape{c.dirs, c.batch, h};
  auto expect_shape = [&](int i, const Shape& want, const char* what) {
    if (i < ctx.num_inputs() && ctx.has_input(i) && ctx.in_shape(i) != want)
      fail("input {} has shape {}; it must be {}", what, shape_str(ctx.in_shape(i)), shape_str(want));
  };
  expect_shape(3, {c.dirs, 2 * g * h}, "B");
  expect_shape(4, {c.batch}, "sequence_lens");
  expect_shape(5, state, "initial_h");
  if (lstm) {
    expect_shape(6, state, "initial_c");
    expect_shape(7, {c.dirs, 3 * h}, "P");
  }
  if (ctx.num_inputs() > 4 && ctx.has_input(4)) {
    ctx.expect_dtype(4, {DType::Int32});
    if (const TensorData* lens = ctx.in_const(4))
      for (int64_t v : lens->as_int64())
        if (v < 0 || v > c.seq) fail("sequence_lens holds {}; every length must lie in [0, {}]", v, c.seq);
  }
  const Shape y = c.batch_major ? Shape{c.batch, c.seq, c.dirs, h} : Shape{c.seq, c.dirs, c.batch, h};
  for (int i = 0; i < ctx.num_outputs(); ++i) ctx.set_output(i, DType::Float32, i == 0 ? y : state);
}

void eval_recurrent(EvalContext& ctx) {
  const RecurrentConfig::Cell cell = cell_of(ctx.node.op);
  const TensorData& xt = ctx.in(0);
  const RecurrentConfig c = resolve_recurrent(cell, ctx.attrs(), xt.shape(), ctx.in(1).shape(), ctx.in(2).shape());
  const Layout at{c};
  const int64_t G = c.gates, H = c.hidden, I = c.input;
  auto opt = [&](int i) { return ctx.has_input(i) ? ctx.in(i).data<float>() : nullptr; };
  const float* x = xt.data<float>();
  const float* W = ctx.in(1).data<float>();
  const float* R = ctx.in(2).data<float>();
  const float* B = opt(3);
  const int32_t* lens = ctx.has_input(4) ? ctx.in(4).data<int32_t>() : nullptr;
  const float* h0 = opt(5);
  const float* c0 = cell == RecurrentConfig::Lstm ? opt(6) : nullptr;
  const float* P = cell == RecurrentConfig::Lstm ? opt(7) : nullptr;
  auto out = [&](size_t i) -> float* {
    return i < ctx.outputs.size() && ctx.outputs[i].dtype() != DType::Undefined ? ctx.outputs[i].data<float>()
                                                                                : nullptr;
  };
  float* Y = out(0);
  float* Yh = out(1);
  float* Yc = out(2);
  auto clip = [&](float s) {
    if (!c.has_clip) return s;
    return s < -c.clip ? -c.clip : (s > c.clip ? c.clip : s);
  };

  std::vector<float> h(H), cs(H), hn(H), z(H), r(H), rh(H);
  for (int64_t d = 0; d < c.dirs; ++d) {
    const float* Wd = W + d * G * H * I;
    const float* Rd = R + d * G * H * H;
    const float* Wb = B ? B + d * 2 * G * H : nullptr;
    const float* Rb = B ? Wb + G * H : nullptr;
    const float* Pd = P ? P + d * 3 * H : nullptr;
    const RecurrentActivation* act = &c.acts[static_cast<size_t>(d * c.funcs)];
    // The pre-activation of gate row `row` (gate * H + j) before the peephole.
    auto pre = [&](const float* xv, const float* hv, int64_t row) {
      const float s = B ? Wb[row] + Rb[row] : 0.0f;
      return fma_dot(fma_dot(s, xv, 1, Wd + row * I, 1, I), hv, 1, Rd + row * H, 1, H);
    };
    for (int64_t b = 0; b < c.batch; ++b) {
      const int64_t len = lens ? lens[b] : c.seq;
      if (len < 0 || len > c.seq)
        fail("sequence_lens[{}] is {}; every length must lie in [0, {}]", b, len, c.seq);
      for (int64_t j = 0; j < H; ++j) {
        h[j] = h0 ? h0[at.state(d, b) + j] : 0.0f;
        cs[j] = c0 ? c0[at.state(d, b) + j] : 0.0f;
      }
      for (int64_t s = 0; s < len; ++s) {
        const int64_t t = c.reversed(d) ? len - 1 - s : s;
        const float* xv = x + at.x(t, b);
        if (cell == RecurrentConfig::Rnn) {
          for (int64_t j = 0; j < H; ++j) hn[j] = act[0].apply(clip(pre(xv, h.data(), j)));
        } else if (cell == RecurrentConfig::Gru) {
          for (int64_t j = 0; j < H; ++j) z[j] = act[0].apply(clip(pre(xv, h.data(), j)));
          for (int64_t j = 0; j < H; ++j) r[j] = act[0].apply(clip(pre(xv, h.data(), H + j)));
          for (int64_t j = 0; j < H; ++j) rh[j] = r[j] * h[j];
          for (int64_t j = 0; j < H; ++j) {
            const int64_t row = 2 * H + j;
            float sh;
            if (c.linear_before_reset) {
              const float sx = fma_dot(B ? Wb[row] : 0.0f, xv, 1, Wd + row * I, 1, I);
              const float sr = fma_dot(B ? Rb[row] : 0.0f, h.data(), 1, Rd + row * H, 1, H);
              sh = sx + r[j] * sr;
            } else {
              sh = pre(xv, rh.data(), row);
            }
            const float hh = act[1].apply(clip(sh));
            hn[j] = (1.0f - z[j]) * hh + z[j] * h[j];
          }
        } else {
          for (int64_t j = 0; j < H; ++j) {
            float si = pre(xv, h.data(), j);
            if (Pd) si = si + Pd[j] * cs[j];
            const float ig = act[0].apply(clip(si));
            float fg;
            if (c.input_forget) {
              fg = 1.0f - ig;
            } else {
              float sf = pre(xv, h.data(), 2 * H + j);
              if (Pd) sf = sf + Pd[2 * H + j] * cs[j];
              fg = act[0].apply(clip(sf));
            }
            const float cg = act[1].apply(clip(pre(xv, h.data(), 3 * H + j)));
            cs[j] = fg * cs[j] + ig * cg;
            float so = pre(xv, h.data(), H + j);
            if (Pd) so = so + Pd[H + j] * cs[j];
            const float og = act[0].apply(clip(so));
            hn[j] = og * act[2].apply(cs[j]);
          }
        }
        h = hn;
        if (Y) std::copy(h.begin(), h.end(), Y + at.y(t, d, b));
      }
      if (Y)
        for (int64_t t = len; t < c.seq; ++t) std::fill(Y + at.y(t, d, b), Y + at.y(t, d, b) + H, 0.0f);
      if (Yh) std::copy(h.begin(), h.end(), Yh + at.state(d, b));
      if (Yc) std::copy(cs.begin(), cs.end(), Yc + at.state(d, b));
    }
  }
}

}  // namespace

void infer_RNN(InferContext& ctx) { infer_recurrent(ctx); }
void eval_RNN(EvalContext& ctx) { eval_recurrent(ctx); }
void infer_GRU(InferContext& ctx) { infer_recurrent(ctx); }
void eval_GRU(EvalContext& ctx) { eval_recurrent(ctx); }
void infer_LSTM(InferContext& ctx) { infer_recurrent(ctx); }
void eval_LSTM(EvalContext& ctx) { eval_recurrent(ctx); }

// Every time step of every sequence and direction multiplies the input by W
// [dirs, gates * hidden, input] and the state by R [dirs, gates * hidden,
// hidden]: numel(W) + numel(R) products per (step, sequence) pair, which
// are X's rows (either layout). The gates' elementwise work is not counted.
uint64_t recurrent_macs(const Graph& g, const Node& n) {
  if (n.inputs.size() < 3 || !n.has_input(0) || !n.has_input(1) || !n.has_input(2)) return 0;
  const Shape& x = g.value(n.inputs[0]).shape;
  if (x.empty() || x.back() == 0) return 0;
  const uint64_t rows = static_cast<uint64_t>(numel(x) / x.back());
  return rows * static_cast<uint64_t>(numel(g.value(n.inputs[1]).shape) + numel(g.value(n.inputs[2]).shape));
}

}  // namespace mlipc::ops
