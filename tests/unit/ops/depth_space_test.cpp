// DepthToSpace (DCR and CRD) and SpaceToDepth.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "frontend/onnx_import.h"
#include "support/error.h"
#include "testlib/c_runner.h"
#include "testlib/onnx_builder.h"

namespace mlipc::unit_ops_depth_space {
namespace {

using test::OnnxBuilder;
using ::testing::HasSubstr;

std::filesystem::path model(const std::string& op, DType dt, const Shape& in,
                            std::vector<std::pair<std::string, AttrValue>> attrs, const std::string& file) {
  OnnxBuilder b;
  b.input("x", dt, in);
  b.node(op, {"x"}, {"y"}, attrs).output("y");
  return b.save(test::scratch_dir(), file);
}

using test::import_error;

TensorData iota(const Shape& s) {
  std::vector<float> v(static_cast<size_t>(numel(s)));
  for (size_t i = 0; i < v.size(); ++i) v[i] = static_cast<float>(i);
  return TensorData::from<float>(s, v);
}

TEST(DepthToSpace, ReferenceOnTheSpecExamples) {
  // x = 0..15 as [1, 8, 1, 2], blocksize 2.
  const TensorData x = iota({1, 8, 1, 2});
  const TensorData dcr = test::reference_run(model("DepthToSpace", DType::Float32, {1, 8, 1, 2},
                                                   {{"blocksize", int64_t{2}}}, "d2s_dcr.onnx"), {{"x", x}})[0].second;
  EXPECT_EQ(dcr, TensorData::from<float>({1, 2, 2, 4}, {0, 4, 1, 5, 8, 12, 9, 13, 2, 6, 3, 7, 10, 14, 11, 15}));
  const TensorData crd = test::reference_run(
      model("DepthToSpace", DType::Float32, {1, 8, 1, 2}, {{"blocksize", int64_t{2}}, {"mode", std::string("CRD")}},
            "d2s_crd.onnx"), {{"x", x}})[0].second;
  EXPECT_EQ(crd, TensorData::from<float>({1, 2, 2, 4}, {0, 2, 1, 3, 4, 6, 5, 7, 8, 10, 9, 11, 12, 14, 13, 15}));
  // SpaceToDepth inverts DCR.
  const auto s2d = model("SpaceToDepth", DType::Float32, {1, 2, 2, 4}, {{"blocksize", int64_t{2}}}, "s2d.onnx");
  EXPECT_EQ(test::reference_run(s2d, {{"x", dcr}})[0].second, x);
}

TEST(DepthToSpace, Errors) {
  EXPECT_THAT(import_error(model("DepthToSpace", DType::Float32, {1, 6, 2, 2}, {{"blocksize", int64_t{2}}}, "d2s_e1.onnx")),
              HasSubstr("channels 6 are not a multiple of blocksize^2 = 4"));
  EXPECT_THAT(import_error(model("DepthToSpace", DType::Float32, {1, 4, 2, 2},
                                 {{"blocksize", int64_t{2}}, {"mode", std::string("XYZ")}}, "d2s_e2.onnx")),
              HasSubstr("mode 'XYZ' is not supported (supported: DCR, CRD)"));
  EXPECT_THAT(import_error(model("SpaceToDepth", DType::Float32, {1, 1, 3, 4}, {{"blocksize", int64_t{2}}}, "s2d_e1.onnx")),
              HasSubstr("height 3 and width 4 must be multiples of blocksize 2"));
  EXPECT_THAT(import_error(model("SpaceToDepth", DType::Float32, {4, 4}, {{"blocksize", int64_t{2}}}, "s2d_e2.onnx")),
              HasSubstr("must be 4-D (NCHW)"));
  EXPECT_THAT(import_error(model("SpaceToDepth", DType::Float32, {1, 1, 4, 4}, {}, "s2d_e3.onnx")),
              HasSubstr("attribute 'blocksize' is required"));
}

TEST(DepthToSpace, GeneratedCMatchesReference) {
  OnnxBuilder b;  // both modes and SpaceToDepth, two element types each, in one model
  io::NamedTensors in;
  int k = 0;
  auto add = [&](const std::string& op, DType dt, const Shape& s, std::vector<std::pair<std::string, AttrValue>> attrs) {
    const std::string p = std::to_string(k++);
    b.input("x" + p, dt, s);
    b.node(op, {"x" + p}, {"y" + p}, attrs).output("y" + p);
    in.emplace_back("x" + p, test::random_tensor(dt, s, k, 0, 100));
  };
  for (const char* mode : {"DCR", "CRD"})
    for (DType dt : {DType::Float32, DType::UInt8})
      add("DepthToSpace", dt, {2, 18, 2, 3}, {{"blocksize", int64_t{3}}, {"mode", std::string(mode)}});
  for (DType dt : {DType::Float32, DType::Int64}) add("SpaceToDepth", dt, {2, 3, 4, 6}, {{"blocksize", int64_t{2}}});
  test::expect_matches_reference(b.save(test::scratch_dir(), "d2s_c.onnx"), in, 0, 0);
}

}  // namespace
}  // namespace mlipc::unit_ops_depth_space
