// RNN, GRU, LSTM: shape rules, reference kernel on hand-computed cases, and
// the generated C against the reference (bit for bit, the packed and the
// portable kernel alike) over
// directions, layouts, optional inputs and outputs, clip, every activation.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <cmath>
#include <random>

#include "frontend/onnx_import.h"
#include "support/error.h"
#include "testlib/suite_mode.h"
#include "testlib/model_runner.h"
#include "testlib/onnx_builder.h"
#include "testlib/tensors.h"

namespace mlipc::unit_ops_recurrent {
namespace {

namespace fs = std::filesystem;
using ::testing::HasSubstr;
using test::floats;
using test::ints;
using test::OnnxBuilder;
using test::random_tensor;
using Attr = std::pair<std::string, AttrValue>;
using strings = std::vector<std::string>;

int gates_of(const std::string& op) { return op == "RNN" ? 1 : op == "GRU" ? 3 : 4; }

// One recurrent node; inputs named x, w, r, b, lens, h0, c0, p; `present`
// lists the optional ones given (as initializers unless listed in
// `runtime`); outputs y, yh, yc ("" drops one).
struct Node {
  std::string op = "RNN";
  int64_t seq = 3, batch = 2, input = 2, hidden = 3, dirs = 1;
  bool batch_major = false;
  std::vector<std::string> present;  // of b, lens, h0, c0, p
  std::vector<std::string> outputs = {"y", "yh"};
  std::vector<Attr> attrs;
  bool weights_input = false;  // W and R as model inputs: the reference kernel (recurrent.c), not the packed one
};

Shape state_shape(const Node& n) {
  return n.batch_major ? Shape{n.batch, n.dirs, n.hidden} : Shape{n.dirs, n.batch, n.hidden};
}

// Adds node `n` (names suffixed with `tag`) to `m`: x and lens are model
// inputs (their values go to `in`), the rest initializers.
void add_node(OnnxBuilder& m, const Node& n, const std::string& tag, io::NamedTensors& in, uint32_t seed) {
  const int64_t g = gates_of(n.op);
  auto has = [&](const std::string& s) { return std::find(n.present.begin(), n.present.end(), s) != n.present.end(); };
  const Shape x = n.batch_major ? Shape{n.batch, n.seq, n.input} : Shape{n.seq, n.batch, n.input};
  m.input("x" + tag, DType::Float32, x);
  in.emplace_back("x" + tag, random_tensor(DType::Float32, x, seed, -2.0, 2.0));
  const Shape ws = {n.dirs, g * n.hidden, n.input}, rs = {n.dirs, g * n.hidden, n.hidden};
  // W and R uniform in +-1/sqrt(hidden), torch's initialization: with
  // [-1, 1] a recurrence of 145 units is chaotic, and a difference of one
  // ulp in a gate grows to the whole range of the output within the
  // sequence (no bound but 0 would hold against the reference).
  const double k = 1.0 / std::sqrt(static_cast<double>(n.hidden));
  const TensorData w = random_tensor(DType::Float32, ws, seed + 1, -k, k),
                   r = random_tensor(DType::Float32, rs, seed + 2, -k, k);
  if (n.weights_input) {
    m.input("w" + tag, DType::Float32, ws);
    m.input("r" + tag, DType::Float32, rs);
    in.emplace_back("w" + tag, w);
    in.emplace_back("r" + tag, r);
  } else {
    m.initializer("w" + tag, w);
    m.initializer("r" + tag, r);
  }
  std::vector<std::string> ins = {"x" + tag, "w" + tag, "r" + tag};
  auto opt = [&](const std::string& name, const Shape& s, uint32_t sd) {
    if (!has(name)) {
      ins.push_back("");
      return;
    }
    ins.push_back(name + tag);
    if (name == "lens") {
      m.input(name + tag, DType::Int32, s);
      in.emplace_back(name + tag, random_tensor(DType::Int32, s, sd, 0, static_cast<double>(n.seq)));
    } else {
      m.initializer(name + tag, random_tensor(DType::Float32, s, sd));
    }
  };
  opt("b", {n.dirs, 2 * g * n.hidden}, seed + 3);
  opt("lens", {n.batch}, seed + 4);
  opt("h0", state_shape(n), seed + 5);
  if (n.op == "LSTM") {
    opt("c0", state_shape(n), seed + 6);
    opt("p", {n.dirs, 3 * n.hidden}, seed + 7);
  }
  while (!ins.empty() && ins.back().empty()) ins.pop_back();
  std::vector<Attr> attrs = n.attrs;
  attrs.push_back({"hidden_size", n.hidden});
  if (n.batch_major) attrs.push_back({"layout", int64_t{1}});
  std::vector<std::string> outs;
  for (const std::string& o : n.outputs) outs.push_back(o.empty() ? "" : o + tag);
  m.node(n.op, ins, outs, attrs);
  for (const std::string& o : outs)
    if (!o.empty()) m.output(o);
}

fs::path one_node(const std::string& name, const Node& n, io::NamedTensors& in, uint32_t seed = 1) {
  OnnxBuilder m(n.batch_major ? 14 : 17);
  add_node(m, n, "", in, seed);
  return m.save(test::scratch_dir(), "rec_" + name + ".onnx");
}

std::string import_error(const Node& n, const std::string& name) {
  io::NamedTensors in;
  try {
    frontend::import_onnx(one_node(name, n, in));
  } catch (const Error& e) {
    return e.what();
  }
  return "";
}

TEST(Recurrent, ShapeRule) {
  io::NamedTensors in;
  Node n;
  n.op = "LSTM";
  n.dirs = 2;
  n.outputs = {"y", "yh", "yc"};
  n.attrs = {{"direction", std::string("bidirectional")}};
  Graph g = frontend::import_onnx(one_node("shape_lstm", n, in));
  EXPECT_EQ(g.value(g.outputs[0].value).shape, (Shape{3, 2, 2, 3}));  // [seq, dirs, batch, hidden]
  EXPECT_EQ(g.value(g.outputs[1].value).shape, (Shape{2, 2, 3}));
  EXPECT_EQ(g.value(g.outputs[2].value).shape, (Shape{2, 2, 3}));
  Node b;
  b.op = "GRU";
  b.batch_major = true;
  b.seq = 4;
  Graph gb = frontend::import_onnx(one_node("shape_gru_layout", b, in));
  EXPECT_EQ(gb.value(gb.outputs[0].value).shape, (Shape{2, 4, 1, 3}));  // [batch, seq, dirs, hidden]
  EXPECT_EQ(gb.value(gb.outputs[1].value).shape, (Shape{2, 1, 3}));
}

TEST(Recurrent, ShapeRuleErrors) {
  Node n;
  n.attrs = {{"direction", std::string("bidirectional")}};
  EXPECT_THAT(import_error(n, "e_dirs"), HasSubstr("input W has shape [1,3,2]; with direction bidirectional"));
  n.attrs = {{"direction", std::string("sideways")}};
  EXPECT_THAT(import_error(n, "e_dir"), HasSubstr("direction 'sideways' is not one of"));
  n.attrs = {{"activations", strings{"Tanh", "Tanh"}}};
  EXPECT_THAT(import_error(n, "e_nacts"), HasSubstr("activations has 2 names; RNN with direction forward needs 1"));
  n.attrs = {{"activations", strings{"Swish"}}};
  EXPECT_THAT(import_error(n, "e_act"), HasSubstr("activation 'Swish' is not one of"));
  n.attrs = {{"activation_alpha", floats{0.5f}}};
  EXPECT_THAT(import_error(n, "e_alpha"), HasSubstr("have more values than the activations Tanh take"));
  n.attrs = {{"clip", 0.0f}};
  EXPECT_THAT(import_error(n, "e_clip"), HasSubstr("clip 0 must be positive"));
  n.attrs = {{"layout", int64_t{2}}};
  EXPECT_THAT(import_error(n, "e_layout"), HasSubstr("layout is 2; it must be 0 or 1"));
  n.attrs = {{"linear_before_reset", int64_t{1}}};
  EXPECT_THAT(import_error(n, "e_lbr"), HasSubstr("linear_before_reset is a GRU attribute"));
  n.attrs = {};
  Node g = n;
  g.op = "GRU";
  g.attrs = {{"input_forget", int64_t{1}}};
  EXPECT_THAT(import_error(g, "e_if"), HasSubstr("input_forget is an LSTM attribute"));
  // hidden_size disagreeing with W and R.
  OnnxBuilder m;
  m.input("x", DType::Float32, {3, 2, 2});
  m.initializer("w", TensorData(DType::Float32, {1, 4, 2}));
  m.initializer("r", TensorData(DType::Float32, {1, 4, 4}));
  m.initializer("b", TensorData(DType::Float32, {1, 4}));
  m.node("RNN", {"x", "w", "r", "b"}, {"y"}, {{"hidden_size", int64_t{4}}});
  m.output("y");
  try {
    frontend::import_onnx(m.save(test::scratch_dir(), "rec_e_bias.onnx"));
    ADD_FAILURE() << "no error";
  } catch (const Error& e) {
    EXPECT_THAT(e.what(), HasSubstr("input B has shape [1,4]; it must be [1,8]"));
  }
  // A constant sequence length out of range.
  OnnxBuilder l;
  l.input("x", DType::Float32, {3, 2, 2});
  l.initializer("w", TensorData(DType::Float32, {1, 4, 2}));
  l.initializer("r", TensorData(DType::Float32, {1, 4, 4}));
  l.initializer("lens", TensorData::from<int32_t>({2}, {3, 4}));
  l.node("RNN", {"x", "w", "r", "", "lens"}, {"y"}, {});
  l.output("y");
  try {
    frontend::import_onnx(l.save(test::scratch_dir(), "rec_e_lens.onnx"));
    ADD_FAILURE() << "no error";
  } catch (const Error& e) {
    EXPECT_THAT(e.what(), HasSubstr("sequence_lens holds 4; every length must lie in [0, 3]"));
  }
}

// A model with one node on scalars (batch 1, input 1, hidden 1): x [3, 1, 1].
fs::path scalar_model(const std::string& name, const std::string& op, const floats& w, const floats& r,
                      const floats* b, const std::vector<Attr>& attrs, const std::vector<std::string>& outs,
                      int64_t seq = 3, const std::vector<int32_t>* lens = nullptr) {
  OnnxBuilder m;
  const int64_t g = gates_of(op);
  m.input("x", DType::Float32, {seq, 1, 1});
  m.initializer("w", TensorData::from<float>({1, g, 1}, w));
  m.initializer("r", TensorData::from<float>({1, g, 1}, r));
  std::vector<std::string> ins = {"x", "w", "r"};
  if (b) {
    m.initializer("b", TensorData::from<float>({1, 2 * g}, *b));
    ins.push_back("b");
  }
  if (lens) {
    if (!b) ins.push_back("");
    m.initializer("lens", TensorData::from<int32_t>({1}, *lens));
    ins.push_back("lens");
  }
  m.node(op, ins, outs, attrs);
  for (const auto& o : outs)
    if (!o.empty()) m.output(o);
  return m.save(test::scratch_dir(), "rec_" + name + ".onnx");
}

std::vector<float> values(const TensorData& t) { return std::vector<float>(t.data<float>(), t.data<float>() + t.numel()); }

TEST(Recurrent, ReferenceRnnByHand) {
  // Relu makes it exact: h = relu(2x + 0.5h + 1).
  const floats b = {1, 0};
  const std::vector<Attr> relu = {{"activations", strings{"Relu"}}, {"hidden_size", int64_t{1}}};
  TensorData x = TensorData::from<float>({3, 1, 1}, {1, 2, 3});
  auto run = [&](const std::string& name, std::vector<Attr> attrs, const std::vector<int32_t>* lens = nullptr) {
    return test::reference_run(scalar_model(name, "RNN", {2}, {0.5f}, &b, attrs, {"y", "yh"}, 3, lens), {{"x", x}});
  };
  auto fwd = run("rnn_fwd", relu);
  EXPECT_EQ(values(fwd[0].second), (floats{3, 6.5f, 10.25f}));
  EXPECT_EQ(values(fwd[1].second), (floats{10.25f}));
  std::vector<Attr> rev = relu;
  rev.push_back({"direction", std::string("reverse")});
  auto bwd = run("rnn_rev", rev);
  EXPECT_EQ(values(bwd[0].second), (floats{7.25f, 8.5f, 7}));
  EXPECT_EQ(values(bwd[1].second), (floats{7.25f}));
  // sequence_lens 2: Y is zero past the end, Y_h is the state after step 1;
  // reversed, the sequence starts at step 1.
  const std::vector<int32_t> two = {2};
  auto cut = run("rnn_len", relu, &two);
  EXPECT_EQ(values(cut[0].second), (floats{3, 6.5f, 0}));
  EXPECT_EQ(values(cut[1].second), (floats{6.5f}));
  auto cut_rev = run("rnn_len_rev", rev, &two);
  EXPECT_EQ(values(cut_rev[0].second), (floats{5.5f, 5, 0}));  // h(1) = relu(4 + 1) = 5, h(0) = relu(2 + 2.5 + 1)
  EXPECT_EQ(values(cut_rev[1].second), (floats{5.5f}));
  // Clip bounds the pre-activation.
  std::vector<Attr> clipped = relu;
  clipped.push_back({"clip", 4.0f});
  EXPECT_EQ(values(run("rnn_clip", clipped)[0].second), (floats{3, 4, 4}));
  // ThresholdedRelu keeps values above alpha only (3 itself becomes 0), as the operator.
  const std::vector<Attr> thr = {{"activations", strings{"ThresholdedRelu"}},
                                 {"activation_alpha", floats{3.0f}},
                                 {"hidden_size", int64_t{1}}};
  EXPECT_EQ(values(run("rnn_thr", thr)[0].second), (floats{0, 5, 9.5f}));
}

TEST(Recurrent, ReferenceGruByHand) {
  // z = r = 0.5 (Affine with alpha 0, beta 0.5), g = Relu.
  const std::vector<Attr> acts = {{"activations", strings{"Affine", "Relu"}},
                                  {"activation_alpha", floats{0.0f}},
                                  {"activation_beta", floats{0.5f}},
                                  {"hidden_size", int64_t{1}}};
  TensorData x = TensorData::from<float>({2, 1, 1}, {1, 2});
  // No bias: h1 = 0.5 * relu(2) = 1; h2 = 0.5 * relu(4 + (0.5 * 1) * 2) + 0.5 * 1 = 3.
  auto plain = test::reference_run(scalar_model("gru_plain", "GRU", {1, 1, 2}, {0, 0, 2}, nullptr, acts, {"y"}, 2),
                                    {{"x", x}});
  EXPECT_EQ(values(plain[0].second), (floats{1, 3}));
  // Bias Wbh 1, Rbh 4: linear_before_reset 0 adds both before the reset
  // gate's product, 1 multiplies Rbh by r.
  const floats b = {0, 0, 1, 0, 0, 4};
  TensorData x1 = TensorData::from<float>({1, 1, 1}, {1});
  auto lbr0 = test::reference_run(scalar_model("gru_lbr0", "GRU", {1, 1, 2}, {0, 0, 2}, &b, acts, {"y"}, 1),
                                  {{"x", x1}});
  EXPECT_EQ(values(lbr0[0].second), (floats{3.5f}));  // 0.5 * relu(2 + 0 + 5)
  std::vector<Attr> lbr = acts;
  lbr.push_back({"linear_before_reset", int64_t{1}});
  auto lbr1 = test::reference_run(scalar_model("gru_lbr1", "GRU", {1, 1, 2}, {0, 0, 2}, &b, lbr, {"y"}, 1),
                                  {{"x", x1}});
  EXPECT_EQ(values(lbr1[0].second), (floats{2.5f}));  // 0.5 * relu(2 + 1 + 0.5 * (0 + 4))
}

TEST(Recurrent, ReferenceLstmByHand) {
  // Gates 0.5 (Affine 0, 0.5), g = h = Relu; W: i o f 1, c 2; R zero.
  const std::vector<Attr> acts = {{"activations", strings{"Affine", "Relu", "Relu"}},
                                  {"activation_alpha", floats{0.0f}},
                                  {"activation_beta", floats{0.5f}},
                                  {"hidden_size", int64_t{1}}};
  TensorData x = TensorData::from<float>({2, 1, 1}, {1, 2});
  auto r = test::reference_run(
      scalar_model("lstm_hand", "LSTM", {1, 1, 1, 2}, {0, 0, 0, 0}, nullptr, acts, {"y", "yh", "yc"}, 2),
      {{"x", x}});
  EXPECT_EQ(values(r[0].second), (floats{0.5f, 1.25f}));  // c1 = 0.5 * 2 = 1, c2 = 0.5 * 1 + 0.5 * 4 = 2.5
  EXPECT_EQ(values(r[1].second), (floats{1.25f}));
  EXPECT_EQ(values(r[2].second), (floats{2.5f}));
  // input_forget: f = 1 - i = 0.5 as well: the same numbers.
  std::vector<Attr> coupled = acts;
  coupled.push_back({"input_forget", int64_t{1}});
  auto rc = test::reference_run(
      scalar_model("lstm_coupled", "LSTM", {1, 1, 1, 2}, {0, 0, 0, 0}, nullptr, coupled, {"y"}, 2), {{"x", x}});
  EXPECT_EQ(values(rc[0].second), (floats{0.5f, 1.25f}));
}

// The generated C sums every gate in the reference's chains of fused
// multiply-adds, in the reference's order, with the same float sigmoid and
// tanh (mlip/kmath_f.h): the same bits, through any number of steps.
constexpr double kAtol = 0, kRtol = 0;

// Runs the model of `nodes` through the generated C and the reference,
// expects the same bits and returns the C's.
io::NamedTensors expect_c_matches(const std::string& name, const std::vector<Node>& nodes, uint32_t seed) {
  SCOPED_TRACE(name);
  OnnxBuilder m(14);
  io::NamedTensors in;
  for (size_t k = 0; k < nodes.size(); ++k)
    add_node(m, nodes[k], "_" + std::to_string(k), in, seed + 10 * static_cast<uint32_t>(k));
  const fs::path p = m.save(test::scratch_dir(), "rec_c_" + name + ".onnx");
  const io::NamedTensors want = test::reference_run(p, in), got = test::compile_and_run(p, in);
  EXPECT_EQ(got.size(), want.size());
  for (size_t i = 0; i < got.size() && i < want.size(); ++i) {
    EXPECT_EQ(got[i].first, want[i].first);
    EXPECT_EQ(test::compare(got[i].second, want[i].second, kRtol, kAtol), "") << "output '" << want[i].first << "'";
  }
  return got;
}

TEST(Recurrent, GeneratedCMatchesReferenceDefaults) {
  Node rnn, gru, lstm;
  gru.op = "GRU";
  lstm.op = "LSTM";
  lstm.outputs = {"y", "yh", "yc"};
  expect_c_matches("defaults", {rnn, gru, lstm}, 1);
}

TEST(Recurrent, GeneratedCMatchesReferenceEveryInput) {
  std::vector<Node> nodes;
  for (const char* op : {"RNN", "GRU", "LSTM"}) {
    Node n;
    n.op = op;
    n.dirs = 2;
    n.seq = 4;
    n.batch = 3;
    n.present = {"b", "lens", "h0", "c0", "p"};
    n.outputs = {"y", "yh"};
    if (n.op == "LSTM") n.outputs.push_back("yc");
    n.attrs = {{"direction", std::string("bidirectional")}, {"clip", 0.75f}};
    nodes.push_back(n);
  }
  nodes[1].attrs.push_back({"linear_before_reset", int64_t{1}});
  expect_c_matches("every_input", nodes, 2);
}

TEST(Recurrent, GeneratedCMatchesReferenceLayoutAndOmittedOutputs) {
  Node a, b, c;
  a.op = "LSTM";
  a.batch_major = true;
  a.present = {"b", "h0"};
  a.outputs = {"", "", "yc"};  // Y and Y_h omitted
  a.attrs = {{"direction", std::string("reverse")}, {"input_forget", int64_t{1}}};
  b.op = "GRU";
  b.batch_major = true;
  b.dirs = 2;
  b.present = {"lens", "h0"};
  b.outputs = {"", "yh"};
  b.attrs = {{"direction", std::string("bidirectional")}};
  c.op = "RNN";
  c.batch_major = true;
  c.outputs = {"y"};
  c.attrs = {{"direction", std::string("reverse")}};
  expect_c_matches("layout_omitted", {a, b, c}, 3);
}

TEST(Recurrent, GeneratedCMatchesReferenceEveryActivation) {
  // Each activation as f of an RNN, with and without alpha/beta, in one model.
  const std::vector<std::pair<std::string, std::vector<Attr>>> acts = {
      {"Relu", {}},
      {"Tanh", {}},
      {"Sigmoid", {}},
      {"Affine", {{"activation_alpha", floats{0.7f}}, {"activation_beta", floats{-0.2f}}}},
      {"Affine", {}},
      {"LeakyRelu", {{"activation_alpha", floats{0.3f}}}},
      {"LeakyRelu", {}},
      {"ThresholdedRelu", {{"activation_alpha", floats{0.25f}}}},
      {"ThresholdedRelu", {}},
      {"ScaledTanh", {{"activation_alpha", floats{1.5f}}, {"activation_beta", floats{0.5f}}}},
      {"HardSigmoid", {{"activation_alpha", floats{0.3f}}, {"activation_beta", floats{0.4f}}}},
      {"HardSigmoid", {}},
      {"Elu", {{"activation_alpha", floats{0.8f}}}},
      {"Softsign", {}},
      {"Softplus", {}},
  };
  std::vector<Node> nodes;
  for (const auto& [act, params] : acts) {
    Node n;
    n.present = {"b"};
    n.outputs = {"y"};
    n.attrs = params;
    n.attrs.push_back({"activations", strings{act}});
    nodes.push_back(n);
  }
  expect_c_matches("activations", nodes, 4);
  // GRU and LSTM with non-default activations per direction (alpha/beta
  // consumed in order by the activations that take them).
  Node g, l;
  g.op = "GRU";
  g.dirs = 2;
  g.attrs = {{"direction", std::string("bidirectional")},
             {"activations", strings{"HardSigmoid", "Elu", "sigmoid", "softsign"}},
             {"activation_alpha", floats{0.25f, 0.5f}},
             {"activation_beta", floats{0.45f}}};
  l.op = "LSTM";
  l.present = {"b", "p"};
  l.outputs = {"y", "yh", "yc"};
  l.attrs = {{"activations", strings{"HardSigmoid", "ScaledTanh", "Softplus"}},
             {"activation_alpha", floats{0.2f, 0.9f}},
             {"activation_beta", floats{0.5f, 1.1f}}};
  expect_c_matches("cell_activations", {g, l}, 5);
}

// Random configurations, a few seeds, several nodes per model.
TEST(Recurrent, GeneratedCMatchesReferenceRandomized) {
  const strings all_acts = {"Relu", "Tanh", "Sigmoid", "Affine", "LeakyRelu", "ThresholdedRelu",
                            "ScaledTanh", "HardSigmoid", "Elu", "Softsign", "Softplus"};
  for (uint32_t seed = 1; seed <= 3; ++seed) {
    std::mt19937 rng(seed);
    auto pick = [&](int lo, int hi) { return std::uniform_int_distribution<int>(lo, hi)(rng); };
    std::vector<Node> nodes;
    for (const char* op : {"RNN", "GRU", "LSTM"}) {
      Node n;
      n.op = op;
      n.seq = pick(1, 5);
      n.batch = pick(1, 3);
      n.input = pick(1, 5);
      n.hidden = pick(1, 6);
      const int dir = pick(0, 2);
      n.dirs = dir == 2 ? 2 : 1;
      n.batch_major = pick(0, 1) == 1;
      for (const char* o : {"b", "lens", "h0", "c0", "p"})
        if (pick(0, 1)) n.present.push_back(o);
      const int funcs = n.op == "RNN" ? 1 : n.op == "GRU" ? 2 : 3;
      strings acts;
      floats alphas, betas;
      for (int k = 0; k < funcs * n.dirs; ++k) acts.push_back(all_acts[static_cast<size_t>(pick(0, 10))]);
      for (int k = 0; k < pick(0, 3); ++k) alphas.push_back(0.25f * static_cast<float>(pick(1, 6)));
      for (int k = 0; k < pick(0, 2); ++k) betas.push_back(0.25f * static_cast<float>(pick(-2, 2)));
      n.attrs = {{"direction", std::string(dir == 0 ? "forward" : dir == 1 ? "reverse" : "bidirectional")},
                 {"activations", acts}};
      // Only as many alpha/beta values as the activations take.
      int take_a = 0, take_b = 0;
      for (const auto& a : acts) {
        take_a += a == "Affine" || a == "LeakyRelu" || a == "ThresholdedRelu" || a == "ScaledTanh" ||
                  a == "HardSigmoid" || a == "Elu";
        take_b += a == "Affine" || a == "ScaledTanh" || a == "HardSigmoid";
      }
      alphas.resize(std::min<size_t>(alphas.size(), static_cast<size_t>(take_a)));
      betas.resize(std::min<size_t>(betas.size(), static_cast<size_t>(take_b)));
      if (!alphas.empty()) n.attrs.push_back({"activation_alpha", alphas});
      if (!betas.empty()) n.attrs.push_back({"activation_beta", betas});
      if (pick(0, 1)) n.attrs.push_back({"clip", 0.5f * static_cast<float>(pick(1, 4))});
      if (n.op == "GRU" && pick(0, 1)) n.attrs.push_back({"linear_before_reset", int64_t{1}});
      if (n.op == "LSTM" && pick(0, 1)) n.attrs.push_back({"input_forget", int64_t{1}});
      const int outs = pick(0, 2);
      n.outputs = outs == 0 ? strings{"y"} : outs == 1 ? strings{"", "yh"} : strings{"y", "yh"};
      if (n.op == "LSTM" && pick(0, 1)) n.outputs = {"y", "", "yc"};
      nodes.push_back(n);
    }
    expect_c_matches("rand" + std::to_string(seed), nodes, 100 * seed);
  }
}

// The packed kernel (recurrent_packed.c: constant W and R) at sizes the
// small cases above do not reach: hidden sizes around and across the
// 16-row blocks and R's groups of 2 blocks (a GEMV pass's spans of
// groups, in the reverse order every other step), odd input sizes, long sequences, bidirectional layers with
// initial states and sequence lengths, every torch layout; and the same
// nodes with W and R computed at run time (the portable kernel,
// recurrent.c). Both sum in the reference's order, with the same float
// sigmoid and tanh: the reference's bits.
TEST(Recurrent, PackedKernelMatchesReferenceLargeRandomized) {
  // One seed by default, three with MLIPC_TEST_FULL=1 (testlib/suite_mode.h).
  const uint32_t seeds = test::full_suite() ? 3u : 1u;
  for (uint32_t seed = 1; seed <= seeds; ++seed) {
    std::mt19937 rng(seed);
    auto pick = [&](int lo, int hi) { return std::uniform_int_distribution<int>(lo, hi)(rng); };
    std::vector<Node> nodes;
    for (const char* op : {"RNN", "GRU", "LSTM", "GRU", "LSTM"}) {
      Node n;
      n.op = op;
      n.seq = pick(20, 48);
      n.batch = pick(1, 3);
      n.input = 2 * pick(1, 12) + 1;
      // 145: ten 16-row blocks, five groups of 2 (spans of two groups and
      // one); 65 and 97: five and seven blocks, a last group of one.
      n.hidden = std::vector<int64_t>{1, 15, 16, 17, 31, 33, 40, 65, 97, 145}[static_cast<size_t>(pick(0, 9))];
      n.dirs = 2;
      n.batch_major = pick(0, 1) == 1;
      n.present = {"b", "h0", "c0"};
      if (pick(0, 1)) n.present.push_back("lens");
      if (n.op == "LSTM" && pick(0, 1)) n.present.push_back("p");
      n.outputs = {"y", "yh"};
      if (n.op == "LSTM") n.outputs.push_back("yc");
      n.attrs = {{"direction", std::string("bidirectional")}};
      if (n.op == "GRU") n.attrs.push_back({"linear_before_reset", int64_t{pick(0, 1)}});
      if (pick(0, 3) == 0) n.attrs.push_back({"clip", 1.5f});
      nodes.push_back(n);
    }
    nodes[static_cast<size_t>(seed % 5)].hidden = 145;  // one in every model
    // And one of three sequences with their lengths: the batch's rows go
    // side by side through the step's GEMV, each leaving it at its length.
    Node& nb = nodes[static_cast<size_t>((seed + 2) % 5)];
    nb.batch = 3;
    if (std::find(nb.present.begin(), nb.present.end(), "lens") == nb.present.end()) nb.present.push_back("lens");
    const io::NamedTensors packed = expect_c_matches("large" + std::to_string(seed), nodes, 1000 * seed);
    for (Node& n : nodes) n.weights_input = true;
    const io::NamedTensors portable = expect_c_matches("large_runtime_w" + std::to_string(seed), nodes, 1000 * seed);
    // The two kernels: the same operations in the same order, the bits.
    ASSERT_EQ(packed.size(), portable.size());
    for (size_t i = 0; i < packed.size(); ++i)
      EXPECT_EQ(test::compare(packed[i].second, portable[i].second, 0.0, 0.0), "") << "output '" << packed[i].first << "'";
  }
}

// Inputs wider than a slice of the projection's chain (384 inputs at most
// on every vector width: the chain stored and taken up again) and a long
// sequence (300 steps), in both kernels: the reference's bits.
TEST(Recurrent, PackedKernelSlicesWideInputsAndLongSequences) {
  std::vector<Node> nodes;
  for (const char* op : {"LSTM", "GRU", "RNN"}) {
    Node n;
    n.op = op;
    n.seq = 5;
    n.batch = 3;
    n.input = 401;
    n.hidden = 21;
    n.dirs = 2;
    n.present = {"b", "lens", "h0", "c0", "p"};
    n.outputs = {"y", "yh"};
    n.attrs = {{"direction", std::string("bidirectional")}};
    if (n.op == "GRU") n.attrs.push_back({"linear_before_reset", int64_t{1}});
    nodes.push_back(n);
  }
  Node l;
  l.op = "GRU";
  l.seq = 300;
  l.input = 7;
  l.hidden = 33;
  l.present = {"b", "h0"};
  l.outputs = {"y", "yh"};
  l.attrs = {{"direction", std::string("reverse")}};
  nodes.push_back(l);
  const io::NamedTensors packed = expect_c_matches("wide", nodes, 77);
  for (Node& n : nodes) n.weights_input = true;
  expect_c_matches("wide_runtime_w", nodes, 77);
  EXPECT_FALSE(packed.empty());
}

// A sequence length outside [0, seq_length] at run time: the kernel
// returns an error, and the reference says why.
TEST(Recurrent, SequenceLengthOutOfRangeAtRunTime) {
  Node n;
  n.present = {"lens"};
  io::NamedTensors in;
  fs::path p = one_node("lens_bad", n, in);
  for (auto& [name, t] : in)
    if (name == "lens") t = TensorData::from<int32_t>({2}, {1, 4});
  EXPECT_THROW(test::compile_and_run(p, in), Error);
  try {
    test::reference_run(p, in);
    ADD_FAILURE() << "no error";
  } catch (const Error& e) {
    EXPECT_THAT(e.what(), HasSubstr("sequence_lens[1] is 4; every length must lie in [0, 3]"));
  }
}

// Opset 1's output_sequence attribute says nothing about the values: it is dropped.
TEST(Recurrent, Opset1OutputSequenceIsDropped) {
  OnnxBuilder m(1);
  m.input("x", DType::Float32, {3, 2, 2});
  m.initializer("w", TensorData(DType::Float32, {1, 12, 2}));
  m.initializer("r", TensorData(DType::Float32, {1, 12, 3}));
  m.node("LSTM", {"x", "w", "r"}, {"y"}, {{"hidden_size", int64_t{3}}, {"output_sequence", int64_t{1}}});
  m.output("y");
  Graph g = frontend::import_onnx(m.save(test::scratch_dir(), "rec_opset1.onnx"));
  EXPECT_FALSE(g.nodes[0].attrs.has("output_sequence"));
  EXPECT_EQ(g.value(g.outputs[0].value).shape, (Shape{3, 1, 2, 3}));
}

// The state lives in the kernel's scratch: an arena buffer live at the
// node's step only, placed apart from the tensors live there.
TEST(Recurrent, ScratchIsAnArenaBufferOfItsStep) {
  Node n;
  n.op = "LSTM";
  n.hidden = 5;
  io::NamedTensors in;
  driver::CompileResult r = driver::compile_model(one_node("scratch", n, in), {});
  const auto& bufs = r.module.liveness.buffers;
  auto it = std::find_if(bufs.begin(), bufs.end(), [](const memory::Buffer& b) {
    return b.name.size() > 8 && b.name.compare(b.name.size() - 8, 8, ":scratch") == 0;
  });
  ASSERT_NE(it, bufs.end());
  // The packed kernel's: the projections of one direction [seq * batch][4
  // gates * 16 rows] (5 rounded up to a 16-row block), the gate sums
  // [batch][4 * 16], h and c [batch][16], the projections' starting values
  // [4 * 16].
  EXPECT_EQ(it->size, ((3u * 2u + 2u + 1u) * 4u * 16u + 2u * 2u * 16u) * sizeof(float));
  EXPECT_EQ(it->first, it->last);
  const size_t k = static_cast<size_t>(it - bufs.begin());
  for (size_t j = 0; j < bufs.size(); ++j) {
    if (j == k || bufs[j].last < it->first || bufs[j].first > it->last) continue;
    const size_t a = r.module.plan.offsets[k], b = r.module.plan.offsets[j];
    EXPECT_TRUE(a + it->size <= b || b + bufs[j].size <= a) << bufs[j].name;
  }
}

}  // namespace
}  // namespace mlipc::unit_ops_recurrent
