#include <fmt/format.h>
#include <gtest/gtest.h>

#include "frontend/onnx_import.h"
#include "testlib/model_runner.h"
#include "testlib/onnx_builder.h"

namespace mlipc::unit_ops_identity {
namespace {

using test::OnnxBuilder;
using test::random_tensor;
namespace fs = std::filesystem;

fs::path save(const OnnxBuilder& b) {
  static int k = 0;
  return b.save(test::scratch_dir(), fmt::format("identity_{}.onnx", k++));
}

TEST(Identity, ShapeRuleKeepsTypeAndShape) {
  OnnxBuilder m;
  m.input("x", DType::Bool, {2, 3}).node("Identity", {"x"}, {"y"}).output("y");
  Graph g = frontend::import_onnx(save(m));
  const Value& y = g.value(g.outputs[0].value);
  EXPECT_EQ(y.dtype, DType::Bool);
  EXPECT_EQ(y.shape, (Shape{2, 3}));
}

TEST(Identity, ReferenceCopies) {
  OnnxBuilder m;
  m.input("x", DType::Int64, {3}).node("Identity", {"x"}, {"y"}).output("y");
  const TensorData x = TensorData::from<int64_t>({3}, {-1, 1LL << 40, 7});
  EXPECT_EQ(test::reference_run(save(m), {{"x", x}}).at(0).second, x);
}

TEST(Identity, GeneratedCCopiesAnyType) {
  // passes/simplify removes the Identity nodes; graph outputs that are then a
  // graph input or a constant get an Identity copy (passes/materialize_outputs).
  OnnxBuilder m;
  io::NamedTensors in;
  uint32_t seed = 1;
  for (DType t : {DType::Float32, DType::Float16, DType::Int8, DType::UInt16, DType::Int64, DType::Float64, DType::Bool}) {
    const std::string name(dtype_name(t));
    m.input(name, t, {2, 3}).node("Identity", {name}, {name + "_out"}).output(name + "_out");
    in.emplace_back(name, random_tensor(t, {2, 3}, seed++, -5, 5));
  }
  m.initializer("w", random_tensor(DType::Float32, {4}, seed++));
  m.node("Identity", {"w"}, {"w_out"}).output("w_out");
  const fs::path model = save(m);
  int copies = 0;
  for (const Node& n : driver::compile_model(model, {}).graph.nodes) copies += n.op == "Identity";
  EXPECT_EQ(copies, 8);
  test::expect_matches_reference(model, in, 0, 0);
}

}  // namespace
}  // namespace mlipc::unit_ops_identity
