#include <optional>

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "frontend/onnx_import.h"
#include "support/error.h"
#include "testlib/c_runner.h"
#include "testlib/onnx_builder.h"

namespace mlipc::unit_ops_split {
namespace {

using test::ints;
using test::OnnxBuilder;
using ::testing::HasSubstr;

TensorData i64(const ints& v) { return TensorData::from<int64_t>({static_cast<int64_t>(v.size())}, v); }

// Split of a run-time input into `outputs` parts; `split` as a constant input
// (opset 13+) or an attribute (opset < 13).
std::filesystem::path split_model(DType dt, const Shape& shape, int outputs, std::optional<ints> split,
                                  std::vector<std::pair<std::string, AttrValue>> attrs, const std::string& file,
                                  int opset = 17) {
  OnnxBuilder b(opset);
  b.input("x", dt, shape);
  std::vector<std::string> ins = {"x"}, outs;
  if (split && opset >= 13) {
    b.initializer("split", i64(*split));
    ins.push_back("split");
  } else if (split) {
    attrs.emplace_back("split", *split);
  }
  for (int i = 0; i < outputs; ++i) outs.push_back("y" + std::to_string(i));
  b.node("Split", ins, outs, attrs);
  for (const std::string& o : outs) b.output(o);
  return b.save(test::scratch_dir(), file);
}

std::vector<Shape> out_shapes(const std::filesystem::path& model) {
  Graph g = frontend::import_onnx(model);
  std::vector<Shape> s;
  for (const GraphIO& o : g.outputs) s.push_back(g.value(o.value).shape);
  return s;
}

std::string import_error(const std::filesystem::path& model) {
  try {
    frontend::import_onnx(model);
  } catch (const Error& e) {
    return e.what();
  }
  return "no error";
}

TEST(Split, ShapeRule) {
  EXPECT_EQ(out_shapes(split_model(DType::Float32, {6}, 3, std::nullopt, {}, "sp1.onnx")),
            (std::vector<Shape>{{2}, {2}, {2}}));
  EXPECT_EQ(out_shapes(split_model(DType::Float32, {2, 6}, 2, ints{2, 4}, {{"axis", int64_t{-1}}}, "sp2.onnx")),
            (std::vector<Shape>{{2, 2}, {2, 4}}));
  EXPECT_EQ(out_shapes(split_model(DType::Float32, {2, 6}, 2, ints{1, 5}, {{"axis", int64_t{1}}}, "sp3.onnx", 11)),
            (std::vector<Shape>{{2, 1}, {2, 5}}));  // opset 11: split is an attribute
  EXPECT_EQ(out_shapes(split_model(DType::Float32, {7, 2}, 3, std::nullopt, {{"num_outputs", int64_t{3}}}, "sp4.onnx")),
            (std::vector<Shape>{{3, 2}, {3, 2}, {1, 2}}));  // opset 18's num_outputs: the last part is smaller
  EXPECT_EQ(out_shapes(split_model(DType::Float32, {0}, 3, ints{0, 0, 0}, {}, "sp5.onnx")),
            (std::vector<Shape>{{0}, {0}, {0}}));
}

TEST(Split, Errors) {
  EXPECT_THAT(import_error(split_model(DType::Float32, {7}, 2, std::nullopt, {}, "spe1.onnx")),
              HasSubstr("axis 0 of length 7 does not split into 2 equal parts"));
  EXPECT_THAT(import_error(split_model(DType::Float32, {6}, 2, ints{2, 3}, {}, "spe2.onnx")),
              HasSubstr("split [2,3] sums to 5 but axis 0 has length 6"));
  EXPECT_THAT(import_error(split_model(DType::Float32, {6}, 3, ints{2, 4}, {}, "spe3.onnx")),
              HasSubstr("split has 2 entries but the node has 3 outputs"));
  EXPECT_THAT(import_error(split_model(DType::Float32, {6}, 2, std::nullopt, {{"axis", int64_t{1}}}, "spe4.onnx")),
              HasSubstr("axis 1 is out of range for rank 1"));
  EXPECT_THAT(import_error(split_model(DType::Float32, {5}, 4, std::nullopt, {{"num_outputs", int64_t{4}}}, "spe5.onnx")),
              HasSubstr("cannot be split into 4 parts of 2"));
  OnnxBuilder b;  // split computed at run time: the output shapes depend on it
  b.input("x", DType::Float32, {6}).input("s", DType::Int64, {2});
  b.node("Split", {"x", "s"}, {"a", "b"}).output("a").output("b");
  EXPECT_THAT(import_error(b.save(test::scratch_dir(), "spe6.onnx")),
              HasSubstr("input #1 ('s', split) must be a constant known at compile time: the output shape depends"));
}

TEST(Split, RuntimeSizesWithDeclaredOutputShapes) {
  OnnxBuilder b;
  b.input("x", DType::Int32, {2, 6}).input("s", DType::Int64, {2});
  b.node("Split", {"x", "s"}, {"a", "b"}, {{"axis", int64_t{1}}});
  b.declare("a", DType::Int32, {2, 1}).declare("b", DType::Int32, {2, 5}).output("a").output("b");
  const auto m = b.save(test::scratch_dir(), "sp_rt.onnx");
  const TensorData x = test::random_tensor(DType::Int32, {2, 6}, 4, -9, 9);
  test::expect_matches_reference(m, {{"x", x}, {"s", i64({1, 5})}}, 0, 0);
  EXPECT_THROW(test::compile_and_run(m, {{"x", x}, {"s", i64({2, 4})}}), Error);
  OnnxBuilder c;  // declared lengths that do not add up
  c.input("x", DType::Int32, {2, 6}).input("s", DType::Int64, {2});
  c.node("Split", {"x", "s"}, {"a", "b"}, {{"axis", int64_t{1}}});
  c.declare("a", DType::Int32, {2, 2}).declare("b", DType::Int32, {2, 5}).output("a").output("b");
  EXPECT_THAT(import_error(c.save(test::scratch_dir(), "sp_rt_bad.onnx")),
              HasSubstr("the model declares outputs whose lengths along axis 1 sum to 7, not 6"));
}

TEST(Split, GeneratedCMatchesReference) {
  OnnxBuilder b;  // sizes given (an empty part), equal parts, num_outputs: one model
  b.input("a", DType::Float32, {3, 10, 2}).input("b", DType::Int64, {4, 3}).input("c", DType::UInt8, {2, 2, 7});
  b.initializer("split", i64({2, 0, 8}));
  b.node("Split", {"a", "split"}, {"a0", "a1", "a2"}, {{"axis", int64_t{1}}});
  b.node("Split", {"b"}, {"b0", "b1"});
  b.node("Split", {"c"}, {"c0", "c1", "c2"}, {{"axis", int64_t{-1}}, {"num_outputs", int64_t{3}}});
  for (const char* y : {"a0", "a1", "a2", "b0", "b1", "c0", "c1", "c2"}) b.output(y);
  test::expect_matches_reference(b.save(test::scratch_dir(), "spc.onnx"),
                                 {{"a", test::random_tensor(DType::Float32, {3, 10, 2}, 1)},
                                  {"b", test::random_tensor(DType::Int64, {4, 3}, 2, -9, 9)},
                                  {"c", test::random_tensor(DType::UInt8, {2, 2, 7}, 3, 0, 255)}},
                                 0, 0);
}

}  // namespace
}  // namespace mlipc::unit_ops_split
