// Hostile input to post-training quantization and its options (issue 26,
// reproducers in tests/data/robustness/calibration, README there): a
// calibrated or quantized int8 model pipelined on 3 and 4 PEs builds and
// runs as its single-PE build does.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <algorithm>

#include "io/npz.h"
#include "mesh/manifest.h"
#include "mlf/archive.h"
#include "support/file_util.h"
#include "support/process.h"

namespace fs = std::filesystem;
using ::testing::HasSubstr;

namespace mlipc::test::e2e_ptq_robustness {
namespace {

const fs::path kData = fs::path(MLIPC_TEST_DATA) / "robustness" / "calibration";
const std::string kDigits = (fs::path(MLIPC_EXAMPLES) / "digits" / "model.onnx").string();
const std::string kDigitsQdq = (fs::path(MLIPC_TEST_DATA) / "models" / "quant_qdq_seed_digits_cnn" / "model.onnx").string();

ProcessResult mlipc(std::vector<std::string> args, const fs::path& cwd) {
  args.insert(args.begin(), MLIPC_BINARY);
  return run_process(args, cwd, 900);
}

// The outputs' bytes of `mlipc run TAR --inputs NPZ`.
std::string run_outputs(const fs::path& dir, const std::string& tar, const fs::path& npz) {
  ProcessResult r = mlipc({"run", tar, "--inputs", npz.string(), "--outputs", "out.npz"}, dir);
  EXPECT_EQ(r.exit_code, 0) << tar << ": " << r.err;
  if (r.exit_code != 0) return {};
  std::string bytes;
  for (const auto& [name, t] : io::read_npz(dir / "out.npz")) bytes.append(reinterpret_cast<const char*>(t.raw()), t.nbytes());
  return bytes;
}

// The four digits of digits_stream4.npz through a single-PE tarball, one run each.
std::string run_single(const fs::path& dir, const std::string& tar) {
  const io::NamedTensors stream = io::read_npz(kData / "digits_stream4.npz");
  const TensorData& all = stream.at(0).second;
  const Shape shape(all.shape().begin() + 1, all.shape().end());
  const size_t bytes = all.nbytes() / static_cast<size_t>(all.shape()[0]);
  std::string out;
  for (int64_t i = 0; i < all.shape()[0]; ++i) {
    std::vector<uint8_t> b(all.raw() + static_cast<size_t>(i) * bytes, all.raw() + static_cast<size_t>(i + 1) * bytes);
    io::write_npz(dir / "one.npz", {{stream.at(0).first, TensorData(all.dtype(), shape, std::move(b))}});
    out += run_outputs(dir, tar, dir / "one.npz");
  }
  return out;
}

// Each stage of a mesh tarball has layers and tensors, and its stream's
// outputs are the single-PE build's, bit for bit.
void expect_mesh_like_single(const fs::path& dir, const std::vector<std::string>& compile, int pes) {
  std::vector<std::string> single = compile;
  single.insert(single.end(), {"-o", "single.tar"});
  ProcessResult r = mlipc(single, dir);
  ASSERT_EQ(r.exit_code, 0) << r.err;
  const std::string want = run_single(dir, "single.tar");
  ASSERT_FALSE(want.empty());
  std::vector<std::string> mesh = compile;
  const std::string tar = "mesh" + std::to_string(pes) + ".tar";
  mesh.insert(mesh.end(), {"--pes", std::to_string(pes), "-o", tar});
  r = mlipc(mesh, dir);
  ASSERT_EQ(r.exit_code, 0) << "--pes " << pes << ": " << r.err;
  const mesh::Manifest m = mesh::manifest_from_json(mlf::read_tar(dir / tar).at("pipeline.json"));
  ASSERT_EQ(m.stages.size(), static_cast<size_t>(pes)) << m.fewer_note;
  for (size_t k = 0; k < m.stages.size(); ++k) {
    const mesh::PipeStage& s = m.stages[k];
    EXPECT_FALSE(s.layers.empty()) << "--pes " << pes << ": stage " << k << " has no layer";
    EXPECT_FALSE(s.inputs.empty()) << "--pes " << pes << ": stage " << k << " reads no tensor";
  }
  EXPECT_EQ(run_outputs(dir, tar, kData / "digits_stream4.npz"), want) << "--pes " << pes << ": the pipeline's outputs differ from the single-PE build's";
}

// Issue 26 item 2: the QuantizeLinear calibration puts at the input has no
// ONNX node of its own; it was a stage of nothing (mlipc-error 9 in run).
TEST(PtqRobustness, CalibratedInt8ModelPipelinesOnThreeAndFourPes) {
  TempDir dir("mlipc-ptq-rob");
  for (int pes : {3, 4})
    expect_mesh_like_single(dir.path(),
                            {"compile", kDigits, "--target", "mrvl, c", "--target-mrvl-mattr", "sim -quantize=int8",
                             "--calibration", (kData / "digits_cal10.npz").string()},
                            pes);
}

// Issue 26 item 3: the check for a quantized model looked at one stage
// (all float) and refused the model.
TEST(PtqRobustness, QuantizedModelPipelinesOnThreeAndFourPes) {
  TempDir dir("mlipc-ptq-rob");
  for (int pes : {3, 4})
    expect_mesh_like_single(dir.path(), {"compile", kDigitsQdq, "--target", "mrvl, c", "--target-mrvl-mattr", "sim -quantize=int8"},
                            pes);
}

}  // namespace
}  // namespace mlipc::test::e2e_ptq_robustness
