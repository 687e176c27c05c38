// The default example's model on real data: 64 images of the digits test
// split, run through the generated C, must be classified as onnxruntime's
// trained model does (97.7% on the full split).
#include <gtest/gtest.h>

#include <fmt/format.h>

#include "driver/compile.h"
#include "host/host_model.h"
#include "io/npz.h"
#include "models.h"
#include "testlib/model_runner.h"

namespace fs = std::filesystem;

namespace mlipc::test::e2e_digits_accuracy {
namespace {

TEST(DigitsAccuracy, GeneratedCClassifiesTestImages) {
  io::NamedTensors data = io::read_npz(fs::path(MLIPC_TEST_DATA) / "digits_test64.npz");
  const TensorData& images = data[0].second;
  std::vector<int64_t> labels = data[1].second.as_int64();
  ASSERT_EQ(images.shape(), (Shape{64, 1, 28, 28}));

  driver::CompileResult r = driver::compile_model(model_cases()[0].dir / "model.onnx", {});
  fs::path tar = scratch_dir() / "digits_accuracy.tar";
  driver::write_tarball(r, tar);
  host::BuildOptions bo = test_build_options();
  host::HostModel m = host::HostModel::build(tar, bo);

  const size_t per = 28 * 28 * sizeof(float);
  std::vector<io::NamedTensors> in;  // the 64 images, run by one process (HostModel::run_each)
  for (int i = 0; i < 64; ++i) {
    std::vector<uint8_t> bytes(images.raw() + i * per, images.raw() + (i + 1) * per);
    in.push_back({{"Input3", TensorData(DType::Float32, {1, 1, 28, 28}, bytes)}});
  }
  const std::vector<io::NamedTensors> outs = m.run_each(in);
  int correct = 0;
  for (int i = 0; i < 64; ++i) {
    const float* logits = outs[static_cast<size_t>(i)][0].second.data<float>();
    int best = static_cast<int>(std::max_element(logits, logits + 10) - logits);
    correct += best == labels[i];
  }
  fmt::print("digits: {}/64 correct\n", correct);
  EXPECT_GE(correct, 60);
}

}  // namespace
}  // namespace mlipc::test::e2e_digits_accuracy
