// LSTM and GRU on the MLIP (issue 30, item 8; layers/rnn.cpp, the RNN
// command): small recurrent layers built here, compiled with
// --target "mrvl, c" and nothing else, run on the simulator and compared
// with the reference evaluator (fp32): forward, reverse and bidirectional,
// GRU linear_before_reset 0 and 1, one step and several, initial states
// absent, constant or computed, with and without B, Y_h and Y_c read; the same bits on
// every tiling of tests/e2e/models.h's tilings(); the forms that stay on the CPU
// with their reason; and a damaged RNN command of a compiled buffer
// refused by the validator. The suite's recurrent models run through
// mlip_test.cpp's MlipGeneratedModels (fp16 bound, tilings).
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstring>

#include <fmt/format.h>

#include "driver/compile.h"
#include "mlip/cmdbuf.h"
#include "mlip/region.h"
#include "models.h"
#include "ops/op.h"
#include "support/file_util.h"
#include "testlib/model_runner.h"
#include "testlib/onnx_builder.h"
#include "testlib/reference.h"
#include "testlib/tensors.h"

namespace fs = std::filesystem;
using ::testing::HasSubstr;

namespace mlipc::test::e2e_mlip_rnn {
namespace {


// How a case gives its initial states.
enum class State { Absent, Constant, Computed };

struct RnnCase {
  std::string name;
  std::string op;         // LSTM, GRU
  std::string direction;  // forward, reverse, bidirectional
  int64_t seq, batch, input, hidden;
  int lbr = 0;  // GRU
  State state = State::Absent;
  bool bias = true;
  bool yh = false;  // Y_h read too (an RNN_STATE layer)
  bool yc = false;  // Y_c read too (LSTM: the cell states after Y, an RNN_STATE layer)
};
void PrintTo(const RnnCase& c, std::ostream* os) { *os << c.name; }

// x [seq, batch, input] -> op -> Y [seq, dirs, batch, hidden] (and Y_h
// [dirs, batch, hidden] when the case reads it; Y_c unused).
struct Model {
  fs::path onnx;
  io::NamedTensors inputs;
};
Model build(const RnnCase& c, const fs::path& dir) {
  const int64_t dirs = c.direction == "bidirectional" ? 2 : 1, gates = c.op == "LSTM" ? 4 : 3;
  OnnxBuilder b;
  b.input("x", DType::Float32, {c.seq, c.batch, c.input});
  b.initializer("w", random_tensor(DType::Float32, {dirs, gates * c.hidden, c.input}, 1, -0.6, 0.6));
  b.initializer("r", random_tensor(DType::Float32, {dirs, gates * c.hidden, c.hidden}, 2, -0.6, 0.6));
  std::vector<std::string> ins = {"x", "w", "r", c.bias ? "b" : "", ""};
  if (c.bias) b.initializer("b", random_tensor(DType::Float32, {dirs, 2 * gates * c.hidden}, 3, -0.5, 0.5));
  Model m;
  m.inputs.emplace_back("x", random_tensor(DType::Float32, {c.seq, c.batch, c.input}, 4));
  const Shape state = {dirs, c.batch, c.hidden};
  const std::vector<std::string> names = c.op == "LSTM" ? std::vector<std::string>{"h0", "c0"}
                                                        : std::vector<std::string>{"h0"};
  for (size_t k = 0; k < names.size(); ++k) {
    if (c.state == State::Absent) {
      ins.push_back("");
      continue;
    }
    const TensorData v = random_tensor(DType::Float32, state, 5 + static_cast<uint32_t>(k), -0.8, 0.8);
    if (c.state == State::Constant) {
      b.initializer(names[k], v);
    } else {
      b.input(names[k], DType::Float32, state);
      m.inputs.emplace_back(names[k], v);
    }
    ins.push_back(names[k]);
  }
  while (!ins.empty() && ins.back().empty()) ins.pop_back();
  std::vector<std::pair<std::string, AttrValue>> attrs = {{"hidden_size", c.hidden}, {"direction", c.direction}};
  if (c.op == "GRU") attrs.emplace_back("linear_before_reset", static_cast<int64_t>(c.lbr));
  std::vector<std::string> outs = {"y", c.yh ? "yh" : "", c.yc ? "yc" : ""};
  while (outs.back().empty()) outs.pop_back();
  b.node(c.op, ins, outs, attrs, "rnn");
  for (const std::string& o : outs)
    if (!o.empty()) b.output(o);
  m.onnx = b.save(dir);
  return m;
}

class MlipRnn : public ::testing::TestWithParam<RnnCase> {};

// fp16: the inputs, weights, projections and every step's state rounded to
// binary16; the gates in fp32. 6e-3 is about 12 units in the last place of
// an output near 1, the state's roundings over 6 steps with margin.
TEST_P(MlipRnn, RunsOnTheMlipAndMatchesTheReference) {
  const RnnCase& c = GetParam();
  TempDir dir("mlipc-rnn");
  const Model m = build(c, dir.path());
  driver::CompileResult compiled;
  const io::NamedTensors got = compile_and_run(m.onnx, m.inputs, mrvl_options(), &compiled);
  EXPECT_TRUE(compiled.mlip.cpu_nodes.empty()) << c.name << ": " << compiled.mlip.cpu_nodes[0].reason;
  ASSERT_EQ(compiled.mlip.regions.size(), 1u);
  bool rnn_layer = false;
  for (const auto& l : compiled.mlip.regions[0]->report.layers) rnn_layer = rnn_layer || l.kind == "rnn";
  EXPECT_TRUE(rnn_layer) << c.name;
  const io::NamedTensors want = reference_run(m.onnx, m.inputs);
  ASSERT_EQ(got.size(), 1u + (c.yh ? 1u : 0u) + (c.yc ? 1u : 0u));
  for (size_t i = 0; i < got.size(); ++i) EXPECT_EQ(compare(got[i].second, want[i].second, 0, 6e-3), "") << c.name;
  // Y_h is Y's last step of each direction, bit for bit.
  if (c.yh) {
    const int64_t dirs = c.direction == "bidirectional" ? 2 : 1, row = c.batch * c.hidden;
    const float* y = got[0].second.data<float>();
    const float* yh = got[1].second.data<float>();
    for (int64_t d = 0; d < dirs; ++d) {
      const int64_t last = c.direction == "reverse" || d == 1 ? 0 : c.seq - 1;
      EXPECT_TRUE(std::equal(yh + d * row, yh + (d + 1) * row, y + (last * dirs + d) * row)) << c.name << " dir " << d;
    }
  }
}

TEST_P(MlipRnn, BitIdenticalForEveryTileCountAndWeightPlacement) {
  const RnnCase& c = GetParam();
  TempDir dir("mlipc-rnn");
  const Model m = build(c, dir.path());
  const io::NamedTensors one = compile_and_run(m.onnx, m.inputs, mrvl_options(1, false));
  for (const Tiling& t : tilings()) {
    if (t.tiles == 1 && !t.pin) continue;
    const io::NamedTensors got = compile_and_run(m.onnx, m.inputs, mrvl_options(t.tiles, t.pin));
    for (size_t i = 0; i < got.size(); ++i)
      EXPECT_TRUE(got[i].second == one[i].second) << c.name << ": num_tiles=" << t.tiles << " wb_pin_ocm=" << t.pin;
  }
}

INSTANTIATE_TEST_SUITE_P(
    Layers, MlipRnn,
    ::testing::Values(RnnCase{"lstm_forward_one_step", "LSTM", "forward", 1, 2, 3, 4},
                      RnnCase{"lstm_forward_zero_state", "LSTM", "forward", 6, 2, 3, 5},
                      RnnCase{"lstm_reverse_given_states", "LSTM", "reverse", 5, 1, 4, 3, 0, State::Constant},
                      RnnCase{"lstm_bidirectional_computed_states", "LSTM", "bidirectional", 4, 3, 2, 4, 0,
                              State::Computed},
                      RnnCase{"lstm_no_bias", "LSTM", "forward", 3, 1, 2, 2, 0, State::Absent, false},
                      RnnCase{"gru_forward_lbr0", "GRU", "forward", 5, 2, 3, 4, 0},
                      RnnCase{"gru_forward_lbr1_given_state", "GRU", "forward", 5, 2, 3, 4, 1, State::Constant},
                      RnnCase{"gru_bidirectional_lbr1", "GRU", "bidirectional", 4, 2, 3, 5, 1},
                      RnnCase{"gru_reverse_lbr0_computed_no_bias", "GRU", "reverse", 3, 1, 2, 3, 0, State::Computed,
                              false},
                      RnnCase{"lstm_bidirectional_y_h", "LSTM", "bidirectional", 5, 2, 3, 4, 0, State::Constant, true,
                              true},
                      RnnCase{"gru_reverse_y_h", "GRU", "reverse", 4, 1, 3, 5, 1, State::Absent, true, true},
                      RnnCase{"lstm_bidirectional_y_h_y_c", "LSTM", "bidirectional", 4, 2, 3, 4, 0, State::Computed,
                              true, true, true},
                      RnnCase{"lstm_reverse_y_c", "LSTM", "reverse", 3, 1, 2, 3, 0, State::Constant, false, false,
                              true}),
    [](const auto& info) { return info.param.name; });

// What stays on the CPU, and why (inspect prints the same reason).
std::string cpu_reason_of(const std::function<void(OnnxBuilder&)>& add, const std::string& out = "y") {
  TempDir dir("mlipc-rnn");
  OnnxBuilder b;
  b.input("x", DType::Float32, {4, 1, 3});
  b.initializer("w", random_tensor(DType::Float32, {1, 16, 3}, 1));
  b.initializer("r", random_tensor(DType::Float32, {1, 16, 4}, 2));
  add(b);
  b.output(out);
  const driver::CompileResult r = driver::compile_model(b.save(dir.path()), mrvl_options());
  for (const auto& n : r.mlip.cpu_nodes)
    if (n.node == "rnn") return n.reason;
  return "";
}

TEST(MlipRnnRefusals, FormsTheRnnCommandDoesNotComputeStayOnTheCpuWithTheirReason) {
  using A = std::vector<std::pair<std::string, AttrValue>>;
  EXPECT_THAT(cpu_reason_of([](OnnxBuilder& b) {
                b.node("LSTM", {"x", "w", "r"}, {"y"}, A{{"hidden_size", int64_t{4}}, {"clip", 1.0f}}, "rnn");
              }),
              HasSubstr("clip"));
  EXPECT_THAT(cpu_reason_of([](OnnxBuilder& b) {
                b.initializer("p", random_tensor(DType::Float32, {1, 12}, 3));
                b.node("LSTM", {"x", "w", "r", "", "", "", "", "p"}, {"y"}, A{{"hidden_size", int64_t{4}}}, "rnn");
              }),
              HasSubstr("peepholes"));
  EXPECT_THAT(cpu_reason_of([](OnnxBuilder& b) {
                b.node("LSTM", {"x", "w", "r"}, {"y"},
                       A{{"hidden_size", int64_t{4}},
                         {"activations", std::vector<std::string>{"Relu", "Tanh", "Tanh"}}},
                       "rnn");
              }),
              HasSubstr("activations other than the defaults"));
  EXPECT_THAT(cpu_reason_of([](OnnxBuilder& b) {
                b.initializer("sl", TensorData::from<int32_t>({1}, {3}));
                b.node("LSTM", {"x", "w", "r", "", "sl"}, {"y"}, A{{"hidden_size", int64_t{4}}}, "rnn");
              }),
              HasSubstr("sequence_lens other than seq_length 4"));
  EXPECT_THAT(cpu_reason_of([](OnnxBuilder& b) {
                b.node("LSTM", {"x", "w", "r"}, {"y"}, A{{"hidden_size", int64_t{4}}, {"layout", int64_t{1}}}, "rnn");
              }),
              HasSubstr("layout 1"));
  // sequence_lens all equal to seq_length: the MLIP takes it.
  EXPECT_EQ(cpu_reason_of([](OnnxBuilder& b) {
              b.initializer("sl", TensorData::from<int32_t>({1}, {4}));
              b.node("LSTM", {"x", "w", "r", "", "sl"}, {"y"}, A{{"hidden_size", int64_t{4}}}, "rnn");
            }),
            "");
}

// The suite's recurrent models (tests/gen/gen_rnn_models.py: the LSTM and
// GRU classifiers, the LSTM autoencoder, the bidirectional two-layer GRU
// classifier, the CRNN), compiled with --target "mrvl, c" and nothing else:
// at least 95% of their MACs inside MLIP regions (every one of them today),
// at most 2 regions, no recurrent node on the CPU (issue 30's acceptance).
// Their fp16 bound and tilings: mlip_test.cpp's MlipGeneratedModels.
TEST(MlipRnnModels, TheSuitesRecurrentModelsRunOnTheMlip) {
  const char* names[] = {"torch_lstm_classifier_opset13", "torch_gru_classifier_opset17",
                         "torch_lstm_autoencoder_opset17", "torch_gru_bidir2_classifier_opset17", "torch_crnn_opset17"};
  for (const char* name : names) {
    driver::CompileOptions o;
    o.target = "mrvl, c";
    const driver::CompileResult r =
        driver::compile_model(fs::path(MLIPC_TEST_DATA) / "models" / name / "model.onnx", o);
    uint64_t on_mlip = 0, on_cpu = 0;
    for (const auto& region : r.mlip.regions) on_mlip += region->report.macs();
    for (const Node& n : r.graph.nodes)
      if (n.op != kSubgraphOp) on_cpu += node_macs(r.graph, n);
    EXPECT_GE(static_cast<double>(on_mlip), 0.95 * static_cast<double>(on_mlip + on_cpu)) << name;
    EXPECT_LE(r.mlip.regions.size(), 2u) << name;
    for (const auto& c : r.mlip.cpu_nodes) EXPECT_TRUE(c.op != "LSTM" && c.op != "GRU") << name << ": " << c.reason;
    std::printf("%s: MACs on the MLIP %llu of %llu, %zu region(s)\n", name, static_cast<unsigned long long>(on_mlip),
                static_cast<unsigned long long>(on_mlip + on_cpu), r.mlip.regions.size());
  }
}

// A damaged RNN command of a compiled buffer (a step count past OCM, a
// cell state on a GRU, an unknown cell, the outputs over the weights) is
// refused by the validator with an error code, never run.
TEST(MlipRnnErrors, DamagedRnnCommandsOfACompiledBufferAreRefused) {
  const fs::path src = fs::path(MLIPC_TEST_DATA) / "models" / "torch_gru_classifier_opset17" / "model.onnx";
  const driver::CompileResult r = driver::compile_model(src, mrvl_options(2));
  ASSERT_EQ(r.mlip.regions.size(), 1u);
  const std::vector<uint8_t>& good = r.mlip.regions[0]->command_buffer;
  ASSERT_EQ(mlip_cmdbuf_validate(good.data(), good.size()), MLIP_OK);
  mlip_header h;
  std::memcpy(&h, good.data(), sizeof h);
  const mlip_section& main = h.sections[MLIP_SEC_MAIN];
  size_t at = 0;
  for (uint32_t i = 0; i < main.count && at == 0; ++i)
    if (good[main.offset + i * sizeof(mlip_cmd)] == MLIP_OP_RNN) at = main.offset + i * sizeof(mlip_cmd);
  ASSERT_NE(at, 0u);
  auto damaged = [&](auto change) {
    std::vector<uint8_t> b = good;
    mlip_cmd c;
    mlip_rnn_args a;
    std::memcpy(&c, &b[at], sizeof c);
    mlip_rnn_decode(&c, &a);
    change(a);
    mlip_rnn_encode(&a, &c);
    std::memcpy(&b[at], &c, sizeof c);
    // the payload's and the header's CRCs made right again, as a buffer damaged before its CRCs were computed
    mlip_header hh;
    std::memcpy(&hh, b.data(), sizeof hh);
    hh.payload_crc32c = mlip_crc32c(0, b.data() + MLIP_HEADER_SIZE, b.size() - MLIP_HEADER_SIZE);
    std::memcpy(b.data(), &hh, sizeof hh);
    hh.header_crc32c = mlip_crc32c(0, b.data(), offsetof(mlip_header, header_crc32c));
    std::memcpy(b.data(), &hh, sizeof hh);
    return mlip_cmdbuf_validate(b.data(), b.size());
  };
  EXPECT_EQ(damaged([](mlip_rnn_args& a) { a.steps = 100000u; }), MLIP_ERR_BOUNDS);
  EXPECT_EQ(damaged([](mlip_rnn_args& a) { a.steps = 0; }), MLIP_ERR_INVALID_ARG);
  EXPECT_EQ(damaged([](mlip_rnn_args& a) { a.c = a.h; }), MLIP_ERR_INVALID_ARG);
  EXPECT_EQ(damaged([](mlip_rnn_args& a) { a.cell = 9; }), MLIP_ERR_INVALID_ARG);
  EXPECT_EQ(damaged([](mlip_rnn_args& a) { a.y = a.r; }), MLIP_ERR_INVALID_ARG);
  EXPECT_EQ(damaged([](mlip_rnn_args& a) { a.hidden = 0xFFFFFFFFu; }), MLIP_ERR_BOUNDS);
}

}  // namespace
}  // namespace mlipc::test::e2e_mlip_rnn
