// compile --pes, inspect and run of a mesh tarball (docs/mesh.md).
#include "cli/mesh_cmd.h"

#include <algorithm>
#include <chrono>
#include <iterator>

#include <fmt/format.h>

#include "cli/format.h"
#include "driver/quantization.h"
#include "mlf/metadata.h"
#include "mlip/report.h"
#include "host/mesh_model.h"
#include "cli/npz_inputs.h"
#include "io/npz.h"
#include "mesh/mesh_compile.h"
#include "support/error.h"
#include "support/file_util.h"
#include "support/text.h"

namespace fs = std::filesystem;

namespace mlipc::cli {

namespace {

std::string memory_line(const mesh::StageMemory& m) {
  return fmt::format("{} bytes (arena {}, constants {}, I/O {}, runtime {})", with_commas(m.total()),
                     with_commas(m.workspace), with_commas(m.constants), with_commas(m.io), with_commas(m.runtime));
}

// The estimated figures of a pipeline, the same lines in compile, inspect and run.
void print_estimates(std::string& text, const mesh::Manifest& m) {
  auto out = std::back_inserter(text);
  const double speedup =
      m.single_pe_throughput() > 0 ? m.throughput() / m.single_pe_throughput() : 0.0;
  fmt::format_to(out,
                 "  estimated  slowest stage {} cycles: {:.0f} samples/s at {:.0f} MHz; latency {} cycles ({:.1f} us)\n",
                 with_commas(m.slowest_stage_cycles()), m.throughput(), m.clock_mhz, with_commas(m.latency_cycles()),
                 m.clock_mhz > 0 ? static_cast<double>(m.latency_cycles()) / m.clock_mhz : 0.0);
  fmt::format_to(out, "  single PE  {} cycles: {:.0f} samples/s, {} bytes; the pipeline is {:.2f}x its throughput\n",
                 with_commas(m.single_pe_cycles), m.single_pe_throughput(), with_commas(m.single_pe_memory), speedup);
}

void print_stage_table(std::string& text, const mesh::Manifest& m) {
  auto out = std::back_inserter(text);
  const std::string limit = m.pe_memory_limit ? with_commas(m.pe_memory_limit) + " bytes" : "none";
  fmt::format_to(out, "  {:>5} {:>3}  {:<24} {:>6} {:>12}  memory (limit {})\n", "stage", "PE", "module", "layers",
                 "est. cycles", limit);
  for (size_t s = 0; s < m.stages.size(); ++s) {
    const mesh::PipeStage& st = m.stages[s];
    const bool fits = !m.pe_memory_limit || st.memory.total() <= m.pe_memory_limit;
    fmt::format_to(out, "  {:>5} {:>3}  {:<24} {:>6} {:>12}  {}{}\n", s, st.pe, st.module, st.layers.size(),
                   with_commas(st.est_cycles), memory_line(st.memory), fits ? "" : "  OVER THE LIMIT");
  }
}

// pipeline.json checked completely, and against the stages' modules, before
// anything is printed or built.
mesh::Manifest read_manifest(const mlf::FileMap& files, const std::string& tarball) {
  try {
    mesh::Manifest m = mesh::manifest_from_json(files.at("pipeline.json"));
    mesh::check_stage_modules(m, files);
    return m;
  } catch (const Error& e) {
    fail("{}: {}", tarball, e.what());
  }
}

std::string tensor_line(const mesh::Manifest& m, const mesh::PipeTensor& t) {
  auto who = [](int s) { return s == mesh::kHost ? std::string("host") : fmt::format("stage {}", s); };
  std::string to;
  for (int c : t.consumers) to += (to.empty() ? "" : ", ") + who(c);
  (void)m;
  return fmt::format("  {:<32} {:<8} {:<18} {:>10} bytes  {} -> {}\n", printable(t.name), dtype_name(t.dtype),
                     shape_str(t.shape), with_commas(t.bytes), who(t.producer), to);
}

}  // namespace

std::string compile_mesh(const std::string& model, const fs::path& out, const driver::CompileOptions& options, int pes,
                         uint64_t pe_memory) {
  const auto t0 = std::chrono::steady_clock::now();
  mesh::MeshOptions mo;
  mo.pes = pes;
  mo.pe_memory = pe_memory;
  mesh::MeshResult r = mesh::compile_mesh(model, options, mo);
  mlf::write_tar(out, r.files);
  const double secs = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  const mesh::Manifest& m = r.manifest;
  std::string text;
  auto o = std::back_inserter(text);
  fmt::format_to(o, "mlipc: compiled {} ({} ONNX nodes) for target {} into {} in {:.2f} s: {} stage(s) on {} PE(s)\n",
                 printable(model), r.onnx_nodes, m.target, printable(out.string()), secs, m.stages.size(),
                 m.stages.size());
  if (!m.fewer_note.empty()) fmt::format_to(o, "  note       {}\n", m.fewer_note);
  if (!r.quantize_line.empty()) fmt::format_to(o, "  {}\n", printable(r.quantize_line));
  print_stage_table(text, m);
  print_estimates(text, m);
  return text;
}

bool is_mesh(const mlf::FileMap& files) { return files.count("pipeline.json") > 0; }

// "mrvl, c": the MLIP quantization the stages share and the pipeline's MAC
// share, from the stages' metadata.json (check_stage_modules read them).
InspectMesh mesh_inspect_data(const mlf::FileMap& files, const std::string& tarball) {
  InspectMesh d;
  d.tarball = tarball;
  d.manifest = read_manifest(files, tarball);
  uint64_t on_cpu = 0;  // metadata.json's layer table gives the CPU layers' MACs only
  for (const mesh::PipeStage& st : d.manifest.stages) {
    auto it = files.find(st.module + "/metadata.json");
    if (it == files.end()) continue;
    try {
      const mlf::Metadata md = mlf::metadata_from_json(it->second);
      for (const auto& l : md.extra.value("mlipc", nlohmann::json::object()).value("layers", nlohmann::json::array()))
        on_cpu += l.value("macs", uint64_t{0});
      if (!md.extra.contains("mlip")) continue;
      const mlip::MlipReport rep = mlip::report_from_json(md.extra.at("mlip"));
      if (!d.has_mlip) d.mlip_options = rep.options;
      d.has_mlip = true;
      for (const mlip::RegionReport& r : rep.regions) d.macs_mlip += r.macs();
    } catch (const nlohmann::json::exception& e) {
      fail("{}: {}/metadata.json is damaged ({})", tarball, printable(st.module), mlf::json_error_reason(e));
    } catch (const Error& e) {
      fail("{}: {}/metadata.json: {}", tarball, printable(st.module), e.what());
    }
  }
  d.macs_total = d.macs_mlip + on_cpu;
  return d;
}

std::string render_mesh_inspect(const InspectMesh& d) {
  const mesh::Manifest& m = d.manifest;
  const std::string& tarball = d.tarball;
  std::string text;
  auto out = std::back_inserter(text);
  fmt::format_to(out, "{}: pipeline of model '{}' across {} PE(s) ({} asked), target {}, module '{}'\n",
                 printable(tarball), printable(m.model_name), m.stages.size(), m.pes_requested, printable(m.target),
                 printable(m.module_name));
  if (!m.fewer_note.empty()) fmt::format_to(out, "  note: {}\n", printable(m.fewer_note));
  if (d.has_mlip)
    fmt::format_to(out, "  {}\n  {}\n", printable(driver::quantize_line(d.mlip_options)),
                   mac_share_line(d.macs_mlip, d.macs_total));
  for (int t : m.inputs) fmt::format_to(out, "  input  {}", tensor_line(m, m.tensors[static_cast<size_t>(t)]).substr(2));
  for (int t : m.outputs) fmt::format_to(out, "  output {}", tensor_line(m, m.tensors[static_cast<size_t>(t)]).substr(2));
  fmt::format_to(out, "stages:\n");
  print_stage_table(text, m);
  for (size_t s = 0; s < m.stages.size(); ++s) {
    const mesh::PipeStage& st = m.stages[s];
    fmt::format_to(out, "stage {} on PE {} ({}/): {} est. cycles, {}\n", s, st.pe, printable(st.module),
                   with_commas(st.est_cycles), memory_line(st.memory));
    for (const std::string& l : st.layers) fmt::format_to(out, "    {}\n", printable(l));
  }
  fmt::format_to(out, "tensors between stages (and with the host):\n");
  for (const mesh::PipeTensor& t : m.tensors) text += tensor_line(m, t);
  fmt::format_to(out, "pipeline:\n");
  print_estimates(text, m);
  return text;
}

std::string run_mesh(const MeshRunArgs& a) {
  if (a.inputs.empty())
    fail("{}: a mesh tarball runs a stream of samples: give --inputs FILE.npz (each array with a leading sample axis)",
         a.tarball);
  if (!a.outputs.empty()) check_output_path(a.outputs, {a.tarball, a.inputs}, "--outputs");
  const io::NamedTensors given = io::read_npz(a.inputs);
  const mlf::FileMap files = mlf::read_tar(a.tarball);
  const mesh::Manifest m = read_manifest(files, a.tarball);
  // Every model input once, [N, ...its shape] (or its shape: one sample), of
  // its dtype (cli/npz_inputs.h words the messages).
  std::vector<ModelInput> ins;
  for (int t : m.inputs) ins.push_back({m.tensors[static_cast<size_t>(t)].name, m.tensors[static_cast<size_t>(t)].dtype});
  const NpzInputs arrays(given, std::move(ins), a.inputs, a.tarball);
  std::vector<std::string> inputs;
  int64_t samples = -1;
  std::string first;
  for (size_t i = 0; i < m.inputs.size(); ++i) {
    const mesh::PipeTensor& t = m.tensors[static_cast<size_t>(m.inputs[i])];
    const std::string name = printable(t.name);
    const TensorData& d = arrays.array(i);
    Shape stream = d.shape();
    int64_t n = 1;
    if (stream != t.shape) {
      Shape tail(stream.begin() + (stream.empty() ? 0 : 1), stream.end());
      if (stream.empty() || tail != t.shape)
        arrays.wrong_shape(i, stream, fmt::format("takes {} (N samples) or {} (one)",
                                                  "[N" + shape_str(t.shape).substr(t.shape.empty() ? 2 : 1).insert(0, t.shape.empty() ? "" : ","),
                                                  shape_str(t.shape)));
      n = stream[0];
    }
    if (n < 1)
      fail("{}: array '{}' holds no sample (shape {}; the input '{}' of {})", arrays.npz, name, shape_str(stream), name,
           arrays.tar);
    if (samples >= 0 && n != samples)
      fail("{}: array '{}' holds {} samples, array '{}' {}: give every input the same number", arrays.npz, name, n,
           first, samples);
    if (samples < 0) first = name;
    samples = n;
    inputs.emplace_back(reinterpret_cast<const char*>(d.raw()), d.nbytes());
  }
  std::vector<host::MeshStageFiles> stages;
  for (const mesh::PipeStage& s : m.stages) stages.push_back({mesh::stage_dir(s), s.module});
  host::BuildOptions bo;
  bo.build_timeout = a.build_timeout;
  const host::MeshModel model = host::MeshModel::build(a.tarball, stages, mesh::manifest_to_c(m), bo);
  std::vector<uint64_t> out_bytes;
  for (int t : m.outputs) out_bytes.push_back(m.tensors[static_cast<size_t>(t)].bytes);
  const host::MeshRunResult r =
      model.run(inputs, static_cast<uint64_t>(samples), out_bytes, m.stages.size(), a.timeout);

  io::NamedTensors outs;
  for (size_t k = 0; k < m.outputs.size(); ++k) {
    const mesh::PipeTensor& t = m.tensors[static_cast<size_t>(m.outputs[k])];
    Shape shape = t.shape;
    shape.insert(shape.begin(), samples);
    outs.emplace_back(t.name, TensorData(t.dtype, shape, std::vector<uint8_t>(r.outputs[k].begin(), r.outputs[k].end())));
  }
  std::string text;
  auto out = std::back_inserter(text);
  if (a.outputs.empty())
    for (const auto& [name, t] : outs)
      fmt::format_to(out, "output '{}' {} {}\n", printable(name), dtype_name(t.dtype()), shape_str(t.shape()));
  fmt::format_to(out, "pipeline: {} samples through {} stage(s), one thread per stage (threads transport)\n", samples,
                 m.stages.size());
  fmt::format_to(out, "  {:>5} {:>3}  {:<24} {:>12} {:>17}\n", "stage", "PE", "module", "est. cycles", "host ms in steps");
  for (size_t s = 0; s < m.stages.size(); ++s)
    fmt::format_to(out, "  {:>5} {:>3}  {:<24} {:>12} {:>17.3f}\n", s, m.stages[s].pe, m.stages[s].module,
                   with_commas(m.stages[s].est_cycles), r.stage_ns[s] / 1e6);
  print_estimates(text, m);
  fmt::format_to(out, "  measured   {} samples in {:.3f} ms on this host: {:.1f} samples/s\n", samples,
                 r.total_ns / 1e6, r.total_ns > 0 ? static_cast<double>(samples) * 1e9 / r.total_ns : 0.0);
  if (!a.outputs.empty()) io::write_npz(a.outputs, outs);
  return text;
}

}  // namespace mlipc::cli
