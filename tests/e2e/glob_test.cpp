// Any build can glob a tarball (issue 23; docs/runtime.md, "What a build
// compiles"): every .c file under codegen/ and runtime/src of a tarball,
// compiled with the system cc -std=c99 -Wall -Wextra -Werror -pedantic into
// one program, links without a duplicate symbol and gives `mlipc run`'s
// bits. For "mrvl, c" fp16, an int8 model on the MLIP, the CPU alone, a
// mesh tarball (--pes 2: every stage's codegen/ and one stage's
// runtime/src, the stages carrying the same runtime) and two MLIP modules
// in one image (both modules' codegen/, one runtime). The glob takes the
// TVM adapter too (runtime/src/runtime/crt), so the program is a TVM-style
// one: a crt_config.h from the tarball's template and TVMLogf and
// TVMPlatformAbort.
#include <gtest/gtest.h>

#include <fmt/format.h>

#include <algorithm>

#include "driver/compile.h"
#include "host/host_model.h"
#include "mesh/mesh_compile.h"
#include "mlf/archive.h"
#include "mlip/target.h"
#include "models.h"
#include "support/file_util.h"
#include "support/process.h"
#include "testlib/model_runner.h"

namespace fs = std::filesystem;

namespace mlipc::test::e2e_glob {
namespace {

const std::vector<std::string> kFlags = {"cc", "-std=c99", "-Wall", "-Wextra", "-Werror", "-pedantic"};

// The hooks the TVM adapter binds mlipc's reports to, as a TVM firmware
// defines them.
const char* const kTvmHooks = R"(#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include "tvm/runtime/crt/logging.h"
#include "tvm/runtime/crt/platform.h"
void TVMLogf(const char* format, ...) {
  va_list args;
  va_start(args, format);
  vfprintf(stderr, format, args);
  va_end(args);
}
void TVMPlatformAbort(tvm_crt_error_t code) {
  fprintf(stderr, "TVMPlatformAbort: %d\n", (int)code);
  exit(5);
}
)";

// A program running modules `ms` in turn through their checked entries:
// for each module, its input files and then its output files.
std::string main_source(const std::vector<std::string>& ms) {
  std::string c = "#include <stdio.h>\n#include <stdlib.h>\n#include \"mlip/model.h\"\n";
  for (const std::string& m : ms) c += "#include \"tvmgen_" + m + ".h\"\n";
  c += R"(static void* slurp(const char* path, size_t n) {
  FILE* f = fopen(path, "rb");
  void* p = malloc(n ? n : 1);
  if (!f || !p || fread(p, 1, n, f) != n) exit(3);
  fclose(f);
  return p;
}
static int run(const mlip_model* m, char** files) {
  DLTensor t[16];
  int64_t shapes[16][8];
  int32_t k, d, n = m->num_inputs + m->num_outputs;
  mlip_status s;
  if (n > 16) return 2;
  for (k = 0; k < n; ++k) {
    const mlip_tensor_desc* desc = k < m->num_inputs ? &m->inputs[k] : &m->outputs[k - m->num_inputs];
    if (desc->ndim > 8) return 2;
    for (d = 0; d < desc->ndim; ++d) shapes[k][d] = desc->shape[d];
    t[k].data = k < m->num_inputs ? slurp(files[k], desc->size_bytes) : calloc(desc->size_bytes + 1, 1);
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
  s = mlip_model_run_checked(m, t, m->num_inputs, t + m->num_inputs, m->num_outputs);
  if (s != MLIP_OK) {
    fprintf(stderr, "run failed: %s\n", mlip_status_str(s));
    return 4;
  }
  for (k = m->num_inputs; k < n; ++k) {
    const size_t bytes = m->outputs[k - m->num_inputs].size_bytes;
    FILE* f = fopen(files[k], "wb");
    if (!f || fwrite(t[k].data, 1, bytes, f) != bytes || fclose(f) != 0) return 3;
  }
  for (k = 0; k < n; ++k) free(t[k].data);
  return 0;
}
int main(int argc, char** argv) {
  static const mlip_model* const models[] = {)";
  for (const std::string& m : ms) c += "&tvmgen_" + m + "_model, ";
  c += fmt::format(R"(}};
  char** files = argv + 1;
  int i, used = 0, rc;
  for (i = 0; i < {}; ++i) {{
    const int32_t n = models[i]->num_inputs + models[i]->num_outputs;
    if (used + n > argc - 1) return 2;
    rc = run(models[i], files + used);
    if (rc != 0) return rc;
    used += n;
  }}
  return used == argc - 1 ? 0 : 2;
}}
)",
                   ms.size());
  return c;
}

