// LpPool and GlobalLpPool: shape rules, reference by hand, generated C
// against the reference (bit-identical) for p = 1, 2 and 3 and each window form.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <random>

#include "frontend/onnx_import.h"
#include "support/error.h"
#include "testlib/c_runner.h"
#include "testlib/onnx_builder.h"

namespace mlipc::unit_ops_lp_pool {
namespace {

namespace fs = std::filesystem;
using ::testing::HasSubstr;
using test::ints;
using test::OnnxBuilder;
using test::random_tensor;
using Attr = std::pair<std::string, AttrValue>;

struct Pool {
  std::string op;
  Shape x;
  std::vector<Attr> attrs;
};

fs::path model(const std::string& name, const std::vector<Pool>& pools, int opset = 17) {
  OnnxBuilder m(opset);
  for (size_t i = 0; i < pools.size(); ++i) {
    const std::string k = std::to_string(i);
    m.input("x" + k, DType::Float32, pools[i].x);
    m.node(pools[i].op, {"x" + k}, {"y" + k}, pools[i].attrs);
    m.output("y" + k);
  }
  return m.save(test::scratch_dir(), "lp_" + name + ".onnx");
}

Shape out_shape(const Pool& p) {
  Graph g = frontend::import_onnx(model("shape", {p}));
  return g.value(g.outputs[0].value).shape;
}

std::string import_error(const Pool& p, int opset = 17) {
  try {
    frontend::import_onnx(model("err", {p}, opset));
  } catch (const Error& e) {
    return e.what();
  }
  return "";
}

TEST(LpPool, ShapeRule) {
  EXPECT_EQ(out_shape({"LpPool", {1, 2, 7, 6}, {{"kernel_shape", ints{3, 2}}, {"strides", ints{2, 2}}}}),
            (Shape{1, 2, 3, 3}));
  EXPECT_EQ(out_shape({"LpPool", {1, 2, 7, 6}, {{"kernel_shape", ints{3, 3}}, {"pads", ints{1, 1, 1, 1}}}}),
            (Shape{1, 2, 7, 6}));
  EXPECT_EQ(out_shape({"LpPool", {1, 2, 7}, {{"kernel_shape", ints{2}}, {"auto_pad", std::string("SAME_UPPER")},
                                             {"strides", ints{2}}}}),
            (Shape{1, 2, 4}));
  // The opset-18 attributes.
  EXPECT_EQ(out_shape({"LpPool", {1, 1, 8}, {{"kernel_shape", ints{2}}, {"dilations", ints{2}}}}), (Shape{1, 1, 6}));
  EXPECT_EQ(out_shape({"LpPool", {1, 1, 8}, {{"kernel_shape", ints{3}}, {"strides", ints{2}}, {"ceil_mode", int64_t{1}}}}),
            (Shape{1, 1, 4}));
  EXPECT_EQ(out_shape({"GlobalLpPool", {2, 3, 4, 5, 6}, {}}), (Shape{2, 3, 1, 1, 1}));
}

TEST(LpPool, ShapeRuleErrors) {
  EXPECT_THAT(import_error({"LpPool", {1, 2, 4, 4}, {}}), HasSubstr("kernel_shape is required"));
  EXPECT_THAT(import_error({"LpPool", {1, 2, 4, 4}, {{"kernel_shape", ints{2, 2}}, {"p", int64_t{0}}}}),
              HasSubstr("attribute p is 0; it must be a positive integer"));
  EXPECT_THAT(import_error({"GlobalLpPool", {1, 2}, {}}), HasSubstr("GlobalLpPool supports 1-D to 3-D data"));
  EXPECT_THAT(import_error({"LpPool", {1, 2, 4, 4}, {{"kernel_shape", ints{2}}}}),
              HasSubstr("attribute kernel_shape has 1 values"));
  // Opset 1 wrote p as a float: integral values are read as integers.
  EXPECT_THAT(import_error({"LpPool", {1, 2, 4, 4}, {{"kernel_shape", ints{2, 2}}, {"p", 2.5f}}}, 1),
              HasSubstr("attribute p is 2.5; it must be a positive integer"));
  EXPECT_EQ(import_error({"GlobalLpPool", {1, 2, 4, 4}, {{"p", 3.0f}}}, 1), "");
}

TEST(LpPool, ReferenceByHand) {
  TensorData x = TensorData::from<float>({1, 1, 2, 2}, {3, -4, 0, 0});
  auto run = [&](const Pool& p) { return test::reference_run(model("ref", {p}), {{"x0", x}})[0].second; };
  EXPECT_EQ(run({"GlobalLpPool", {1, 1, 2, 2}, {}}), TensorData::from<float>({1, 1, 1, 1}, {5}));
  EXPECT_EQ(run({"GlobalLpPool", {1, 1, 2, 2}, {{"p", int64_t{1}}}}), TensorData::from<float>({1, 1, 1, 1}, {7}));
  // Windows of 1x2 along rows, the second row all zeros; padding adds nothing.
  EXPECT_EQ(run({"LpPool", {1, 1, 2, 2}, {{"kernel_shape", ints{1, 2}}, {"pads", ints{0, 1, 0, 0}}}}),
            TensorData::from<float>({1, 1, 2, 2}, {3, 5, 0, 0}));
}

TEST(LpPool, GeneratedCMatchesReference) {
  const std::vector<Pool> pools = {
      {"LpPool", {2, 3, 7, 6}, {{"kernel_shape", ints{3, 2}}, {"strides", ints{2, 1}}, {"pads", ints{1, 0, 1, 1}}}},
      {"LpPool", {1, 2, 9}, {{"kernel_shape", ints{3}}, {"p", int64_t{1}}, {"auto_pad", std::string("SAME_LOWER")},
                             {"strides", ints{2}}}},
      {"LpPool", {1, 2, 4, 5, 6}, {{"kernel_shape", ints{2, 2, 3}}, {"p", int64_t{3}}, {"strides", ints{1, 2, 2}}}},
      {"LpPool", {1, 2, 8, 8}, {{"kernel_shape", ints{2, 3}}, {"dilations", ints{2, 1}}, {"ceil_mode", int64_t{1}},
                                {"strides", ints{3, 3}}}},
      {"GlobalLpPool", {2, 3, 5, 4}, {}},
      {"GlobalLpPool", {1, 4, 9}, {{"p", int64_t{1}}}},
      {"GlobalLpPool", {1, 2, 3, 2, 4}, {{"p", int64_t{4}}}},
  };
  io::NamedTensors in;
  for (size_t i = 0; i < pools.size(); ++i)
    in.emplace_back("x" + std::to_string(i), random_tensor(DType::Float32, pools[i].x, static_cast<uint32_t>(i + 1)));
  test::expect_matches_reference(model("c", pools), in, 0.0, 0.0);
}

// Random windows, a few seeds, several pools per model.
TEST(LpPool, GeneratedCMatchesReferenceRandomized) {
  for (uint32_t seed = 1; seed <= 3; ++seed) {
    std::mt19937 rng(seed);
    auto pick = [&](int lo, int hi) { return std::uniform_int_distribution<int>(lo, hi)(rng); };
    std::vector<Pool> pools;
    io::NamedTensors in;
    for (int k = 0; k < 4; ++k) {
      const int rank = pick(1, 3);
      Shape x = {pick(1, 2), pick(1, 3)};
      ints kernel, strides, dil, pads(2 * static_cast<size_t>(rank));
      for (int i = 0; i < rank; ++i) {
        x.push_back(pick(3, rank == 3 ? 5 : 9));
        kernel.push_back(pick(1, 3));
        strides.push_back(pick(1, 3));
        dil.push_back(pick(1, 2));
        pads[static_cast<size_t>(i)] = pick(0, static_cast<int>(kernel.back()) - 1);
        pads[static_cast<size_t>(rank + i)] = pick(0, static_cast<int>(kernel.back()) - 1);
      }
      Pool p{k == 3 ? "GlobalLpPool" : "LpPool", x, {{"p", int64_t{pick(1, 4)}}}};
      if (p.op == "LpPool")
        p.attrs.insert(p.attrs.end(), {{"kernel_shape", kernel}, {"strides", strides}, {"dilations", dil},
                                       {"pads", pads}, {"ceil_mode", int64_t{pick(0, 1)}}});
      in.emplace_back("x" + std::to_string(k), random_tensor(DType::Float32, x, seed * 10 + static_cast<uint32_t>(k)));
      pools.push_back(p);
    }
    test::expect_matches_reference(model("rand" + std::to_string(seed), pools), in, 0.0, 0.0);
  }
}

}  // namespace
}  // namespace mlipc::unit_ops_lp_pool
