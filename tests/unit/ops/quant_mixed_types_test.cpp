// Mixed and unsupported quantized types. com.microsoft's QLinearAdd and
// QLinearMul type A, B and C with one T (onnxruntime's schema), so an int8 A
// with a uint8 B is refused naming the node; the QDQ form of such an Add
// stays float between its DequantizeLinear and QuantizeLinear (noted for
// `mlipc inspect`). 4-bit tensors, as a zero point or as the graph input a
// DequantizeLinear reads, are refused naming the node, and so is a zero
// point whose value lies outside its type (ONNX keeps int8 and uint8 values
// in the 32-bit int32_data field, where 300 can be written).
#include <fmt/format.h>
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <onnx/onnx_pb.h>

#include <fstream>

#include "driver/compile.h"
#include "testlib/model_runner.h"
#include "testlib/onnx_builder.h"

namespace mlipc::unit_ops_quant_mixed_types {
namespace {

namespace fs = std::filesystem;
using ::testing::HasSubstr;
using test::OnnxBuilder;

fs::path mixed_types_save(const OnnxBuilder& b) {
  static int k = 0;
  return b.save(test::scratch_dir(), fmt::format("quant_mixed_{}.onnx", k++));
}

TEST(QLinearMixedTypes, ComMicrosoftAddAndMulRefuseInt8WithUint8) {
  for (const char* op : {"QLinearAdd", "QLinearMul"}) {
    OnnxBuilder m;
    m.input("a", DType::Int8, {4}).input("b", DType::UInt8, {4});
    m.initializer("s", TensorData::scalar<float>(0.5f));
    m.initializer("za", TensorData::scalar<int8_t>(0)).initializer("zb", TensorData::scalar<uint8_t>(128));
    m.node(op, {"a", "s", "za", "b", "s", "zb", "s", "za"}, {"c"}, {}, "mixed").in_domain("com.microsoft").output("c");
    EXPECT_THAT(test::import_error(mixed_types_save(m)),
                HasSubstr(fmt::format("node 'mixed' ({}): A is int8 but B is uint8; they must have the same type", op)));
  }
}

// x (int8 QDQ) + y (uint8 QDQ) -> QuantizeLinear int8: no integer Add of
// mixed types, so the Add stays float; its result is the float graph's.
TEST(QLinearMixedTypes, QdqAddOfInt8AndUint8StaysFloat) {
  OnnxBuilder m;
  m.input("x", DType::Float32, {2, 3}).input("y", DType::Float32, {2, 3});
  m.initializer("xs", TensorData::scalar<float>(0.02f)).initializer("xz", TensorData::scalar<int8_t>(-5));
  m.initializer("ys", TensorData::scalar<float>(0.03f)).initializer("yz", TensorData::scalar<uint8_t>(120));
  m.initializer("os", TensorData::scalar<float>(0.04f)).initializer("oz", TensorData::scalar<int8_t>(2));
  m.node("QuantizeLinear", {"x", "xs", "xz"}, {"xq"}, {}, "qx");
  m.node("DequantizeLinear", {"xq", "xs", "xz"}, {"xd"}, {}, "dqx");
  m.node("QuantizeLinear", {"y", "ys", "yz"}, {"yq"}, {}, "qy");
  m.node("DequantizeLinear", {"yq", "ys", "yz"}, {"yd"}, {}, "dqy");
  m.node("Add", {"xd", "yd"}, {"s"}, {}, "add");
  m.node("QuantizeLinear", {"s", "os", "oz"}, {"sq"}, {}, "qs");
  m.node("DequantizeLinear", {"sq", "os", "oz"}, {"out"}, {}, "dqs");
  m.output("out");
  const fs::path p = mixed_types_save(m);
  driver::CompileResult r;
  const io::NamedTensors in = {{"x", test::random_tensor(DType::Float32, {2, 3}, 3, -2.0, 2.0)},
                               {"y", test::random_tensor(DType::Float32, {2, 3}, 4, -2.0, 2.0)}};
  const io::NamedTensors got = test::compile_and_run(p, in, {}, &r);
  ASSERT_EQ(r.float_notes.size(), 2u);
  EXPECT_EQ(r.float_notes[0].why,
            "feeds node 'add' (Add): its inputs and output are not all int8, all uint8 or all int16");
  EXPECT_EQ(test::compare(got[0].second, test::reference_run(p, in)[0].second, 0, 0), "");
}

// A model with one DequantizeLinear 'dq' whose graph input x (as_input; no
// zero point) or whose zero point has ONNX element type `type`.
fs::path four_bit_model(int type, bool as_input) {
  onnx::ModelProto mp;
  mp.set_ir_version(10);
  mp.add_opset_import()->set_version(19);
  onnx::GraphProto* g = mp.mutable_graph();
  g->set_name("g");
  onnx::NodeProto* n = g->add_node();
  n->set_op_type("DequantizeLinear");
  n->set_name("dq");
  n->add_input("x");
  n->add_input("s");
  if (!as_input) n->add_input("zp");
  n->add_output("y");
  onnx::ValueInfoProto* x = g->add_input();
  x->set_name("x");
  x->mutable_type()->mutable_tensor_type()->set_elem_type(as_input ? type : onnx::TensorProto::INT8);
  x->mutable_type()->mutable_tensor_type()->mutable_shape()->add_dim()->set_dim_value(4);
  onnx::TensorProto* s = g->add_initializer();
  s->set_name("s");
  s->set_data_type(onnx::TensorProto::FLOAT);
  s->add_float_data(0.5f);
  if (!as_input) {
    onnx::TensorProto* zp = g->add_initializer();
    zp->set_name("zp");
    zp->set_data_type(type);
    zp->set_raw_data(std::string(1, '\0'));
  }
  g->add_output()->set_name("y");
  const fs::path path = test::scratch_dir() / fmt::format("dq_4bit_{}_{}.onnx", type, as_input);
  std::string bytes;
  mp.SerializeToString(&bytes);
  std::ofstream(path, std::ios::binary) << bytes;
  return path;
}

TEST(QLinearMixedTypes, FourBitTensorsAreRefusedNamingTheNode) {
  for (const auto& [type, name] : std::vector<std::pair<int, std::string>>{{21, "UINT4"}, {22, "INT4"}}) {
    const std::string zp = test::import_error(four_bit_model(type, false));
    EXPECT_THAT(zp, HasSubstr(fmt::format("initializer 'zp': element type {} ({}) is not supported", name, type)));
    EXPECT_THAT(zp, HasSubstr("node 'dq' (DequantizeLinear)"));
    const std::string in = test::import_error(four_bit_model(type, true));
    EXPECT_THAT(in, HasSubstr(fmt::format("input 'x': element type {} ({}) is not supported", name, type)));
    EXPECT_THAT(in, HasSubstr("node 'dq' (DequantizeLinear)"));
    EXPECT_EQ(in.find('\n'), std::string::npos);
  }
}

// A QuantizeLinear 'q' (uint8 zero point) or DequantizeLinear 'dq' (int8 x
// and zero point) whose zero point initializer holds `value` in int32_data.
fs::path zero_point_model(bool quantize, int32_t value) {
  onnx::ModelProto mp;
  mp.set_ir_version(8);
  mp.add_opset_import()->set_version(13);
  onnx::GraphProto* g = mp.mutable_graph();
  g->set_name("g");
  onnx::NodeProto* n = g->add_node();
  n->set_op_type(quantize ? "QuantizeLinear" : "DequantizeLinear");
  n->set_name(quantize ? "q" : "dq");
  for (const char* i : {"x", "s", "zp"}) n->add_input(i);
  n->add_output("y");
  onnx::ValueInfoProto* x = g->add_input();
  x->set_name("x");
  x->mutable_type()->mutable_tensor_type()->set_elem_type(quantize ? onnx::TensorProto::FLOAT : onnx::TensorProto::INT8);
  x->mutable_type()->mutable_tensor_type()->mutable_shape()->add_dim()->set_dim_value(4);
  onnx::TensorProto* s = g->add_initializer();
  s->set_name("s");
  s->set_data_type(onnx::TensorProto::FLOAT);
  s->add_float_data(0.5f);
  onnx::TensorProto* zp = g->add_initializer();
  zp->set_name("zp");
  zp->set_data_type(quantize ? onnx::TensorProto::UINT8 : onnx::TensorProto::INT8);
  zp->add_int32_data(value);
  g->add_output()->set_name("y");
  const fs::path path = test::scratch_dir() / fmt::format("zero_point_{}_{}.onnx", quantize, value);
  std::string bytes;
  mp.SerializeToString(&bytes);
  std::ofstream(path, std::ios::binary) << bytes;
  return path;
}

TEST(QLinearMixedTypes, ZeroPointOutsideItsTypeIsRefusedNamingTheNode) {
  const std::string q = test::import_error(zero_point_model(true, 300));
  EXPECT_THAT(q, HasSubstr("initializer 'zp': value 300 (element 0) is outside its type uint8 ([0, 255]) (input of "
                           "node 'q' (QuantizeLinear))"));
  EXPECT_EQ(q.find('\n'), std::string::npos);
  EXPECT_THAT(test::import_error(zero_point_model(true, -1)), HasSubstr("value -1 (element 0) is outside its type uint8"));
  EXPECT_THAT(test::import_error(zero_point_model(false, 128)),
              HasSubstr("value 128 (element 0) is outside its type int8 ([-128, 127]) (input of node 'dq' "
                        "(DequantizeLinear))"));
  EXPECT_THAT(test::import_error(zero_point_model(false, -129)), HasSubstr("value -129 (element 0) is outside its type int8"));
  // The ends of each type are values like any other.
  EXPECT_EQ(test::import_error(zero_point_model(true, 255)), "no error");
  EXPECT_EQ(test::import_error(zero_point_model(false, -128)), "no error");
}

}  // namespace
}  // namespace mlipc::unit_ops_quant_mixed_types