// Every .c file under `sub` of `dir`, relative to `base`.
std::vector<std::string> c_files(const fs::path& base, const fs::path& dir, const std::string& sub) {
  std::vector<std::string> files;
  if (fs::exists(dir / sub))
    for (const auto& e : fs::recursive_directory_iterator(dir / sub))
      if (e.path().extension() == ".c") files.push_back(fs::relative(e.path(), base).string());
  std::sort(files.begin(), files.end());
  return files;
}

struct Module {
  std::string name;
  fs::path tar, x;  // the tarball and where it is extracted
  io::NamedTensors inputs;
  io::NamedTensors host;  // mlipc run's outputs (the host build of the tarball)
};

// Compiles `onnx` as module `name` into dir/name.tar, extracts it, and runs
// it as `mlipc run` does on random inputs.
Module make_module(const fs::path& onnx, driver::CompileOptions o, const std::string& name, const fs::path& dir) {
  Module m;
  m.name = name;
  o.codegen.module_name = name;
  driver::CompileResult r = driver::compile_model(onnx, o);
  m.tar = dir / (name + ".tar");
  m.x = dir / name;
  driver::write_tarball(r, m.tar);
  mlf::extract_tar(m.tar, m.x);
  for (size_t i = 0; i < r.module.inputs.size(); ++i)
    m.inputs.emplace_back(r.module.inputs[i].name, random_tensor(r.module.inputs[i].dtype, r.module.inputs[i].shape,
                                                                 31 + static_cast<uint32_t>(i)));
  host::BuildOptions bo = test_build_options();
  bo.flags = host::host_flags();  // the host's bits: mlipc run's own build
  m.host = host::HostModel::build(m.tar, bo).run(m.inputs).outputs;
  return m;
}

std::string bytes_of(const TensorData& t) { return std::string(reinterpret_cast<const char*>(t.raw()), t.nbytes()); }

// `files` (relative to `dir`) with the TVM hooks and crt_config.h of `runtime_from`
// into dir/prog; "" or the compiler's complaint.
std::string build(const fs::path& dir, std::vector<std::string> files, const std::vector<fs::path>& includes,
                  const fs::path& runtime_from, const std::vector<std::string>& libs) {
  fs::create_directories(dir / "crt_config");
  fs::copy_file(runtime_from / "templates/crt_config.h.template", dir / "crt_config/crt_config.h",
                fs::copy_options::overwrite_existing);
  write_file(dir / "tvm_hooks.c", kTvmHooks);
  files.push_back("tvm_hooks.c");
  std::vector<std::string> argv = kFlags;
  for (const fs::path& i : includes) argv.push_back("-I" + i.string());
  argv.push_back("-I" + (runtime_from / "runtime/include").string());
  argv.push_back("-Icrt_config");
  argv.insert(argv.end(), files.begin(), files.end());
  argv.insert(argv.end(), {"-o", "prog"});
  argv.insert(argv.end(), libs.begin(), libs.end());
  argv.push_back("-lm");
  ProcessResult p = run_process(argv, dir, 900);
  return p.exit_code == 0 ? "" : p.err.substr(0, 4000);
}

