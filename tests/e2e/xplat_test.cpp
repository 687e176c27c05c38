// Same bits everywhere without the user's help (issue 10, item 5): a shared
// model's tarball built for AArch64 in GNU C mode at -O2 with no
// -ffp-contract flag (GCC then contracts a*b + c into fused multiply-adds
// unless the sources forbid it: mlip/strict_fp.h) runs under qemu-aarch64 and
// gives the host's `mlipc run` bits, byte for byte; and the generated C and
// the runtime assemble to no fused multiply-add at all.
#include <gtest/gtest.h>

#include <fmt/format.h>

#include "driver/compile.h"
#include "mlf/archive.h"
#include "models.h"
#include "support/file_util.h"
#include "support/process.h"
#include "testlib/model_runner.h"

namespace fs = std::filesystem;

namespace mlipc::test::e2e_xplat {
namespace {

// A plain hosted driver: raw input files in, raw output files out, through
// the checked entry point of module "default".
constexpr const char* kMain = R"(#include <stdio.h>
#include <stdlib.h>
#include "mlip/model.h"
#include "tvmgen_default.h"
static void* slurp(const char* path, size_t n) {
  FILE* f = fopen(path, "rb");
  void* p = malloc(n ? n : 1);
  if (!f || !p || fread(p, 1, n, f) != n) exit(3);
  fclose(f);
  return p;
}
int main(int argc, char** argv) {
  const mlip_model* m = &tvmgen_default_model;
  DLTensor t[64];
  int64_t shapes[64][8];
  int32_t k, d, n = m->num_inputs + m->num_outputs;
  if (argc != 1 + n || n > 64) return 2;
  for (k = 0; k < n; ++k) {
    const mlip_tensor_desc* desc = k < m->num_inputs ? &m->inputs[k] : &m->outputs[k - m->num_inputs];
    if (desc->ndim > 8) return 2;
    for (d = 0; d < desc->ndim; ++d) shapes[k][d] = desc->shape[d];
    t[k].data = k < m->num_inputs ? slurp(argv[1 + k], desc->size_bytes) : calloc(desc->size_bytes + 1, 1);
    t[k].device.device_type = kDLCPU;
    t[k].device.device_id = 0;
    t[k].ndim = desc->ndim;
    t[k].dtype.code = desc->dtype_code;
    t[k].dtype.bits = desc->dtype_bits;
    t[k].dtype.lanes = desc->dtype_lanes;
    t[k].shape = shapes[k];
    t[k].strides = NULL;
    t[k].byte_offset = 0;
  }
  if (mlip_model_run_checked(m, t, m->num_inputs, t + m->num_inputs, m->num_outputs) != MLIP_OK) return 4;
  for (k = m->num_inputs; k < n; ++k) {
    FILE* f = fopen(argv[1 + k], "wb");
    if (!f || fwrite(t[k].data, 1, m->outputs[k - m->num_inputs].size_bytes, f) != m->outputs[k - m->num_inputs].size_bytes) return 3;
    fclose(f);
  }
  return 0;
}
)";

bool have(const std::string& tool) {
  return run_process({"sh", "-c", "command -v \"$0\" >/dev/null", tool}, fs::current_path(), 60).exit_code == 0;
}

std::vector<std::string> c_sources(const fs::path& dir) {
  std::vector<std::string> files;
  for (const char* sub : {"codegen/host/src", "runtime/src"})
    for (const auto& e : fs::recursive_directory_iterator(dir / sub))
      if (e.path().extension() == ".c") files.push_back(fs::relative(e.path(), dir).string());
  std::sort(files.begin(), files.end());
  return files;
}

struct XplatCase {
  std::string name;
  size_t model;  // index in model_cases()
  std::string target;
};

class XplatGnu : public ::testing::TestWithParam<XplatCase> {};

TEST_P(XplatGnu, Aarch64Gnu99O2WithoutContractFlagGivesHostBits) {
  for (const char* tool : {"aarch64-linux-gnu-gcc", "qemu-aarch64"})
    if (!have(tool)) GTEST_SKIP() << tool << " missing (scripts/setup.sh installs it)";
  const XplatCase& c = GetParam();
  const ModelCase& m = model_cases()[c.model];
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
  io::NamedTensors host = compile_and_run(m.dir / "model.onnx", inputs, opt);

  const fs::path x = dir.path() / "x";
  mlf::extract_tar(dir.path() / "model.tar", x);
  write_file(x / "xplat_main.c", kMain);
  std::vector<std::string> files = c_sources(x);
  // GNU C, -O2, no -ffp-contract: only the sources keep GCC from fusing.
  const std::vector<std::string> flags = {"-std=gnu99", "-O2", "-Wall", "-Wextra", "-Werror",
                                          "-Icodegen/host/include", "-Iruntime/include"};

  // No fused multiply-add in the generated code or the runtime.
  for (const std::string& f : files) {
    std::vector<std::string> argv = {"aarch64-linux-gnu-gcc"};
    argv.insert(argv.end(), flags.begin(), flags.end());
    argv.insert(argv.end(), {"-S", f, "-o", "one.s"});
    ProcessResult s = run_process(argv, x, 600);
    ASSERT_EQ(s.exit_code, 0) << f << "\n" << s.err;
    const std::string as = read_file(x / "one.s");
    for (const char* op : {"\tfmadd\t", "\tfmsub\t", "\tfnmadd\t", "\tfnmsub\t", "\tfmla\t", "\tfmls\t"})
      EXPECT_EQ(as.find(op), std::string::npos) << f << " has" << op;
  }

  // The control: with the header's guard predefined (so it does nothing),
  // GCC fuses in the simulator's convolution and, on "c", in the generated
  // layers; the check above can fail.
  std::vector<std::string> control = {"runtime/src/sim/op_conv2d.c"};
  if (c.target == "c") control.push_back("codegen/host/src/default_lib1.c");
  for (const std::string& f : control) {
    std::vector<std::string> argv = {"aarch64-linux-gnu-gcc"};
    argv.insert(argv.end(), flags.begin(), flags.end());
    argv.insert(argv.end(), {"-DMLIP_STRICT_FP_H_", "-S", f, "-o", "control.s"});
    ProcessResult s = run_process(argv, x, 600);
    ASSERT_EQ(s.exit_code, 0) << s.err;
    // Scalar (fmadd) or, in the vector kernels (mlip/kvec.h), vector (fmla).
    const std::string as = read_file(x / "control.s");
    EXPECT_TRUE(as.find("\tfmadd\t") != std::string::npos || as.find("\tfmla\t") != std::string::npos)
        << "GCC no longer contracts " << f << " without mlip/strict_fp.h: the check proves nothing there";
  }

  std::vector<std::string> argv = {"aarch64-linux-gnu-gcc"};
  argv.insert(argv.end(), flags.begin(), flags.end());
  argv.push_back("-static");
  argv.insert(argv.end(), files.begin(), files.end());
  argv.insert(argv.end(), {"xplat_main.c", "-lm", "-o", "model.elf"});
  ProcessResult b = run_process(argv, x, 600);
  ASSERT_EQ(b.exit_code, 0) << b.err;
  std::vector<std::string> run = {"qemu-aarch64", "model.elf"};
  for (size_t i = 0; i < inputs.size(); ++i) {
    write_file(x / fmt::format("in{}.bin", i),
               std::string_view(reinterpret_cast<const char*>(inputs[i].second.raw()), inputs[i].second.nbytes()));
    run.push_back(fmt::format("in{}.bin", i));
  }
  for (size_t i = 0; i < host.size(); ++i) run.push_back(fmt::format("out{}.bin", i));
  ProcessResult q = run_process(run, x, 600);
  ASSERT_EQ(q.exit_code, 0) << q.err;
  for (size_t i = 0; i < host.size(); ++i) {
    const TensorData& want = host[i].second;
    const std::string got = read_file(x / fmt::format("out{}.bin", i));
    ASSERT_EQ(got.size(), want.nbytes());
    EXPECT_TRUE(got == std::string(reinterpret_cast<const char*>(want.raw()), want.nbytes()))
        << m.name << " on " << c.target << ": output " << host[i].first << " differs from the host's bits";
  }
}

// The digits CNN on both targets, and the keyword-spotting net on the CPU
// (depthwise and pointwise convolutions, average pooling, softmax).
INSTANTIATE_TEST_SUITE_P(Shared, XplatGnu,
                         ::testing::Values(XplatCase{"digits_c", 0, "c"}, XplatCase{"digits_mrvl", 0, "mrvl, c"},
                                           XplatCase{"kws_dscnn_c", 1, "c"}),
                         [](const auto& info) { return info.param.name; });

}  // namespace
}  // namespace mlipc::test::e2e_xplat
