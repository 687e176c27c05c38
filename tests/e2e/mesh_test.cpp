// One model pipelined across processing elements (issue 14, docs/mesh.md):
// compile --pes K, run a stream of samples through the pipeline (threads
// transport, and MPI under mpirun), compare every sample with the
// single-PE build bit for bit; the estimated throughput, the memory
// limit's error, and a manifest that does not match its stages.
//
// The suite runs the threads transport for the three models at 2 and 4
// PEs on 8 samples, and MPI for kws_dscnn at 2 and 4 PEs; MLIPC_MESH_FULL=1
// streams 16 samples and runs MPI for all three models (docs/mesh.md: run
// this program itself, as ctest lists the tests when it is built).
#include <gtest/gtest.h>
#include <gmock/gmock.h>

#include <cstdlib>
#include <unistd.h>

#include <fmt/format.h>

#include "host/host_model.h"
#include "io/npz.h"
#include "mesh/mesh_compile.h"
#include "mlf/archive.h"
#include "testlib/model_runner.h"
#include "support/file_util.h"
#include "support/process.h"

namespace fs = std::filesystem;
using ::testing::HasSubstr;

namespace mlipc::test::e2e_mesh {
namespace {

bool full_mode() {
  const char* v = std::getenv("MLIPC_MESH_FULL");
  return v && std::string(v) == "1";
}
int stream_samples() { return full_mode() ? 16 : 8; }

// "ic_resnet8" is an MLPerf Tiny model; "quant_..." and "torch_..." a
// folder's own name.
fs::path model_path(const std::string& name) {
  const bool own = name.rfind("quant_", 0) == 0 || name.rfind("torch_", 0) == 0;
  const std::string dir = own ? name : "mlperf_tiny_" + name;
  return fs::path(MLIPC_TEST_DATA) / "models" / dir / "model.onnx";
}

driver::CompileOptions target_options(const std::string& target = "mrvl, c", const std::string& quantize = "fp16") {
  driver::CompileOptions o;
  o.target = target;
  o.mlip.quantize = quantize;
  return o;
}

ProcessResult mlipc(std::vector<std::string> args, const fs::path& cwd) {
  args.insert(args.begin(), MLIPC_BINARY);
  return run_process(args, cwd, 900);
}

// The single-PE build's outputs of every sample, and the stream as an .npz
// (each input with a leading sample axis).
struct Stream {
  io::NamedTensors npz;                        // [N, ...] per input
  std::vector<std::vector<std::string>> want;  // per output, per sample: raw bytes
};

Stream make_stream(const fs::path& onnx, const fs::path& dir, int samples,
                   const driver::CompileOptions& options = target_options()) {
  driver::CompileResult single = driver::compile_model(onnx, options);
  const fs::path tar = dir / "single.tar";
  driver::write_tarball(single, tar);
  host::HostModel model = host::HostModel::build(tar);
  Stream s;
  std::vector<TensorData> per_sample;
  std::vector<std::string> stacked(model.metadata().inputs.size());
  s.want.resize(model.metadata().outputs.size());
  for (int i = 0; i < samples; ++i) {
    io::NamedTensors in;
    for (size_t k = 0; k < model.metadata().inputs.size(); ++k) {
      const auto& info = model.metadata().inputs[k];
      TensorData t = random_tensor(info.dtype, info.shape, static_cast<uint32_t>(1000 * i + k));
      stacked[k].append(reinterpret_cast<const char*>(t.raw()), t.nbytes());
      in.emplace_back(info.name, std::move(t));
    }
    host::RunResult r = model.run(in);
    for (size_t k = 0; k < r.outputs.size(); ++k)
      s.want[k].emplace_back(reinterpret_cast<const char*>(r.outputs[k].second.raw()), r.outputs[k].second.nbytes());
  }
  for (size_t k = 0; k < model.metadata().inputs.size(); ++k) {
    const auto& info = model.metadata().inputs[k];
    Shape shape = info.shape;
    shape.insert(shape.begin(), samples);
    s.npz.emplace_back(info.name, TensorData(info.dtype, shape, std::vector<uint8_t>(stacked[k].begin(), stacked[k].end())));
  }
  return s;
}

// Every sample of every output equal, byte for byte.
void expect_same(const Stream& s, const std::vector<std::string>& got, const std::string& what) {
  ASSERT_EQ(got.size(), s.want.size()) << what;
  for (size_t k = 0; k < got.size(); ++k) {
    const size_t n = s.want[k].size(), bytes = s.want[k].front().size();
    ASSERT_EQ(got[k].size(), n * bytes) << what << ": output " << k;
    for (size_t i = 0; i < n; ++i)
      EXPECT_TRUE(got[k].compare(i * bytes, bytes, s.want[k][i]) == 0)
          << what << ": output " << k << " sample " << i << " differs from the single-PE build";
  }
}

mesh::Manifest compile_mesh_tar(const std::string& model, int pes, const fs::path& tar, uint64_t limit = 512 * 1024,
                                const driver::CompileOptions& options = target_options()) {
  mesh::MeshResult r = mesh::compile_mesh(model_path(model), options, {pes, limit});
  mlf::write_tar(tar, r.files);
  return r.manifest;
}

struct Case {
  std::string model;
  int pes;
  std::string target = "mrvl, c";
  std::string quantize = "fp16";  // -quantize= of --target-mrvl-mattr
  driver::CompileOptions options() const { return target_options(target, quantize); }
};
void PrintTo(const Case& c, std::ostream* os) { *os << c.model << "_" << c.pes; }
std::string case_name(const ::testing::TestParamInfo<Case>& p) {
  const std::string t = p.param.target == "c" ? "_c" : p.param.quantize == "int8" ? "_int8" : "";
  return p.param.model + "_" + std::to_string(p.param.pes) + "pes" + t;
}

class MeshThreads : public ::testing::TestWithParam<Case> {};

TEST_P(MeshThreads, StreamIsBitIdenticalToTheSinglePeBuild) {
  const Case c = GetParam();
  TempDir dir("mlipc-mesh");
  const mesh::Manifest m = compile_mesh_tar(c.model, c.pes, dir.path() / "mesh.tar", 512 * 1024, c.options());
  EXPECT_EQ(m.stages.size(), static_cast<size_t>(c.pes)) << m.fewer_note;
  for (const mesh::PipeStage& s : m.stages) EXPECT_LE(s.memory.total(), 512u * 1024) << s.module;
  const Stream s = make_stream(model_path(c.model), dir.path(), stream_samples(), c.options());
  io::write_npz(dir.path() / "stream.npz", s.npz);
  ProcessResult r = mlipc({"run", "mesh.tar", "--inputs", "stream.npz", "--outputs", "out.npz"}, dir.path());
  ASSERT_EQ(r.exit_code, 0) << r.err;
  std::printf("%s", r.out.c_str());  // the figures, in the test's log
  EXPECT_THAT(r.out, HasSubstr("samples/s at 1000 MHz"));
  EXPECT_THAT(r.out, HasSubstr(fmt::format("measured   {} samples", stream_samples())));
  io::NamedTensors out = io::read_npz(dir.path() / "out.npz");
  std::vector<std::string> got;
  for (const auto& [name, t] : out) got.emplace_back(reinterpret_cast<const char*>(t.raw()), t.nbytes());
  expect_same(s, got, c.model + " threads");
}

// The three models on "mrvl, c", kws_dscnn on the CPU alone; with
// MLIPC_MESH_FULL=1 also the int8 resnet8 on the MLIP.
std::vector<Case> thread_cases() {
  std::vector<Case> v = {{"ic_resnet8", 2}, {"ic_resnet8", 4}, {"vww_mobilenet_v1_025", 2},
                         {"vww_mobilenet_v1_025", 4}, {"kws_dscnn", 2}, {"kws_dscnn", 4}, {"kws_dscnn", 2, "c"}};
  if (full_mode()) v.push_back({"quant_qdq_mlperf_tiny_ic_resnet8", 4, "mrvl, c", "int8"});
  return v;
}

INSTANTIATE_TEST_SUITE_P(Models, MeshThreads, ::testing::ValuesIn(thread_cases()), case_name);

// Streams stream_samples() samples of `model` through the pipeline tarball
// dir/mesh.tar (`mlipc run`, a thread per stage) and checks every output
// bit for bit against the single-PE build's.
void expect_stream_is_the_single_pe_one(const std::string& model, const fs::path& dir) {
  const Stream s = make_stream(model_path(model), dir, stream_samples());
  io::write_npz(dir / "stream.npz", s.npz);
  ProcessResult r = mlipc({"run", "mesh.tar", "--inputs", "stream.npz", "--outputs", "out.npz"}, dir);
  ASSERT_EQ(r.exit_code, 0) << r.err;
  std::printf("%s", r.out.c_str());
  io::NamedTensors out = io::read_npz(dir / "out.npz");
  std::vector<std::string> got;
  for (const auto& [name, t] : out) got.emplace_back(reinterpret_cast<const char*>(t.raw()), t.nbytes());
  expect_same(s, got, model + " threads");
}

// A transformer (issue 30): the keyword-spotting encoder on audio frames,
// one MLIP region with no CPU node, its activations [1, T, C] sequence
// tensors. The partitioner cuts it like the CNNs: two stages, each holding
// MLIP layers and no CPU layer, the cut a 3-D tensor, and the stream bit
// for bit the single-PE build's.
TEST(Mesh, ATransformerSplitsAcrossTwoPesWithMlipLayersInBoth) {
  const std::string model = "torch_mlip_kws_transformer";
  TempDir dir("mlipc-mesh");
  const mesh::Manifest m = compile_mesh_tar(model, 2, dir.path() / "mesh.tar");
  ASSERT_EQ(m.stages.size(), 2u) << m.fewer_note;
  for (const mesh::PipeStage& s : m.stages) {
    size_t mlip = 0, cpu = 0;
    for (const std::string& l : s.layers) {
      mlip += l.rfind("mlip ", 0) == 0;
      cpu += l.rfind("cpu ", 0) == 0;
    }
    EXPECT_GT(mlip, 1u) << s.module;  // more than the border conversions
    EXPECT_EQ(cpu, 0u) << s.module;
    EXPECT_LE(s.memory.total(), 512u * 1024) << s.module;
  }
  ASSERT_EQ(m.stages[0].outputs.size(), 1u);
  EXPECT_EQ(m.tensors[m.stages[0].outputs[0]].shape.size(), 3u) << m.tensors[m.stages[0].outputs[0]].name;
  expect_stream_is_the_single_pe_one(model, dir.path());
}

// A recurrent model (issue 30): the LSTM autoencoder, one MLIP region with
// no CPU node. Cut in two like the CNNs: the encoder's LSTM in the first
// stage, the decoder's in the second, each stage MLIP layers only, the cut
// the [1, T, H] sequence its last step is expanded to; the stream bit for
// bit the single-PE build's. (A cut through a recurrent layer's own
// [T, D, B, H] output used to leave it in NHWC at the border, relaid out and
// transposed back: a row-major tensor now crosses as it is.)
TEST(Mesh, ARecurrentModelSplitsAcrossTwoPesWithMlipLayersInBoth) {
  const std::string model = "torch_lstm_autoencoder_opset17";
  TempDir dir("mlipc-mesh");
  const mesh::Manifest m = compile_mesh_tar(model, 2, dir.path() / "mesh.tar");
  ASSERT_EQ(m.stages.size(), 2u) << m.fewer_note;
  for (const mesh::PipeStage& s : m.stages) {
    size_t rnn = 0, cpu = 0, borders = 0;
    for (const std::string& l : s.layers) {
      rnn += l.rfind("mlip rnn ", 0) == 0;
      cpu += l.rfind("cpu ", 0) == 0;
      borders += l.find("(region border)") != std::string::npos;
    }
    EXPECT_EQ(rnn, 1u) << s.module;  // one LSTM in each
    EXPECT_EQ(cpu, 0u) << s.module;
    EXPECT_EQ(borders, 0u) << s.module;  // row-major borders: the layers' own DMAs convert
    EXPECT_LE(s.memory.total(), 512u * 1024) << s.module;
  }
  ASSERT_EQ(m.stages[0].outputs.size(), 1u);
  EXPECT_EQ(m.tensors[m.stages[0].outputs[0]].shape.size(), 3u) << m.tensors[m.stages[0].outputs[0]].name;
  expect_stream_is_the_single_pe_one(model, dir.path());
}

// A cut through a GRU's own output: the classifier's stage border is the
// GRU's Y [T, 1, B, H] (4-D, row-major), which crosses without a
// relayout in the first stage; the stream bit for bit the single-PE build's.
TEST(Mesh, AGruClassifierCutAfterItsRecurrentLayerGivesTheSinglePeBits) {
  const std::string model = "torch_gru_classifier_opset17";
  TempDir dir("mlipc-mesh");
  const mesh::Manifest m = compile_mesh_tar(model, 2, dir.path() / "mesh.tar");
  ASSERT_EQ(m.stages.size(), 2u) << m.fewer_note;
  size_t rnn = 0;
  for (const mesh::PipeStage& s : m.stages)
    for (const std::string& l : s.layers) {
      rnn += l.rfind("mlip rnn ", 0) == 0;
      EXPECT_EQ(l.find("(region border)"), std::string::npos) << s.module << ": " << l;
      EXPECT_NE(l.rfind("cpu ", 0), 0u) << s.module << ": " << l;
    }
  EXPECT_EQ(rnn, 1u);
  expect_stream_is_the_single_pe_one(model, dir.path());
}

bool have(const std::string& tool) {
  return run_process({"sh", "-c", "command -v \"$0\" >/dev/null", tool}, fs::current_path(), 60).exit_code == 0;
}

// docs/mesh.md, "MPI": the runner built from the extracted tarball with
// mpicc, one rank per stage.
void build_mpi_runner(const fs::path& dir, const mesh::Manifest& m) {
  std::string script = "set -e; mkdir -p x && tar xf mesh.tar -C x && cd x\n";
  const std::string s0 = m.stages.front().module;
  script += "mpicc -std=c99 -O2 -DMLIPC_MESH_MPI -I" + s0 + "/runtime/include -Imesh";
  for (const mesh::PipeStage& s : m.stages) script += " -I" + s.module + "/codegen/host/include";
  for (const mesh::PipeStage& s : m.stages) script += " " + s.module + "/codegen/host/src/*.c";
  // The runtime once: core, simulator (in the stages with MLIP regions), pipeline.
  script += " $(S=$(ls -d */runtime/src/sim 2>/dev/null | head -n 1); S=${S%%/*}; S=${S:-" + s0 +
            "}; ls $S/runtime/src/core/*.c $S/runtime/src/pipeline/*.c; ls $S/runtime/src/sim/*.c 2>/dev/null || true)";
  script += " mesh/pipeline.c mesh/runner.c mesh/transport_mpi.c -o ../mesh_mpi -lm\n";
  ProcessResult r = run_process({"sh", "-c", script}, dir, 900);
  ASSERT_EQ(r.exit_code, 0) << script << r.err;
}

class MeshMpi : public ::testing::TestWithParam<Case> {};

TEST_P(MeshMpi, StreamUnderMpirunIsBitIdenticalToTheSinglePeBuild) {
  const Case c = GetParam();
  ASSERT_TRUE(have("mpicc") && have("mpirun")) << "Open MPI is missing: scripts/setup.sh installs openmpi-bin and libopenmpi-dev";
  TempDir dir("mlipc-mesh-mpi");
  const mesh::Manifest m = compile_mesh_tar(c.model, c.pes, dir.path() / "mesh.tar", 512 * 1024, c.options());
  ASSERT_EQ(m.stages.size(), static_cast<size_t>(c.pes));
  build_mpi_runner(dir.path(), m);
  const int n = stream_samples();
  const Stream s = make_stream(model_path(c.model), dir.path(), n, c.options());
  std::vector<std::string> argv = {"mpirun", "-np", std::to_string(c.pes), "--oversubscribe"};
  if (::geteuid() == 0) argv.push_back("--allow-run-as-root");  // Open MPI refuses root without it
  argv.insert(argv.end(), {"./mesh_mpi", "-n", std::to_string(n)});
  for (size_t k = 0; k < s.npz.size(); ++k) {
    const TensorData& t = s.npz[k].second;
    write_file(dir.path() / fmt::format("in{}.bin", k), std::string_view(reinterpret_cast<const char*>(t.raw()), t.nbytes()));
    argv.push_back(fmt::format("in{}.bin", k));
  }
  for (size_t k = 0; k < s.want.size(); ++k) argv.push_back(fmt::format("out{}.bin", k));
  ProcessResult r = run_process(argv, dir.path(), 900, {"OMPI_MCA_plm_rsh_agent=false"});
  ASSERT_EQ(r.exit_code, 0) << r.out << r.err;
  EXPECT_THAT(r.out, HasSubstr("mlipc-mesh-total-ns"));
  std::vector<std::string> got;
  for (size_t k = 0; k < s.want.size(); ++k) got.push_back(read_file(dir.path() / fmt::format("out{}.bin", k)));
  expect_same(s, got, c.model + " mpi");
}

// The runner and both transports build as strict C99 (as the runtime does),
// the MPI one with mpicc.
TEST(Mesh, RunnerAndTransportsAreStrictC99) {
  TempDir dir("mlipc-mesh");
  const mesh::Manifest m = compile_mesh_tar("kws_dscnn", 2, dir.path() / "mesh.tar");
  const std::string inc = " -Ix/" + m.stages.front().module + "/runtime/include -Ix/mesh";
  const std::string flags = " -std=c99 -Wall -Wextra -Werror -pedantic -c";
  const std::string script = "set -e; mkdir -p x && tar xf mesh.tar -C x\n"
                             "cc" + flags + inc + " x/mesh/runner.c x/mesh/transport_threads.c x/mesh/pipeline.c\n"
                             "mpicc" + flags + " -DMLIPC_MESH_MPI" + inc + " x/mesh/runner.c x/mesh/transport_mpi.c\n";
  ProcessResult r = run_process({"sh", "-c", script}, dir.path(), 600);
  EXPECT_EQ(r.exit_code, 0) << r.err;
}

// kws_dscnn in the suite; every model with MLIPC_MESH_FULL=1.
std::vector<Case> mpi_cases() {
  std::vector<Case> v = {{"kws_dscnn", 2}, {"kws_dscnn", 4}};
  if (full_mode()) v.insert(v.end(), {{"ic_resnet8", 2}, {"ic_resnet8", 4}, {"vww_mobilenet_v1_025", 2}, {"vww_mobilenet_v1_025", 4}});
  return v;
}

INSTANTIATE_TEST_SUITE_P(Models, MeshMpi, ::testing::ValuesIn(mpi_cases()), case_name);

// With 4 PEs of 512 KiB the slowest stage is at most 1/2.5 of the whole
// model on one PE (issue 14's acceptance), and inspect shows every stage
// within the limit.
TEST(Mesh, FourPesGiveAtLeastTwoAndAHalfTimesTheThroughput) {
  TempDir dir("mlipc-mesh");
  for (const std::string model : {"ic_resnet8", "vww_mobilenet_v1_025"}) {
    const mesh::Manifest m = compile_mesh_tar(model, 4, dir.path() / "mesh.tar");
    const double speedup = m.throughput() / m.single_pe_throughput();
    std::printf("%s: 4 PEs, slowest stage %llu cycles, single PE %llu cycles: %.2fx\n", model.c_str(),
                static_cast<unsigned long long>(m.slowest_stage_cycles()),
                static_cast<unsigned long long>(m.single_pe_cycles), speedup);
    EXPECT_GE(speedup, 2.5) << model;
    ProcessResult r = mlipc({"inspect", "mesh.tar"}, dir.path());
    ASSERT_EQ(r.exit_code, 0) << r.err;
    EXPECT_THAT(r.out, HasSubstr("memory (limit 524,288 bytes)"));
    EXPECT_THAT(r.out, ::testing::Not(HasSubstr("OVER THE LIMIT")));
    EXPECT_THAT(r.out, HasSubstr("tensors between stages"));
    EXPECT_THAT(r.out, HasSubstr("stage 3 on PE 3"));
  }
}

TEST(Mesh, AMemoryLimitTooSmallForALayerIsOneLineNamingTheOnnxNode) {
  TempDir dir("mlipc-mesh");
  ProcessResult r = mlipc({"compile", model_path("ic_resnet8").string(), "--target", "mrvl, c", "--pes", "4",
                           "--pe-memory", "96KiB", "-o", "mesh.tar"},
                          dir.path());
  EXPECT_EQ(r.exit_code, 1);
  EXPECT_EQ(std::count(r.err.begin(), r.err.end(), '\n'), 1) << r.err;
  EXPECT_THAT(r.err, HasSubstr("mlipc: error: --pe-memory 98304: ONNX node '/stem/Conv' (Conv) needs "));
  EXPECT_FALSE(fs::exists(dir.path() / "mesh.tar"));
}

TEST(Mesh, BadMeshOptionsAreOneLineAndWriteNothing) {
  TempDir dir("mlipc-mesh");
  const std::string m = model_path("kws_dscnn").string();
  const std::vector<std::pair<std::vector<std::string>, std::string>> cases = {
      {{"--pes", "0"}, "--pes 0 is out of range (allowed: 1 to 4,096)"},
      {{"--pe-memory", "1MiB"}, "--pe-memory needs --pes"},
      {{"--pes", "2", "--pe-memory", "12XB"}, "--pe-memory '12XB' is not a size (allowed: 1 byte to 1 TiB"},
      {{"--pes", "2", "--cross-compiler", "gcc"}, "--pes: cross builds"},
  };
  for (const auto& [args, message] : cases) {
    std::vector<std::string> argv = {"compile", m, "--target", "mrvl, c", "-o", "mesh.tar"};
    argv.insert(argv.end(), args.begin(), args.end());
    ProcessResult r = mlipc(argv, dir.path());
    EXPECT_EQ(r.exit_code, 1) << message;
    EXPECT_THAT(r.err, HasSubstr("mlipc: error: " + message));
    EXPECT_EQ(std::count(r.err.begin(), r.err.end(), '\n'), 1) << r.err;
    EXPECT_FALSE(fs::exists(dir.path() / "mesh.tar"));
  }
}

TEST(Mesh, MorePesThanLayersGiveOnePerLayerAndSaySo) {
  TempDir dir("mlipc-mesh");
  ProcessResult r = mlipc({"compile", model_path("kws_dscnn").string(), "--target", "mrvl, c", "--pes", "64", "-o",
                           "mesh.tar"},
                          dir.path());
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_THAT(r.out, HasSubstr("note       --pes 64: the model has "));
  const mesh::Manifest m = mesh::manifest_from_json(mlf::read_tar(dir.path() / "mesh.tar").at("pipeline.json"));
  EXPECT_LT(m.stages.size(), 64u);
  EXPECT_GT(m.stages.size(), 4u);
}

// A pipeline.json that is consistent in itself but no longer matches the
// stage modules (a tensor between stages given another shape) is refused as
// it is read, naming the field, before anything is built (the runtime's own
// check, mlip_pipeline_check_stage, is runtime.pipeline's).
TEST(Mesh, AManifestThatDoesNotMatchItsStagesIsRejected) {
  TempDir dir("mlipc-mesh");
  mesh::MeshResult r = mesh::compile_mesh(model_path("kws_dscnn"), target_options(), {2, 0});
  mesh::Manifest m = r.manifest;
  int between = -1;
  for (size_t t = 0; t < m.tensors.size(); ++t)
    if (m.tensors[t].producer == 0 && m.tensors[t].consumers == std::vector<int>{1}) between = static_cast<int>(t);
  ASSERT_GE(between, 0);
  mesh::PipeTensor& t = m.tensors[static_cast<size_t>(between)];
  t.shape.back() *= 2;
  t.bytes *= 2;
  r.files["pipeline.json"] = mesh::manifest_to_json(m);
  mlf::write_tar(dir.path() / "mesh.tar", r.files);
  const Stream s = make_stream(model_path("kws_dscnn"), dir.path(), 1);
  io::write_npz(dir.path() / "stream.npz", s.npz);
  ProcessResult p = mlipc({"run", "mesh.tar", "--inputs", "stream.npz"}, dir.path());
  EXPECT_EQ(p.exit_code, 1);
  EXPECT_THAT(p.err, HasSubstr("mesh.tar: pipeline.json: stages[0].outputs["));
  EXPECT_THAT(p.err, HasSubstr("but module default_stage0's output"));
  EXPECT_THAT(p.err, HasSubstr(t.name));
}

// run builds only what compile --pes writes (docs/security.md, "Tarballs").
TEST(Mesh, AMeshTarballWithFilesMlipcDoesNotWriteIsNotBuilt) {
  TempDir dir("mlipc-mesh");
  mesh::MeshResult r = mesh::compile_mesh(model_path("kws_dscnn"), target_options(), {2, 0});
  const Stream s = make_stream(model_path("kws_dscnn"), dir.path(), 1);
  io::write_npz(dir.path() / "stream.npz", s.npz);
  for (const std::string extra : {"mesh/evil.c", "default_stage1/codegen/host/src/extra.c", "Makefile"}) {
    mlf::FileMap files = r.files;
    files[extra] = "int main(void) { for (;;) {} }\n";
    mlf::write_tar(dir.path() / "mesh.tar", files);
    ProcessResult p = mlipc({"run", "mesh.tar", "--inputs", "stream.npz"}, dir.path());
    EXPECT_EQ(p.exit_code, 1) << extra;
    EXPECT_THAT(p.err, HasSubstr("member '" + (extra.rfind("default_stage1/", 0) == 0 ? extra.substr(15) : extra) +
                                 "' is not a file mlipc compile"))
        << extra;
  }
}

}  // namespace
}  // namespace mlipc::test::e2e_mesh