// Runs dir/prog on the modules' inputs; each output's bytes must be mlipc run's.
void expect_host_bits(const fs::path& dir, const std::vector<const Module*>& modules) {
  std::vector<std::string> argv = {(dir / "prog").string()};
  int k = 0;
  for (const Module* m : modules) {
    for (const auto& [name, t] : m->inputs) {
      const fs::path p = dir / fmt::format("in{}.bin", k++);
      write_file(p, bytes_of(t));
      argv.push_back(p.string());
    }
    for (size_t o = 0; o < m->host.size(); ++o) argv.push_back((dir / fmt::format("{}_out{}.bin", m->name, o)).string());
  }
  ProcessResult r = run_process(argv, dir, 600);
  ASSERT_EQ(r.exit_code, 0) << r.err;
  for (const Module* m : modules)
    for (size_t o = 0; o < m->host.size(); ++o)
      EXPECT_TRUE(read_file(dir / fmt::format("{}_out{}.bin", m->name, o)) == bytes_of(m->host[o].second))
          << m->name << ": output " << m->host[o].first << " differs from mlipc run's";
}

// Whether the program's image holds the simulator (its entry, defined once).
bool has_simulator(const fs::path& dir) {
  ProcessResult nm = run_process({"nm", "prog"}, dir, 60);
  return nm.out.find(" T mlip_region_run\n") != std::string::npos;
}

driver::CompileOptions options(const std::string& target, const std::string& quantize = "fp16") {
  driver::CompileOptions o;
  o.target = target;
  o.mlip = mlip::parse_options("cn10ka", "4", "sim -quantize=" + quantize + " -wb_pin_ocm=1");
  return o;
}

fs::path model_dir(const std::string& name) { return fs::path(MLIPC_TEST_DATA) / "models" / name; }

struct Case {
  std::string name;
  std::string model;  // "" for the digits CNN of the default example
  std::string target;
  std::string quantize;
};
void PrintTo(const Case& c, std::ostream* os) { *os << c.name; }

class Glob : public ::testing::TestWithParam<Case> {};

TEST_P(Glob, EveryCFileOfTheTarballLinksOnceAndGivesTheHostBits) {
  const Case& c = GetParam();
  TempDir dir("mlipc-glob");
  const fs::path onnx = c.model.empty() ? model_cases()[0].dir / "model.onnx" : model_dir(c.model) / "model.onnx";
  const Module m = make_module(onnx, options(c.target, c.quantize), "default", dir.path());
  write_file(dir.path() / "main.c", main_source({m.name}));
  std::vector<std::string> files = c_files(dir.path(), m.x, "codegen");
  const std::vector<std::string> runtime = c_files(dir.path(), m.x, "runtime/src");
  files.insert(files.end(), runtime.begin(), runtime.end());
  files.push_back("main.c");
  ASSERT_EQ(build(dir.path(), files, {m.x / "codegen/host/include"}, m.x, {}), "");
  expect_host_bits(dir.path(), {&m});
  // A CPU-only tarball carries no simulator; an MLIP one links it once.
  EXPECT_EQ(fs::exists(m.x / "runtime/src/sim"), c.target != "c");
  EXPECT_EQ(has_simulator(dir.path()), c.target != "c");
}

INSTANTIATE_TEST_SUITE_P(Tarballs, Glob,
                         ::testing::Values(Case{"mrvl_fp16", "", "mrvl, c", "fp16"},
                                           Case{"mrvl_int8", "quant_qdq_mlip_dense", "mrvl, c", "int8"},
                                           Case{"c", "", "c", "fp16"}),
                         [](const auto& info) { return info.param.name; });

// Two MLIP modules in one image: both modules' codegen/, the runtime of one
// (compiled once), each module giving its own host bits.
TEST(GlobTwoModules, TwoMlipModulesLinkIntoOneImageWithOneRuntime) {
  TempDir dir("mlipc-glob2");
  const Module a = make_module(model_cases()[0].dir / "model.onnx", options("mrvl, c"), "digits", dir.path());
  const Module b = make_module(model_dir("quant_qdq_mlip_dense") / "model.onnx", options("mrvl, c", "int8"), "dense",
                               dir.path());
  write_file(dir.path() / "main.c", main_source({a.name, b.name}));
  std::vector<std::string> files = c_files(dir.path(), a.x, "codegen");
  for (const std::string& f : c_files(dir.path(), b.x, "codegen")) files.push_back(f);
  for (const std::string& f : c_files(dir.path(), a.x, "runtime/src")) files.push_back(f);
  files.push_back("main.c");
  ASSERT_EQ(build(dir.path(), files, {a.x / "codegen/host/include", b.x / "codegen/host/include"}, a.x, {}), "");
  expect_host_bits(dir.path(), {&a, &b});
}

