#include "host/mesh_model.h"

#include <set>
#include <sstream>

#include <fmt/format.h>

#include "host/build_cache.h"
#include "host/cache_trim.h"
#include "host/member_check.h"
#include "host/object_cache.h"
#include "host/run_program.h"
#include "host/runtime_object.h"
#include "mlf/archive.h"
#include "resources/resources.h"
#include "resources/tarball_files.h"
#include "support/error.h"
#include "support/file_util.h"
#include "support/process.h"
#include "support/text.h"

namespace fs = std::filesystem;

namespace mlipc::host {

namespace {

using steps::Toolchain;

constexpr const char* kTemplates = "templates/mesh/";

// pipeline.json, the runner's sources (mesh/), and in each stage's folder
// the files of its module; nothing else (docs/security.md, "Tarballs").
void check_mesh_members(const mlf::FileMap& files, const std::vector<MeshStageFiles>& stages, const fs::path& tarball) {
  std::set<std::string> known = {"pipeline.json", "mesh/pipeline.c"};
  for (const auto& r : resources::under(kTemplates)) known.insert("mesh/" + std::string(resources::below(r.path, kTemplates)));
  std::vector<mlf::FileMap> per_stage(stages.size());
  for (const auto& [name, data] : files) {
    if (known.count(name)) continue;
    bool placed = false;
    for (size_t s = 0; s < stages.size() && !placed; ++s)
      if (name.rfind(stages[s].dir, 0) == 0) {
        per_stage[s][name.substr(stages[s].dir.size())] = data;
        placed = true;
      }
    if (!placed)
      fail("{}: member '{}' is not a file mlipc compile --pes writes; mlipc run builds only mlipc's own tarballs "
           "(docs/security.md)",
           tarball.string(), printable(name));
  }
  for (size_t s = 0; s < stages.size(); ++s) {
    if (!is_c_identifier(stages[s].module) || stages[s].dir != stages[s].module + "/")
      fail("{}: pipeline.json: stage {} module '{}' is not a C identifier naming its folder", tarball.string(), s,
           printable(stages[s].module));
    if (!per_stage[s].count("metadata.json"))
      fail("{}: stage {} has no {}metadata.json", tarball.string(), s, printable(stages[s].dir));
    steps::check_members(per_stage[s], stages[s].module, tarball);
  }
}

void build_mesh_into(const fs::path& dir, const std::string& bytes, const fs::path& tarball,
                     const std::vector<MeshStageFiles>& stages, const std::string& pipeline_c, const Toolchain& tc,
                     const fs::path& cache, int timeout) {
  mlf::extract_tar_bytes(bytes, tarball, dir);
  // The manifest the caller rendered from pipeline.json, not the tarball's copy.
  write_file(dir / "mesh" / "pipeline_run.c", pipeline_c);
  std::vector<std::string> objects;
  for (const MeshStageFiles& s : stages) {
    const fs::path sd = dir / s.dir;
    const std::string key = steps::headers_key(sd, {"runtime/include", "codegen/host/include"}, tc);
    for (const fs::path& src : steps::c_sources(sd, "codegen/host/src"))
      objects.push_back(steps::cached_object(sd, src, key, cache / "objects", tc, timeout).string());
  }
  // One runtime for every stage (they carry the same, those with MLIP
  // regions the simulator too): the core, the simulator, the pipeline, from
  // a stage that has the simulator if any does; then the runner, its
  // transport, the manifest.
  fs::path first = dir / stages.front().dir;
  for (const MeshStageFiles& s : stages)
    if (fs::exists(dir / s.dir / "runtime/src/sim")) {
      first = dir / s.dir;
      break;
    }
  std::vector<std::string> parts = steps::runtime_parts();
  parts.push_back("runtime/src/pipeline");
  objects.push_back(steps::runtime_object(first, parts, tc, cache, timeout).string());
  const std::string runtime_key = steps::headers_key(first, {"runtime/include"}, tc);
  const std::string mesh_key = runtime_key + steps::headers_key(dir, {"mesh"}, tc);
  for (const char* src : {"../mesh/runner.c", "../mesh/transport_threads.c", "../mesh/pipeline_run.c"})
    objects.push_back(steps::cached_object(first, src, mesh_key, cache / "objects", tc, timeout).string());

  fs::copy_file(steps::cached_program(objects, {"-lm", "-lpthread"}, first, cache, tc, timeout), dir / "mesh_host",
                fs::copy_options::overwrite_existing);
}

}  // namespace

MeshModel MeshModel::build(const fs::path& tarball, const std::vector<MeshStageFiles>& stages,
                           const std::string& pipeline_c, const BuildOptions& options) {
  if (stages.empty()) fail("{}: pipeline.json lists no stage", tarball.string());
  if (options.build_timeout < 1) fail("--build-timeout {} must be at least 1 second", options.build_timeout);
  const std::string bytes = read_file(tarball);
  check_mesh_members(mlf::read_tar_bytes(bytes, tarball), stages, tarball);
  Toolchain tc{options.cc.empty() ? steps::compiler() : options.cc, options.flags.empty() ? host_flags() : options.flags};
  tc.flags.push_back("-pthread");
  std::string key_text = bytes + "\n" + pipeline_c + "\n" + tc.cc;
  for (const std::string& f : tc.flags) key_text += " " + f;
  const fs::path cache = steps::resolve_cache_dir(options.cache_dir);
  MeshModel m;
  m.tarball_ = tarball;
  const std::string key = "mesh-" + steps::sha256_hex(key_text).substr(0, 32);
  m.exe_ = cache / key / "mesh_host";
  if (fs::exists(m.exe_)) {
    steps::mark_used(cache / key);
    return m;
  }
  const uint64_t max_bytes = steps::cache_max_bytes();
  steps::build_staged(cache, key, m.exe_, tarball, [&](const fs::path& staging) {
    build_mesh_into(staging, bytes, tarball, stages, pipeline_c, tc, cache, options.build_timeout);
  });
  steps::trim_after_build(cache, max_bytes);
  return m;
}

MeshRunResult MeshModel::run(const std::vector<std::string>& inputs, uint64_t samples,
                             const std::vector<uint64_t>& output_bytes, size_t num_stages, int timeout_seconds) const {
  if (timeout_seconds < 1) fail("--timeout {} must be at least 1 second", timeout_seconds);
  TempDir work("mlipc-mesh");
  std::vector<std::string> argv = {exe_.string(), "-n", std::to_string(samples)};
  for (size_t k = 0; k < inputs.size(); ++k) {
    const fs::path p = work.path() / fmt::format("in{}.bin", k);
    write_file(p, inputs[k]);
    argv.push_back(p.string());
  }
  for (size_t k = 0; k < output_bytes.size(); ++k) argv.push_back((work.path() / fmt::format("out{}.bin", k)).string());
  const ProcessResult r = steps::run_program(argv, work.path(), timeout_seconds, tarball_, "pipeline");
  const std::string t = tarball_.string();
  MeshRunResult result;
  result.stage_ns.assign(num_stages, 0.0);
  for (size_t k = 0; k < output_bytes.size(); ++k) {
    result.outputs.push_back(read_file(work.path() / fmt::format("out{}.bin", k)));
    if (result.outputs.back().size() != output_bytes[k] * samples)
      fail("{}: the pipeline wrote {} bytes of output {}, not {}", t, result.outputs.back().size(), k,
           output_bytes[k] * samples);
  }
  std::istringstream lines(r.out);
  std::string tag;
  while (lines >> tag) {
    if (tag == "mlipc-mesh-total-ns") {
      lines >> result.total_ns;
    } else if (tag == "mlipc-mesh-stage") {
      size_t s = 0;
      double ns = 0;
      lines >> s >> ns;
      if (s < num_stages) result.stage_ns[s] = ns;
    }
  }
  return result;
}

}  // namespace mlipc::host
