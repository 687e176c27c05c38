#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "testlib/c_runner.h"
#include "testlib/onnx_builder.h"

namespace mlipc::unit_ops_mel_weight_matrix {
namespace {

using test::import_error;
using test::OnnxBuilder;
using ::testing::HasSubstr;

std::filesystem::path model(int64_t mel_bins, int64_t dft_length, int64_t sample_rate, float lower, float upper,
                            const std::string& file, int64_t output_datatype = 1) {
  OnnxBuilder b;
  b.initializer("m", TensorData::scalar<int64_t>(mel_bins))
      .initializer("d", TensorData::scalar<int32_t>(static_cast<int32_t>(dft_length)))
      .initializer("r", TensorData::scalar<int64_t>(sample_rate))
      .initializer("lo", TensorData::scalar<float>(lower))
      .initializer("hi", TensorData::scalar<float>(upper))
      .node("MelWeightMatrix", {"m", "d", "r", "lo", "hi"}, {"y"}, {{"output_datatype", output_datatype}})
      .output("y");
  return b.save(test::scratch_dir(), file);
}

TEST(MelWeightMatrix, Reference) {
  // 2 filters over 0..4000 Hz at 8000 Hz, dft_length 8: mel points 0,
  // 536.5, 1073.0, 1609.5 (a quarter of mel(4000) apart) are 0, 426.8,
  // 1113.8, 2219.8 Hz, in bins floor(9 hz / 8000) = 0, 0, 1, 2. Filter 0
  // peaks at bin 0 and falls to bin 1; filter 1 rises from bin 0 to 1.
  const TensorData y = test::reference_run(model(2, 8, 8000, 0, 4000, "mel1.onnx"), {})[0].second;
  EXPECT_EQ(y, TensorData::from<float>({5, 2}, {1, 0, 0, 1, 0, 0, 0, 0, 0, 0}));
  // The float64 output of a larger case: every filter peaks at 1, weights in [0, 1].
  const TensorData z = test::reference_run(model(10, 64, 16000, 100, 7000, "mel2.onnx", 11), {})[0].second;
  ASSERT_EQ(z.shape(), (Shape{33, 10}));
  for (int64_t i = 0; i < 10; ++i) {
    double peak = 0;
    for (int64_t j = 0; j < 33; ++j) {
      const double v = z.data<double>()[j * 10 + i];
      EXPECT_TRUE(v >= 0 && v <= 1) << j << " " << i;
      peak = std::max(peak, v);
    }
    EXPECT_EQ(peak, 1.0) << i;
  }
}

TEST(MelWeightMatrix, CompiledModelGivesTheReference) {
  test::expect_matches_reference(model(8, 16, 8192, 0, 4096, "mel_c.onnx"), {}, 0, 0);
}

TEST(MelWeightMatrix, Errors) {
  EXPECT_THAT(import_error(model(0, 16, 8000, 0, 4000, "mel_e1.onnx")), HasSubstr("num_mel_bins is 0"));
  EXPECT_THAT(import_error(model(4, 16, 8000, 0, 5000, "mel_e2.onnx")), HasSubstr("upper <= sample_rate / 2"));
  EXPECT_THAT(import_error(model(4, 16, 8000, 300, 200, "mel_e3.onnx")), HasSubstr("0 <= lower < upper"));
  EXPECT_THAT(import_error(model(4, 16, 8000, 0, 4000, "mel_e4.onnx", 9)), HasSubstr("not a numeric type"));
  OnnxBuilder b;  // a run-time num_mel_bins would make the shape depend on data
  b.input("m", DType::Int64, {})
      .initializer("d", TensorData::scalar<int64_t>(16))
      .initializer("r", TensorData::scalar<int64_t>(8000))
      .initializer("lo", TensorData::scalar<float>(0))
      .initializer("hi", TensorData::scalar<float>(4000))
      .node("MelWeightMatrix", {"m", "d", "r", "lo", "hi"}, {"y"})
      .output("y");
  EXPECT_THAT(import_error(b.save(test::scratch_dir(), "mel_e5.onnx")),
              HasSubstr("('m', num_mel_bins) must be a constant known at compile time"));
}

}  // namespace
}  // namespace mlipc::unit_ops_mel_weight_matrix