// A mesh tarball (--pes 2): every stage's codegen/, the runtime/src of one
// stage (one that carries the simulator), and the pipeline's runner with its
// threads transport; two samples through the stages give the single-PE
// build's bits.
TEST(GlobMesh, EveryStageAndOneRuntimeGiveTheSinglePeBits) {
  TempDir dir("mlipc-glob-mesh");
  const fs::path onnx = model_dir("mlperf_tiny_kws_dscnn") / "model.onnx";
  const Module single = make_module(onnx, options("mrvl, c"), "default", dir.path());
  mesh::MeshResult mr = mesh::compile_mesh(onnx, options("mrvl, c"), {2, 512 * 1024});
  ASSERT_EQ(mr.manifest.stages.size(), 2u);
  const fs::path x = dir.path() / "mesh";
  mlf::write_tar(dir.path() / "mesh.tar", mr.files);
  mlf::extract_tar(dir.path() / "mesh.tar", x);
  std::vector<std::string> files;
  std::vector<fs::path> includes = {x / "mesh"};
  fs::path runtime_stage;
  for (const mesh::PipeStage& s : mr.manifest.stages) {
    for (const std::string& f : c_files(dir.path(), x / s.module, "codegen")) files.push_back(f);
    includes.push_back(x / s.module / "codegen/host/include");
    if (runtime_stage.empty() && fs::exists(x / s.module / "runtime/src/sim")) runtime_stage = x / s.module;
  }
  ASSERT_FALSE(runtime_stage.empty()) << "no stage carries the simulator";
  for (const std::string& f : c_files(dir.path(), runtime_stage, "runtime/src")) files.push_back(f);
  for (const char* f : {"mesh/pipeline.c", "mesh/runner.c", "mesh/transport_threads.c"})
    files.push_back(fs::relative(x / f, dir.path()).string());
  ASSERT_EQ(build(dir.path(), files, includes, runtime_stage, {"-pthread"}), "");
  EXPECT_TRUE(has_simulator(dir.path()));

  // Two samples: the host's first (single's inputs), then a second.
  const size_t samples = 2;
  std::vector<std::string> argv = {(dir.path() / "prog").string(), "-n", std::to_string(samples)};
  std::vector<io::NamedTensors> outs(samples);
  std::vector<std::string> stacked(single.inputs.size());
  host::BuildOptions bo = test_build_options();
  bo.flags = host::host_flags();  // the host's bits: mlipc run's own build
  const host::HostModel host = host::HostModel::build(single.tar, bo);
  for (size_t i = 0; i < samples; ++i) {
    io::NamedTensors in;
    for (size_t k = 0; k < single.inputs.size(); ++k) {
      const TensorData& t0 = single.inputs[k].second;
      TensorData t = i == 0 ? t0 : random_tensor(t0.dtype(), t0.shape(), 100 + static_cast<uint32_t>(k));
      stacked[k] += bytes_of(t);
      in.emplace_back(single.inputs[k].first, std::move(t));
    }
    outs[i] = host.run(in).outputs;
  }
  for (size_t k = 0; k < stacked.size(); ++k) {
    write_file(dir.path() / fmt::format("in{}.bin", k), stacked[k]);
    argv.push_back((dir.path() / fmt::format("in{}.bin", k)).string());
  }
  for (size_t k = 0; k < single.host.size(); ++k) argv.push_back((dir.path() / fmt::format("out{}.bin", k)).string());
  ProcessResult r = run_process(argv, dir.path(), 600);
  ASSERT_EQ(r.exit_code, 0) << r.out << r.err;
  for (size_t k = 0; k < single.host.size(); ++k) {
    std::string want;
    for (size_t i = 0; i < samples; ++i) want += bytes_of(outs[i][k].second);
    EXPECT_TRUE(read_file(dir.path() / fmt::format("out{}.bin", k)) == want)
        << "output " << k << " differs from the single-PE build";
  }
}

}  // namespace
}  // namespace mlipc::test::e2e_glob
