// RNN, GRU, LSTM: one template per algorithm with the cell chosen by
// sections; sizes, layout strides, clip and the activations baked in. The
// hidden and cell state live in the kernel's arena scratch. Constant W and
// R go through recurrent_packed.c (packed here per direction and gate into
// 16-row blocks: the input projections of every step as one GEMM, the
// recurrence as a GEMV per step); weights computed at run time through
// recurrent.c, the portable reference. Both sum in the reference's order,
// chains of fused multiply-adds (ops/recurrent.cpp; mlip_fmaf, MLIP_VFMAS
// in mlip/kfma.h and kvec.h); their Sigmoid and Tanh (ScaledTanh's tanh too) are
// mlip/kmath_f.h's float-precision functions, as the reference's: its bits.
#include <algorithm>
#include <memory>

#include <fmt/format.h>

#include "c/kernels/kernels.h"
#include "ops/recurrent.h"
#include "support/error.h"

namespace mlipc::c::kernels {

namespace {

using Act = ops::RecurrentActivation;

// The body of `static float act(float v)`: the same expressions, in the same
// order, as RecurrentActivation::apply (ops/recurrent.cpp), tanh and sigmoid
// in float precision (mlip/kmath_f.h).
std::string activation_body(const Act& a) {
  const std::string A = c_float(a.alpha), B = c_float(a.beta);
  switch (a.kind) {
    case Act::Relu: return "return v <= 0.0f ? 0.0f : v;";  // a NaN stays NaN
    case Act::Tanh: return "return mlip_tanh_f(v);";
    case Act::Sigmoid: return "return mlip_sigmoid_f(v);";
    case Act::Affine: return fmt::format("return {} * v + {};", A, B);
    case Act::LeakyRelu: return fmt::format("return v >= 0.0f ? v : {} * v;", A);
    case Act::ThresholdedRelu: return fmt::format("return v > {} ? v : 0.0f;", A);
    case Act::ScaledTanh: return fmt::format("return {} * mlip_tanh_f({} * v);", A, B);
    case Act::HardSigmoid:
      return fmt::format("float t = {} * v + {}; t = t > 0.0f ? t : 0.0f; return t < 1.0f ? t : 1.0f;", A, B);
    case Act::Elu: return fmt::format("return v >= 0.0f ? v : {} * mlip_expm1f(v);", A);
    case Act::Softsign: return "return v / (1.0f + fabsf(v));";
    case Act::Softplus: return "return v > 0.0f ? v + mlip_log1pf(mlip_expf(-v)) : mlip_log1pf(mlip_expf(v));";
  }
  fail("internal: unknown recurrent activation");
}

// w [DIRS, G * H, K] per direction and gate as HP / 16 blocks of 16 rows,
// HP = H rounded up to 16, padding rows 0; the blocks in groups of `group`
// (the last one of a gate may be shorter), a group stored [K][its
// blocks][16]: the rows of a group side by side for each k. W goes as
// groups of one block ([block][K][16], what the projection GEMM reads), R
// as groups of 4 or 2 (a GEMV pass reads each of its groups as one run of
// memory in order, and a tile of rows one group: recurrent_packed.c).
std::shared_ptr<const TensorData> pack_rows(const TensorData& w, int64_t dirs, int64_t gates, int64_t h, int64_t k,
                                            int64_t group) {
  const int64_t hp = (h + 15) / 16 * 16, nb = hp / 16;
  auto t = std::make_shared<TensorData>(DType::Float32, Shape{dirs * gates * hp * k});
  const float* src = w.data<float>();
  float* dst = t->data<float>();
  for (int64_t d = 0; d < dirs; ++d)
    for (int64_t g = 0; g < gates; ++g)
      for (int64_t j = 0; j < h; ++j) {
        const int64_t blk = j / 16, g0 = blk / group * group, nbk = std::min(group, nb - g0);
        float* gate = dst + (d * gates + g) * hp * k;
        for (int64_t p = 0; p < k; ++p)
          gate[g0 * 16 * k + (p * nbk + blk - g0) * 16 + j % 16] = src[((d * gates + g) * h + j) * k + p];
      }
  return t;
}

void prepare_recurrent(const Graph& g, const Node& n, KernelSpec& spec, ops::RecurrentConfig::Cell cell) {
  for (int i : {0, 1, 2, 3, 5, 6, 7})
    if (n.has_input(static_cast<size_t>(i))) expect_float(g, n, i);
  if (n.has_input(4)) expect_dtype(g, n, 4, {DType::Int32});
  const ops::RecurrentConfig c = ops::resolve_recurrent(cell, n.attrs, g.value(n.inputs[0]).shape,
                                                        g.value(n.inputs[1]).shape, g.value(n.inputs[2]).shape);
  const bool lstm = cell == ops::RecurrentConfig::Lstm;
  const Value& wv = g.value(n.inputs[1]);
  const Value& rv = g.value(n.inputs[2]);
  const bool packed = wv.is_constant() && rv.is_constant() && c.seq * c.batch * c.hidden * c.input > 0;
  const int64_t hp = (c.hidden + 15) / 16 * 16;
  spec.template_name = packed ? "recurrent_packed.c" : "recurrent.c";
  spec.set("HP", hp);
  spec.set("GHP", c.gates * hp);
  spec.set_flag("rnn", cell == ops::RecurrentConfig::Rnn);
  spec.set_flag("gru", cell == ops::RecurrentConfig::Gru);
  spec.set_flag("lstm", lstm);
  spec.set("T", c.seq);
  spec.set("BATCH", c.batch);
  spec.set("I", c.input);
  spec.set("H", c.hidden);
  spec.set("G", c.gates);
  spec.set("DIRS", c.dirs);
  spec.set("FUNCS", c.funcs);
  spec.set("GH", c.gates * c.hidden);
  spec.set("GHI", c.gates * c.hidden * c.input);
  spec.set("GHH", c.gates * c.hidden * c.hidden);
  // Element strides of X (step, batch), Y (step, direction, batch) and the states (direction, batch).
  const int64_t H = c.hidden;
  spec.set("XT", c.batch_major ? c.input : c.batch * c.input);
  spec.set("XB", c.batch_major ? c.seq * c.input : c.input);
  spec.set("YT", c.batch_major ? c.dirs * H : c.dirs * c.batch * H);
  spec.set("YD", c.batch_major ? H : c.batch * H);
  spec.set("YB", c.batch_major ? c.seq * c.dirs * H : H);
  spec.set("SD", c.batch_major ? H : c.batch * H);
  spec.set("SB", c.batch_major ? c.dirs * H : H);
  spec.set("REVERSE", c.reverse ? 1 : 0);
  spec.set_flag("has_clip", c.has_clip);
  spec.set("clip", c_float(c.clip));
  spec.set("neg_clip", c_float(-c.clip));
  spec.set_flag("input_forget", c.input_forget);
  spec.set_flag("lbr", c.linear_before_reset);
  std::vector<TemplateData> acts;
  for (size_t k = 0; k < c.acts.size(); ++k) {
    TemplateData d;
    d.set("k", std::to_string(k));
    d.set("body", activation_body(c.acts[k]));
    // Sigmoid and Tanh over a gate's rows at once (mlip/kmath_f.h's array
    // forms: loops the compiler vectorizes, the same bits as `body`).
    const bool vec = c.acts[k].kind == Act::Sigmoid || c.acts[k].kind == Act::Tanh;
    d.set("vector", TemplateData(vec ? TemplateData::type::bool_true : TemplateData::type::bool_false));
    d.set("vec_fn", c.acts[k].kind == Act::Sigmoid ? "mlip_sigmoid_f_n" : "mlip_tanh_f_n");
    acts.push_back(d);
  }
  spec.set_list("acts", acts);

  spec.args = packed ? std::vector<int>{0} : std::vector<int>{0, 1, 2};
  auto optional = [&](int i, const char* flag) {
    const bool on = n.has_input(static_cast<size_t>(i)) && (lstm || i < 6);
    spec.set_flag(flag, on);
    if (on) spec.args.push_back(i);
  };
  optional(3, "has_bias");
  optional(4, "has_lens");
  optional(5, "has_h0");
  optional(6, "has_c0");
  optional(7, "has_p");
  if (n.outputs.empty()) fail("internal: the node has no outputs");
  spec.set_flag("has_yh", n.outputs.size() > 1);
  spec.set_flag("has_yc", n.outputs.size() > 2);
  if (n.has_input(4)) {
    spec.returns_status = true;
    spec.includes = {"mlip/status.h"};
  }
  spec.includes.push_back("mlip/kmath_f.h");
  if (packed) {
    spec.packed.push_back(pack_rows(*wv.constant, c.dirs, c.gates, H, c.input, 1));
    // R's groups: 4 blocks for one sequence (a pass of 4 blocks, AVX2's
    // and NEON's, reads one run), 2 for a batch (a tile of rows by 2
    // blocks, AVX2's, reads one run; stop 51: with groups of 4, H = 128,
    // one sequence, 4% faster; with 2, batches of 3 and 4, 12-19%).
    const int64_t rgroup = c.batch > 1 ? 2 : 4;
    spec.set("RG", rgroup);
    spec.packed.push_back(pack_rows(*rv.constant, c.dirs, c.gates, H, H, rgroup));
    spec.includes.push_back("mlip/kvec.h");
    // One direction's projections [T * BATCH][G * HP], the gate sums
    // [BATCH][G * HP], h and c (or GRU's r * h) [BATCH][HP] (the batch's
    // sequences go side by side, one GEMV over R per step), the
    // projections' starting values [G * HP] and linear_before_reset's
    // third gate's [HP].
    spec.scratch_bytes = static_cast<size_t>((c.seq * c.batch + c.batch + 1) * c.gates * hp + 2 * c.batch * hp +
                                             (c.linear_before_reset ? 1 : 0) * hp) *
                         sizeof(float);
  } else {
    spec.includes.push_back("mlip/kfma.h");
    // h, c, the next h, and GRU's z, r and r * h: six rows of H floats.
    spec.scratch_bytes = static_cast<size_t>(6 * H) * sizeof(float);
  }
}

}  // namespace

void prepare_RNN(const Graph& g, const Node& n, KernelSpec& spec) {
  prepare_recurrent(g, n, spec, ops::RecurrentConfig::Rnn);
}
void prepare_GRU(const Graph& g, const Node& n, KernelSpec& spec) {
  prepare_recurrent(g, n, spec, ops::RecurrentConfig::Gru);
}
void prepare_LSTM(const Graph& g, const Node& n, KernelSpec& spec) {
  prepare_recurrent(g, n, spec, ops::RecurrentConfig::Lstm);
}

}  // namespace mlipc::c::kernels
