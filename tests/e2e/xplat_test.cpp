// Same bits everywhere without the user's help (issue 10, item 5): a shared
// model's tarball built for AArch64 in GNU C mode at -O2 with no
// -ffp-contract flag (GCC then contracts a*b + c into fused multiply-adds
// unless the sources forbid it: mlip/strict_fp.h) runs under qemu-aarch64 and
// gives the host's `mlipc run` bits, byte for byte; and the generated C and
// the runtime assemble to no fused multiply-add at all.
#include <gtest/gtest.h>

#include <fmt/format.h>

#include <stdexcept>

#include "cross_targets.h"
#include "driver/compile.h"
#include "mlf/archive.h"
#include "models.h"
#include "support/file_util.h"
#include "support/process.h"
#include "testlib/model_runner.h"

namespace fs = std::filesystem;

namespace mlipc::test::e2e_xplat {
namespace {

struct XplatCase {
  std::string name;
  size_t model;  // index in model_cases()
  std::string target;
  std::string generated = {};  // instead: this tests/data/models/torch_* folder
};

const ModelCase& model_of(const XplatCase& c) {
  if (c.generated.empty()) return model_cases()[c.model];
  for (const ModelCase& m : generated_model_cases())
    if (m.name == c.generated) return m;
  throw std::runtime_error("no generated model " + c.generated);
}

class XplatGnu : public ::testing::TestWithParam<XplatCase> {};

TEST_P(XplatGnu, Aarch64Gnu99O2WithoutContractFlagGivesHostBits) {
  for (const char* tool : {"aarch64-linux-gnu-gcc", "qemu-aarch64"})
    if (!have_tool(tool)) GTEST_SKIP() << tool << " missing (scripts/setup.sh installs it)";
  const XplatCase& c = GetParam();
  const ModelCase& m = model_of(c);
  TempDir dir("mlipc-xplat");
  driver::CompileOptions opt;
  opt.target = c.target;
  opt.mlip = mlip::parse_options("cn10ka", "4", "sim -quantize=fp16 -wb_pin_ocm=1");
  driver::CompileResult r = driver::compile_model(m.dir / "model.onnx", opt);
  driver::write_tarball(r, dir.path() / "model.tar");
  io::NamedTensors inputs;
  for (size_t i = 0; i < r.module.inputs.size(); ++i)
    inputs.emplace_back(r.module.inputs[i].name,
                        random_tensor(r.module.inputs[i].dtype, r.module.inputs[i].shape, 7 + static_cast<uint32_t>(i)));
  // The host's bits: mlipc run's own build (-std=c99 -O3 -ffp-contract=off).
  io::NamedTensors host = compile_and_run(m.dir / "model.onnx", inputs, opt, nullptr, host::host_flags());

  const fs::path x = dir.path() / "x";
  mlf::extract_tar(dir.path() / "model.tar", x);
  std::vector<std::string> files = tarball_c_sources(x);
  // GNU C, -O2, no -ffp-contract: only the sources keep GCC from fusing.
  const std::vector<std::string> gnu = {"-std=gnu99", "-O2", "-Wall", "-Wextra", "-Werror"};
  std::vector<std::string> flags = gnu;
  flags.insert(flags.end(), {"-Icodegen/host/include", "-Iruntime/include"});

  // No fused multiply-add in the generated code or the runtime but the
  // kernels' own (mlip/kfma.h's mlip_fmaf and kvec.h's MLIP_VFMA): with
  // those written as a plain a * b + c (MLIP_FMA_UNFUSED), no fused
  // instruction at all; the control shows GCC fuses them without the header.
  for (const std::string& f : files) {
    std::vector<std::string> argv = {"aarch64-linux-gnu-gcc"};
    argv.insert(argv.end(), flags.begin(), flags.end());
    argv.insert(argv.end(), {"-DMLIP_FMA_UNFUSED", "-S", f, "-o", "one.s"});
    ProcessResult s = run_process(argv, x, 600);
    ASSERT_EQ(s.exit_code, 0) << f << "\n" << s.err;
    const std::string as = read_file(x / "one.s");
    for (const char* op : {"\tfmadd\t", "\tfmsub\t", "\tfnmadd\t", "\tfnmsub\t", "\tfmla\t", "\tfmls\t"})
      EXPECT_EQ(as.find(op), std::string::npos) << f << " has" << op;
  }

  // The control: with the header's guard predefined (so it does nothing),
  // GCC fuses in the simulator's convolution ("mrvl, c") or in the generated
  // layers ("c", whose tarball has no simulator); the check above can fail.
  std::vector<std::string> control = {c.target == "c" ? "codegen/host/src/default_lib1.c" : "runtime/src/sim/mlip_sim.c"};
  for (const std::string& f : control) {
    std::vector<std::string> argv = {"aarch64-linux-gnu-gcc"};
    argv.insert(argv.end(), flags.begin(), flags.end());
    argv.insert(argv.end(), {"-DMLIP_STRICT_FP_H_", "-DMLIP_FMA_UNFUSED", "-S", f, "-o", "control.s"});
    ProcessResult s = run_process(argv, x, 600);
    ASSERT_EQ(s.exit_code, 0) << s.err;
    // Scalar (fmadd) or, in the vector kernels (mlip/kvec.h), vector (fmla).
    const std::string as = read_file(x / "control.s");
    EXPECT_TRUE(as.find("\tfmadd\t") != std::string::npos || as.find("\tfmla\t") != std::string::npos)
        << "GCC no longer contracts " << f << " without mlip/strict_fp.h: the check proves nothing there";
  }

  TargetRun q = run_aarch64(x, gnu, inputs, host.size());
  ASSERT_EQ(q.error, "");
  for (size_t i = 0; i < host.size(); ++i) {
    const TensorData& want = host[i].second;
    ASSERT_EQ(q.outputs[i].size(), want.nbytes());
    EXPECT_TRUE(q.outputs[i] == std::string(reinterpret_cast<const char*>(want.raw()), want.nbytes()))
        << m.name << " on " << c.target << ": output " << host[i].first << " differs from the host's bits";
  }
}

// The digits CNN on both targets, the keyword-spotting net on the CPU
// (depthwise and pointwise convolutions, average pooling, softmax), and a
// ViT on the CPU (Softmax over the last axis, LayerNormalization, the exact
// GELU fused into one Gelu: mlip/kmath_f.h's float-precision exp and erf in
// NEON lanes), and its opset-14 export (LayerNormalization fused from its
// decomposition, dividing by the standard deviation); and kmath_f.h's
// float-precision sigmoid, SiLU and tanh in NEON lanes: an MBConv block
// (SiLU epilogues, the squeeze-and-excitation sigmoid), a CRNN (its
// bidirectional LSTM's gates) and a two-layer bidirectional GRU.
INSTANTIATE_TEST_SUITE_P(Shared, XplatGnu,
                         ::testing::Values(XplatCase{"digits_c", 0, "c"}, XplatCase{"digits_mrvl", 0, "mrvl, c"},
                                           XplatCase{"kws_dscnn_c", 1, "c"},
                                           XplatCase{"vit_c", 0, "c", "torch_mlip_vit_opset17"},
                                           XplatCase{"vit_opset14_c", 0, "c", "torch_mlip_vit_opset14"},
                                           XplatCase{"mbconv_c", 0, "c", "torch_mlip_mbconv"},
                                           XplatCase{"crnn_c", 0, "c", "torch_crnn_opset17"},
                                           XplatCase{"gru_bidir2_c", 0, "c", "torch_gru_bidir2_classifier_opset17"}),
                         [](const auto& info) { return info.param.name; });

}  // namespace
}  // namespace mlipc::test::e2e_xplat
