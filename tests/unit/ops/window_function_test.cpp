#include <cmath>

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "testlib/c_runner.h"
#include "testlib/onnx_builder.h"

namespace mlipc::unit_ops_window_function {
namespace {

using test::import_error;
using test::OnnxBuilder;
using ::testing::HasSubstr;

using AttrList = std::vector<std::pair<std::string, AttrValue>>;

// The window with a constant size (an initializer, as exporters write it).
std::filesystem::path model(const std::string& op, const TensorData& size, const AttrList& attrs, const std::string& file) {
  OnnxBuilder b;
  b.initializer("size", size).node(op, {"size"}, {"y"}, attrs).output("y");
  return b.save(test::scratch_dir(), file);
}

// The spec's formula in long double.
std::vector<double> expected(const std::string& op, int64_t size, bool periodic) {
  const long double pi = 3.141592653589793238462643383279L;
  const long double a0 = op == "HannWindow" ? 0.5L : (op == "HammingWindow" ? 25.0L / 46 : 0.42L);
  const long double a1 = op == "HammingWindow" ? 21.0L / 46 : 0.5L, a2 = op == "BlackmanWindow" ? 0.08L : 0.0L;
  const long double n_total = periodic ? size : size - 1;
  std::vector<double> w;
  for (int64_t n = 0; n < size; ++n)
    w.push_back(n_total == 0 ? 1.0
                             : static_cast<double>(a0 - a1 * std::cos(2 * pi * n / n_total) + a2 * std::cos(4 * pi * n / n_total)));
  return w;
}

TEST(WindowFunction, ReferenceFollowsTheSpec) {
  int f = 0;
  for (const char* op : {"HannWindow", "HammingWindow", "BlackmanWindow"})
    for (int64_t periodic : {0, 1})
      for (int64_t size : {1, 2, 7, 10, 64}) {
        const auto m = model(op, TensorData::scalar<int64_t>(size), {{"periodic", periodic}, {"output_datatype", int64_t{11}}},
                             "w" + std::to_string(f++) + ".onnx");
        const TensorData y = test::reference_run(m, {})[0].second;
        ASSERT_EQ(y.shape(), Shape{size});
        const std::vector<double> want = expected(op, size, periodic != 0);
        for (int64_t n = 0; n < size; ++n) EXPECT_NEAR(y.data<double>()[n], want[n], 1e-15) << op << " " << size << " " << n;
      }
  // Hann, N = 4 periodic: 0, 0.5, 1, 0.5 (exact in float).
  EXPECT_EQ(test::reference_run(model("HannWindow", TensorData::scalar<int32_t>(4), {}, "w_hand.onnx"), {})[0].second,
            TensorData::from<float>({4}, {0.0f, 0.5f, 1.0f, 0.5f}));
}

TEST(WindowFunction, OutputTypesAndEmpty) {
  // float32 by default; integer output types truncate by Cast's rules.
  EXPECT_EQ(test::reference_run(model("HannWindow", TensorData::scalar<int32_t>(4), {{"output_datatype", int64_t{7}}},
                                      "w_i64.onnx"), {})[0].second,
            TensorData::from<int64_t>({4}, {0, 0, 1, 0}));
  EXPECT_EQ(test::reference_run(model("BlackmanWindow", TensorData::scalar<int32_t>(0), {}, "w_0.onnx"), {})[0].second,
            TensorData(DType::Float32, {0}));
}

TEST(WindowFunction, CompiledModelGivesTheReference) {
  // The node is folded: the compiled model's output is the reference's.
  OnnxBuilder b;
  b.initializer("n", TensorData::scalar<int64_t>(9));
  b.node("HannWindow", {"n"}, {"a"}).output("a");
  b.node("HammingWindow", {"n"}, {"b"}, {{"periodic", int64_t{0}}}).output("b");
  b.node("BlackmanWindow", {"n"}, {"c"}, {{"output_datatype", int64_t{10}}}).output("c");
  test::expect_matches_reference(b.save(test::scratch_dir(), "w_c.onnx"), {}, 0, 0);
}

TEST(WindowFunction, Errors) {
  OnnxBuilder b;  // a size computed at run time would make the output's length depend on data
  b.input("n", DType::Int64, {}).node("HannWindow", {"n"}, {"y"}).output("y");
  EXPECT_THAT(import_error(b.save(test::scratch_dir(), "w_e1.onnx")),
              HasSubstr("('n', size) must be a constant known at compile time: the output shape depends on its value"));
  EXPECT_THAT(import_error(model("HannWindow", TensorData::scalar<int64_t>(-1), {}, "w_e2.onnx")), HasSubstr("size is -1"));
  EXPECT_THAT(import_error(model("HannWindow", TensorData::from<int64_t>({2}, {3, 4}), {}, "w_e3.onnx")),
              HasSubstr("size must be a scalar"));
  EXPECT_THAT(import_error(model("HammingWindow", TensorData::scalar<int64_t>(4), {{"periodic", int64_t{2}}}, "w_e4.onnx")),
              HasSubstr("periodic is 2"));
  EXPECT_THAT(import_error(model("BlackmanWindow", TensorData::scalar<int64_t>(4), {{"output_datatype", int64_t{9}}}, "w_e5.onnx")),
              HasSubstr("not a numeric type"));
  EXPECT_THAT(import_error(model("BlackmanWindow", TensorData::scalar<float>(4), {}, "w_e6.onnx")), HasSubstr("float32"));
}

}  // namespace
}  // namespace mlipc::unit_ops_window_function
