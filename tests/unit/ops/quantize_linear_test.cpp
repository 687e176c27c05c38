// QuantizeLinear, DequantizeLinear and DynamicQuantizeLinear: shape rules
// and their refusals, the reference on hand-computed values (ties to even,
// saturation, per axis), and the generated C against the reference bit for
// bit on random data.
#include <fmt/format.h>
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <onnx/onnx_pb.h>

#include <cmath>
#include <fstream>
#include <random>

#include "testlib/c_runner.h"
#include "testlib/onnx_builder.h"

namespace mlipc::unit_ops_quantize_linear {
namespace {

using test::ints;
using test::OnnxBuilder;
using test::random_tensor;
using ::testing::HasSubstr;
namespace fs = std::filesystem;

fs::path save(const OnnxBuilder& b) {
  static int k = 0;
  return b.save(test::scratch_dir(), fmt::format("quantize_linear_{}.onnx", k++));
}

template <class T>
std::vector<T> values(const TensorData& t) {
  return std::vector<T>(t.data<T>(), t.data<T>() + t.numel());
}

TEST(QuantizeLinear, ReferenceRoundsHalfToEvenAndSaturates) {
  OnnxBuilder m;
  m.input("x", DType::Float32, {10});
  m.initializer("s", TensorData::scalar<float>(1.0f));
  m.initializer("z8", TensorData::scalar<int8_t>(0));
  m.initializer("zu", TensorData::scalar<uint8_t>(128));
  m.node("QuantizeLinear", {"x", "s", "z8"}, {"y8"}).node("QuantizeLinear", {"x", "s", "zu"}, {"yu"});
  m.node("QuantizeLinear", {"x", "s"}, {"yd"});  // no zero point: uint8, 0
  m.output("y8").output("yu").output("yd");
  const TensorData x = TensorData::from<float>(
      {10}, {-2.5f, -1.5f, -0.5f, 0.5f, 1.5f, 2.5f, 1000.0f, -1000.0f, NAN, 126.6f});
  const auto out = test::reference_run(save(m), {{"x", x}});
  EXPECT_EQ(values<int8_t>(out[0].second), (std::vector<int8_t>{-2, -2, 0, 0, 2, 2, 127, -128, 0, 127}));
  EXPECT_EQ(values<uint8_t>(out[1].second), (std::vector<uint8_t>{126, 126, 128, 128, 130, 130, 255, 0, 128, 255}));
  EXPECT_EQ(values<uint8_t>(out[2].second), (std::vector<uint8_t>{0, 0, 0, 0, 2, 2, 255, 0, 0, 127}));
}

TEST(QuantizeLinear, ReferencePerAxis) {
  OnnxBuilder m;
  m.input("x", DType::Float32, {2, 3});
  m.initializer("s", TensorData::from<float>({3}, {1.0f, 2.0f, 4.0f}));
  m.initializer("z", TensorData::from<int8_t>({3}, {0, 1, -2}));
  m.node("QuantizeLinear", {"x", "s", "z"}, {"y"}, {{"axis", int64_t{-1}}}).output("y");
  m.node("DequantizeLinear", {"y", "s", "z"}, {"r"}, {{"axis", int64_t{1}}}).output("r");
  const TensorData x = TensorData::from<float>({2, 3}, {3.0f, 3.0f, 10.0f, -1.0f, -5.0f, 1000.0f});
  const auto out = test::reference_run(save(m), {{"x", x}});
  // 3/1, 3/2 = 1.5 -> 2 (+1), 10/4 = 2.5 -> 2 (-2); -1, -2.5 -> -2 (+1), 250 -> 127.
  EXPECT_EQ(values<int8_t>(out[0].second), (std::vector<int8_t>{3, 3, 0, -1, -1, 127}));
  EXPECT_EQ(values<float>(out[1].second), (std::vector<float>{3.0f, 4.0f, 8.0f, -1.0f, -4.0f, 516.0f}));
}

// Without a zero point, every channel's zero point is 0. The reference used
// to read channel c's zero point past the end of a one-element list (a
// QDQ model's per-channel weights came out wrong on channels 1 and up).
TEST(DequantizeLinear, ReferencePerAxisWithoutZeroPoint) {
  OnnxBuilder m;
  m.input("x", DType::Float32, {3, 2});
  m.initializer("w", TensorData::from<int8_t>({3, 2}, {1, -2, 3, -4, 127, -128}));
  m.initializer("s", TensorData::from<float>({3}, {0.5f, 2.0f, 0.25f}));
  m.node("DequantizeLinear", {"w", "s"}, {"wd"}, {{"axis", int64_t{0}}}).node("Add", {"x", "wd"}, {"y"}).output("y");
  m.node("QuantizeLinear", {"x", "s"}, {"q"}, {{"axis", int64_t{0}}}).output("q");
  const TensorData x = TensorData::from<float>({3, 2}, {0, 0, 0, 0, 0, 1.0f});
  const auto out = test::reference_run(save(m), {{"x", x}});
  EXPECT_EQ(values<float>(out[0].second), (std::vector<float>{0.5f, -1.0f, 6.0f, -8.0f, 31.75f, -31.0f}));
  EXPECT_EQ(values<uint8_t>(out[1].second), (std::vector<uint8_t>{0, 0, 0, 0, 0, 4}));
  // And the compiled model, whose constant weights are folded by the reference.
  test::expect_matches_reference(save(m), {{"x", x}}, 0, 0);
}

TEST(DequantizeLinear, ReferenceInt8Uint8Int32) {
  OnnxBuilder m;
  m.input("a", DType::Int8, {3}).input("b", DType::UInt8, {3}).input("c", DType::Int32, {3});
  m.initializer("s", TensorData::scalar<float>(0.5f));
  m.initializer("za", TensorData::scalar<int8_t>(-1));
  m.initializer("zb", TensorData::scalar<uint8_t>(200));
  m.initializer("zc", TensorData::scalar<int32_t>(0));
  m.node("DequantizeLinear", {"a", "s", "za"}, {"ya"});
  m.node("DequantizeLinear", {"b", "s", "zb"}, {"yb"});
  m.node("DequantizeLinear", {"c", "s", "zc"}, {"yc"});
  m.output("ya").output("yb").output("yc");
  const auto out = test::reference_run(save(m), {{"a", TensorData::from<int8_t>({3}, {-128, 0, 127})},
                                                 {"b", TensorData::from<uint8_t>({3}, {0, 200, 255})},
                                                 {"c", TensorData::from<int32_t>({3}, {-2147483647 - 1, 7, 2147483647})}});
  EXPECT_EQ(values<float>(out[0].second), (std::vector<float>{-63.5f, 0.5f, 64.0f}));
  EXPECT_EQ(values<float>(out[1].second), (std::vector<float>{-100.0f, 0.0f, 27.5f}));
  EXPECT_EQ(values<float>(out[2].second), (std::vector<float>{-1073741824.0f, 3.5f, 1073741824.0f}));
}

TEST(DynamicQuantizeLinear, Reference) {
  OnnxBuilder m;
  m.input("x", DType::Float32, {6});
  m.node("DynamicQuantizeLinear", {"x"}, {"y", "s", "z"}).output("y").output("s").output("z");
  // Range [-1, 1.55]: scale 0.01, zero point round(100) = 100.
  const auto out = test::reference_run(
      save(m), {{"x", TensorData::from<float>({6}, {-1.0f, 0.0f, 1.55f, 0.005f, 0.015f, -0.5f})}});
  EXPECT_FLOAT_EQ(out[1].second.data<float>()[0], 2.55f / 255.0f);
  EXPECT_EQ(out[2].second.data<uint8_t>()[0], 100);
  EXPECT_EQ(values<uint8_t>(out[0].second)[0], 0);
  EXPECT_EQ(values<uint8_t>(out[0].second)[2], 255);
  EXPECT_EQ(values<uint8_t>(out[0].second)[5], 50);
  // All zeros: scale 0, zero point 0, y 0.
  const auto zero = test::reference_run(save(m), {{"x", TensorData::from<float>({6}, {0, 0, 0, 0, 0, 0})}});
  EXPECT_EQ(zero[1].second.data<float>()[0], 0.0f);
  EXPECT_EQ(zero[2].second.data<uint8_t>()[0], 0);
  EXPECT_EQ(values<uint8_t>(zero[0].second), (std::vector<uint8_t>(6, 0)));
}

// A model of one node `op` with x (a run-time input) and constants.
std::string error_of(const std::string& op, DType xt, const Shape& xs, const std::vector<TensorData>& consts,
                     int64_t axis = 1) {
  OnnxBuilder m;
  m.input("x", xt, xs);
  std::vector<std::string> ins = {"x"};
  for (size_t i = 0; i < consts.size(); ++i) {
    m.initializer(fmt::format("c{}", i), consts[i]);
    ins.push_back(fmt::format("c{}", i));
  }
  m.node(op, ins, {"y"}, {{"axis", axis}}, "q1").output("y");
  return test::import_error(save(m));
}

TEST(QuantizeLinear, Refusals) {
  const Shape x = {2, 3};
  EXPECT_THAT(error_of("QuantizeLinear", DType::Float32, x, {TensorData::scalar<float>(0.0f)}),
              HasSubstr("node 'q1' (QuantizeLinear): y_scale is 0; a scale must be positive and finite"));
  EXPECT_THAT(error_of("QuantizeLinear", DType::Float32, x, {TensorData::from<float>({3}, {1.0f, -1.0f, 2.0f})}),
              HasSubstr("y_scale[1] is -1; a scale must be positive"));
  EXPECT_THAT(error_of("QuantizeLinear", DType::Float32, x, {TensorData::from<float>({2}, {1.0f, 1.0f})}),
              HasSubstr("node 'q1' (QuantizeLinear): per-axis y_scale has 2 values but axis 1 of the input [2,3] has 3"));
  EXPECT_THAT(error_of("QuantizeLinear", DType::Float32, x, {TensorData::from<float>({3}, {1, 1, 1})}, 2),
              HasSubstr("axis 2 is out of range"));
  EXPECT_THAT(error_of("QuantizeLinear", DType::Float32, x,
                       {TensorData::scalar<float>(1.0f), TensorData::scalar<uint16_t>(0)}),
              HasSubstr("node 'q1' (QuantizeLinear): y_zero_point is uint16; supported quantized types: int8, uint8"));
  EXPECT_THAT(error_of("QuantizeLinear", DType::Float32, x,
                       {TensorData::from<float>({3}, {1, 1, 1}), TensorData::scalar<int8_t>(0)}),
              HasSubstr("y_zero_point has shape [] but y_scale has shape [3]"));
  EXPECT_THAT(error_of("QuantizeLinear", DType::Int32, x, {TensorData::scalar<float>(1.0f)}),
              HasSubstr("x is int32; QuantizeLinear supports float32"));
}

TEST(DequantizeLinear, Refusals) {
  const Shape x = {2, 3};
  EXPECT_THAT(error_of("DequantizeLinear", DType::Int8, x,
                       {TensorData::scalar<float>(1.0f), TensorData::scalar<uint8_t>(0)}),
              HasSubstr("node 'q1' (DequantizeLinear): x_zero_point is uint8 but x is int8"));
  EXPECT_THAT(error_of("DequantizeLinear", DType::UInt16, x, {TensorData::scalar<float>(1.0f)}),
              HasSubstr("x is uint16; DequantizeLinear supports int8, uint8, int16 and int32"));
  EXPECT_THAT(error_of("DequantizeLinear", DType::Int32, x,
                       {TensorData::scalar<float>(1.0f), TensorData::scalar<int32_t>(3)}),
              HasSubstr("x_zero_point is 3; for int32 x it must be 0"));
  EXPECT_THAT(error_of("DequantizeLinear", DType::UInt8, x, {TensorData::scalar<float>(-2.0f)}),
              HasSubstr("x_scale is -2; a scale must be positive"));
  EXPECT_THAT(error_of("DequantizeLinear", DType::UInt8, x, {TensorData::scalar<float>(INFINITY)}),
              HasSubstr("x_scale is inf; a scale must be positive and finite"));
  EXPECT_THAT(error_of("DequantizeLinear", DType::UInt8, x, {TensorData::from<float>({4}, {1, 1, 1, 1})}, 0),
              HasSubstr("per-axis x_scale has 4 values but axis 0 of the input [2,3] has 2"));
}

// Per tensor and per axis (negative axes too), int8 and uint8, with and
// without zero points, constant and run-time scales: one model per seed of
// random odd shapes, every node's C output against the reference bit for bit.
TEST(QuantizeLinear, GeneratedCMatchesReferenceRandom) {
  for (uint32_t seed = 1; seed <= 3; ++seed) {
    std::mt19937 rng(seed);
    auto dim = [&] { return static_cast<int64_t>(std::uniform_int_distribution<int>(1, 7)(rng) | 1); };
    const Shape xs = {dim(), dim(), dim()};
    const int axis = std::uniform_int_distribution<int>(-3, 2)(rng);
    const int64_t c = xs[static_cast<size_t>(axis < 0 ? axis + 3 : axis)];
    OnnxBuilder m(13);
    io::NamedTensors in = {{"x", random_tensor(DType::Float32, xs, seed, -20.0, 20.0)},
                           {"rs", TensorData::scalar<float>(0.37f)},
                           {"q8", random_tensor(DType::Int8, xs, seed + 10, -128, 127)},
                           {"i32", random_tensor(DType::Int32, xs, seed + 20, -100000, 100000)}};
    m.input("x", DType::Float32, xs).input("rs", DType::Float32, {});
    m.input("q8", DType::Int8, xs).input("i32", DType::Int32, xs);
    std::vector<float> scales;
    for (int64_t i = 0; i < c; ++i) scales.push_back(0.05f + 0.13f * static_cast<float>(i));
    m.initializer("sa", TensorData::from<float>({c}, scales));
    m.initializer("st", TensorData::scalar<float>(0.11f));
    m.initializer("za8", random_tensor(DType::Int8, {c}, seed + 1, -20, 20));
    m.initializer("zau", random_tensor(DType::UInt8, {c}, seed + 2, 100, 150));
    m.initializer("zt8", TensorData::scalar<int8_t>(-3));
    m.initializer("zi32", TensorData::scalar<int32_t>(0));
    const std::pair<std::string, AttrValue> ax = {"axis", int64_t{axis}};
    m.node("QuantizeLinear", {"x", "sa", "za8"}, {"qa8"}, {ax}).output("qa8");
    m.node("QuantizeLinear", {"x", "sa", "zau"}, {"qau"}, {ax}).output("qau");
    m.node("QuantizeLinear", {"x", "st", "zt8"}, {"qt8"}).output("qt8");
    m.node("QuantizeLinear", {"x", "rs"}, {"qrs"}).output("qrs");
    m.node("DequantizeLinear", {"qau", "sa", "zau"}, {"da"}, {ax}).output("da");
    m.node("DequantizeLinear", {"q8", "st", "zt8"}, {"dt"}).output("dt");
    m.node("DequantizeLinear", {"q8", "rs"}, {"dr"}).output("dr");
    m.node("DequantizeLinear", {"i32", "st", "zi32"}, {"di"}).output("di");
    // int16 (opset 21's; 16x8 activations): saturating at +-32767/-32768 (x / 0.0004 reaches 50,000).
    m.initializer("s16", TensorData::scalar<float>(0.0004f)).initializer("z16", TensorData::scalar<int16_t>(0));
    m.node("QuantizeLinear", {"x", "s16", "z16"}, {"q16"}).output("q16");
    m.node("DequantizeLinear", {"q16", "s16", "z16"}, {"d16"}).output("d16");
    m.node("DynamicQuantizeLinear", {"x"}, {"dy", "dys", "dyz"}).output("dy").output("dys").output("dyz");
    SCOPED_TRACE(fmt::format("seed {} x {} axis {}", seed, shape_str(xs), axis));
    test::expect_matches_reference(save(m), in, 0.0, 0.0);
  }
}

TEST(QuantizeLinear, Opset10FormAndNoZeroPoint) {
  OnnxBuilder m(10);
  m.input("x", DType::Float32, {5});
  m.initializer("s", TensorData::scalar<float>(0.25f));
  m.node("QuantizeLinear", {"x", "s"}, {"y"}).node("DequantizeLinear", {"y", "s"}, {"r"}).output("y").output("r");
  test::expect_matches_reference(save(m), {{"x", random_tensor(DType::Float32, {5}, 9, -40.0, 80.0)}}, 0.0, 0.0);
}

// Opset 19's form: `saturate` (read only for float8 outputs) is accepted.
TEST(QuantizeLinear, Opset19Form) {
  OnnxBuilder m(19);
  m.input("x", DType::Float32, {2, 3});
  m.initializer("s", TensorData::from<float>({3}, {0.5f, 0.25f, 2.0f}));
  m.initializer("z", TensorData::from<int8_t>({3}, {1, -1, 0}));
  m.node("QuantizeLinear", {"x", "s", "z"}, {"y"}, {{"axis", int64_t{1}}, {"saturate", int64_t{1}}});
  m.node("DequantizeLinear", {"y", "s", "z"}, {"r"}, {{"axis", int64_t{-1}}}).output("y").output("r");
  test::expect_matches_reference(save(m), {{"x", random_tensor(DType::Float32, {2, 3}, 4, -300.0, 300.0)}}, 0.0, 0.0);
}

// float8 and int4 (element types 17 and 22, newer than the onnx library
// mlipc links) are refused by name, with the node they feed.
TEST(QuantizeLinear, Float8AndInt4Refused) {
  for (const auto& [type, name] : std::vector<std::pair<int, std::string>>{{17, "FLOAT8E4M3FN"}, {22, "INT4"}}) {
    onnx::ModelProto mp;
    mp.set_ir_version(8);
    mp.add_opset_import()->set_version(17);
    onnx::GraphProto* g = mp.mutable_graph();
    g->set_name("g");
    onnx::NodeProto* n = g->add_node();
    n->set_op_type("QuantizeLinear");
    n->set_name("qn");
    for (const char* i : {"x", "s", "zp"}) n->add_input(i);
    n->add_output("y");
    onnx::ValueInfoProto* x = g->add_input();
    x->set_name("x");
    x->mutable_type()->mutable_tensor_type()->set_elem_type(onnx::TensorProto::FLOAT);
    x->mutable_type()->mutable_tensor_type()->mutable_shape()->add_dim()->set_dim_value(4);
    onnx::TensorProto* s = g->add_initializer();
    s->set_name("s");
    s->set_data_type(onnx::TensorProto::FLOAT);
    s->add_float_data(1.0f);
    onnx::TensorProto* zp = g->add_initializer();
    zp->set_name("zp");
    zp->set_data_type(type);
    zp->set_raw_data(std::string(1, '\0'));
    g->add_output()->set_name("y");
    const fs::path path = test::scratch_dir() / fmt::format("q_type_{}.onnx", type);
    std::string bytes;
    mp.SerializeToString(&bytes);
    std::ofstream(path, std::ios::binary) << bytes;
    EXPECT_THAT(test::import_error(path),
                HasSubstr(fmt::format("initializer 'zp': element type {} ({}) is not supported (input of node 'qn' "
                                      "(QuantizeLinear))",
                                      name, type)));
  }
}

// Every int8 template (and mlip/requant.h through them) builds as strict C99.
TEST(Int8Kernels, StrictC99) {
  OnnxBuilder m;
  m.input("x", DType::Float32, {1, 2, 5, 5}).input("a", DType::UInt8, {3, 4}).input("b", DType::Int8, {4, 2});
  m.initializer("s", TensorData::scalar<float>(0.1f)).initializer("zu", TensorData::scalar<uint8_t>(3));
  m.initializer("z8", TensorData::scalar<int8_t>(1));
  m.initializer("sc", TensorData::from<float>({2}, {0.1f, 0.2f})).initializer("z8c", TensorData::from<int8_t>({2}, {0, 1}));
  m.initializer("w", TensorData::from<int8_t>({2, 2, 1, 1}, {1, -2, 3, -4}));
  m.initializer("bias", TensorData::from<int32_t>({2}, {5, -5}));
  m.node("QuantizeLinear", {"x", "s", "zu"}, {"qx"}).node("QuantizeLinear", {"x", "sc", "z8c"}, {"qx8"});
  m.node("DequantizeLinear", {"qx", "s", "zu"}, {"dx"}).node("DequantizeLinear", {"qx8", "sc"}, {"dx8"});
  m.node("DynamicQuantizeLinear", {"x"}, {"y", "ys", "yz"});
  m.node("MatMulInteger", {"a", "b", "zu", "z8"}, {"mi"});
  m.node("QLinearMatMul", {"a", "s", "zu", "b", "s", "z8", "s", "z8"}, {"qm"});
  m.node("ConvInteger", {"qx", "w", "zu", "z8c"}, {"ci"});
  m.node("QLinearConv", {"qx", "s", "zu", "w", "sc", "z8c", "s", "zu", "bias"}, {"qc"});
  for (const char* o : {"dx", "dx8", "y", "ys", "yz", "mi", "qm", "ci", "qc"}) m.output(o);
  EXPECT_EQ(test::strict_c99_errors(m.save(test::scratch_dir(), "int8_strict.onnx")), "");
}

}  // namespace
}  // namespace mlipc::unit_ops_quantize_linear
