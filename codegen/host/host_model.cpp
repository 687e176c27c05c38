#include "host/host_model.h"

#include <openssl/evp.h>
#include <unistd.h>

#include <algorithm>
#include <cstdlib>
#include <map>
#include <sstream>

#include <fmt/format.h>
#include <kainjow/mustache.hpp>

#include "mlf/archive.h"
#include "resources/resources.h"
#include "support/error.h"
#include "support/file_util.h"
#include "support/process.h"

namespace fs = std::filesystem;

namespace mlipc::host {

namespace {

constexpr int kBuildTimeout = 600;
constexpr int kRunTimeout = 600;
// Flags for host emulation: the runtime's numerics flags, optimized, with the
// profiling hooks compiled in (the driver times each layer). -O3 vectorizes the
// kernels' element-wise inner loops; no sum is reassociated (that would take
// -ffast-math), so results are the same bits as at -O0.
const std::vector<std::string> kCFlags = {"-std=c99", "-O3", "-ffp-contract=off", "-DMLIP_PROFILE", "-w"};

std::string sha256_hex(const std::string& bytes) {
  unsigned char md[EVP_MAX_MD_SIZE];
  unsigned int len = 0;
  if (EVP_Digest(bytes.data(), bytes.size(), md, &len, EVP_sha256(), nullptr) != 1) fail("internal: SHA-256 failed");
  std::string hex;
  for (unsigned i = 0; i < len; ++i) hex += fmt::format("{:02x}", md[i]);
  return hex;
}

std::string compiler() {
  const char* cc = std::getenv("CC");
  return cc && *cc ? cc : "cc";
}

// The driver declares the stats arrays of every MLIP region, found through
// metadata.json: the layer table names each region's C function.
std::string render_main(const mlf::Metadata& md) {
  kainjow::mustache::mustache tmpl{std::string(resources::get("templates/host/main.c"))};
  tmpl.set_custom_escape([](const std::string& s) { return s; });
  kainjow::mustache::data d;
  d.set("module", md.module_name);
  kainjow::mustache::data regions{kainjow::mustache::data::type::list};
  const nlohmann::json& mlip = md.extra.value("mlip", nlohmann::json::object());
  const nlohmann::json& layers = md.extra.value("mlipc", nlohmann::json::object()).value("layers", nlohmann::json::array());
  if (mlip.contains("regions")) {
    int index = 0;
    for (const auto& reg : mlip["regions"]) {
      std::string function;
      for (const auto& l : layers)
        if (l.value("node", "") == reg.value("name", "")) function = l.value("function", "");
      if (function.empty()) fail("metadata.json: MLIP region '{}' has no C function", reg.value("name", ""));
      size_t n = reg["layers"].size() + (reg["pinned_layers"].empty() ? 0 : 1);
      kainjow::mustache::data r;
      r.set("symbol", function + "_stats");
      r.set("num_layers", std::to_string(n));
      r.set("index", std::to_string(index++));
      regions.push_back(r);
    }
  }
  d.set("regions", regions);
  return tmpl.render(d);
}

void compile_or_fail(std::vector<std::string> argv, const fs::path& dir, const std::string& cc) {
  ProcessResult r = run_process(argv, dir, kBuildTimeout);
  if (r.exit_code != 0) {
    std::string first = r.err.substr(0, r.err.find('\n'));
    fail("building the model with '{}' failed{}: {}", cc, r.timed_out ? " (timeout)" : "", first);
  }
}

std::vector<std::string> cc_command(const std::string& cc) {
  std::vector<std::string> argv = {cc};
  argv.insert(argv.end(), kCFlags.begin(), kCFlags.end());
  argv.push_back("-Icodegen/host/include");
  argv.push_back("-Iruntime/include");
  return argv;
}

std::vector<fs::path> c_sources(const fs::path& dir, const fs::path& sub) {
  std::vector<fs::path> srcs;
  if (fs::exists(dir / sub))
    for (const auto& e : fs::recursive_directory_iterator(dir / sub))
      if (e.path().extension() == ".c") srcs.push_back(fs::relative(e.path(), dir));
  std::sort(srcs.begin(), srcs.end());
  return srcs;
}

// The runtime's objects are the same for every tarball of one mlipc build:
// they are compiled once per content (sources, headers, compiler, flags)
// and shared through the cache.
fs::path runtime_object(const fs::path& dir, const fs::path& src, const std::string& runtime_key,
                        const fs::path& objects, const std::string& cc) {
  const fs::path obj = objects / (sha256_hex(runtime_key + src.string() + read_file(dir / src)).substr(0, 32) + ".o");
  if (fs::exists(obj)) return obj;
  fs::create_directories(objects);
  const fs::path tmp = objects / fmt::format(".{}.{}", obj.filename().string(), static_cast<long>(getpid()));
  std::vector<std::string> argv = cc_command(cc);
  argv.insert(argv.end(), {"-c", src.string(), "-o", tmp.string()});
  compile_or_fail(argv, dir, cc);
  std::error_code ec;
  fs::rename(tmp, obj, ec);  // losing a race to another process is fine
  fs::remove(tmp, ec);
  return obj;
}

void build_into(const fs::path& dir, const std::string& tar_bytes, const std::string& cc, const mlf::Metadata& md,
                const fs::path& cache) {
  TempDir scratch("mlipc-tar");
  fs::path tar = scratch.path() / "model.tar";
  write_file(tar, tar_bytes);
  mlf::extract_tar(tar, dir);
  write_file(dir / "host_main.c", render_main(md));

  std::string runtime_key = cc;
  for (const std::string& f : kCFlags) runtime_key += " " + f;
  for (const auto& e : fs::recursive_directory_iterator(dir / "runtime"))
    if (e.is_regular_file() && e.path().extension() == ".h")
      runtime_key += fs::relative(e.path(), dir).string() + read_file(e.path());
  std::vector<std::string> link = cc_command(cc);
  for (const fs::path& s : c_sources(dir, "codegen/host/src")) link.push_back(s.string());
  link.push_back("host_main.c");
  for (const fs::path& s : c_sources(dir, "runtime/src"))
    link.push_back(runtime_object(dir, s, runtime_key, cache / "objects", cc).string());
  link.insert(link.end(), {"-o", "model_host", "-lm"});
  compile_or_fail(link, dir, cc);
}

}  // namespace

fs::path default_cache_dir() {
  if (const char* d = std::getenv("MLIPC_CACHE_DIR"); d && *d) return d;
  if (const char* d = std::getenv("XDG_CACHE_HOME"); d && *d) return fs::path(d) / "mlipc";
  if (const char* d = std::getenv("HOME"); d && *d) return fs::path(d) / ".cache" / "mlipc";
  return fs::temp_directory_path() / "mlipc-cache";
}

HostModel HostModel::build(const fs::path& tarball, const BuildOptions& options) {
  const std::string bytes = read_file(tarball);
  HostModel m;
  {
    mlf::FileMap files = mlf::read_tar(tarball);
    auto it = files.find("metadata.json");
    if (it == files.end()) fail("{}: not an mlipc model library (no metadata.json)", tarball.string());
    m.metadata_ = mlf::metadata_from_json(it->second);
  }
  // A tarball bound to the hardware backend has no simulator to fall back
  // on: say so instead of pretending to run it.
  const nlohmann::json& mlip = m.metadata_.extra.value("mlip", nlohmann::json::object());
  if (mlip.value("mode", "sim") == "hw")
    fail("{}: compiled for the MLIP hardware (-mattr=hw); it runs only where a device driver is registered. "
         "Host emulation needs a tarball compiled with --target-mrvl-mattr=\"sim ...\"",
         tarball.string());
  const std::string cc = options.cc.empty() ? compiler() : options.cc;
  std::string key_text = bytes + "\n" + cc;
  for (const std::string& f : kCFlags) key_text += " " + f;
  key_text += std::string(resources::get("templates/host/main.c"));
  const std::string key = sha256_hex(key_text).substr(0, 32);
  const fs::path cache = options.cache_dir.empty() ? default_cache_dir() : options.cache_dir;
  m.dir_ = cache / key;
  m.exe_ = m.dir_ / "model_host";
  if (fs::exists(m.exe_)) return m;

  // Build beside the final folder, then rename: concurrent runs of the same
  // tarball never see a half-built cache entry.
  fs::create_directories(cache);
  TempDir staging_holder("mlipc-build");
  fs::path staging = cache / fmt::format(".{}.{}", key, fs::path(staging_holder.path()).filename().string());
  try {
    fs::create_directories(staging);
    build_into(staging, bytes, cc, m.metadata_, cache);
    std::error_code ec;
    fs::rename(staging, m.dir_, ec);
    if (ec && !fs::exists(m.exe_)) fail("cannot store the build in {}: {}", m.dir_.string(), ec.message());
  } catch (...) {
    std::error_code ec;
    fs::remove_all(staging, ec);
    throw;
  }
  std::error_code ec;
  fs::remove_all(staging, ec);  // left over when another process won the rename
  return m;
}

RunResult HostModel::run(const io::NamedTensors& inputs, int runs) const {
  const mlf::Metadata& md = metadata_;
  std::map<std::string, const TensorData*> given;
  for (const auto& [name, t] : inputs) {
    if (given.count(name)) fail("input '{}' is given twice", name);
    given[name] = &t;
  }
  std::string names;
  for (const auto& in : md.inputs) names += (names.empty() ? "" : ", ") + in.name;
  for (const auto& [name, t] : given) {
    bool known = false;
    for (const auto& in : md.inputs) known = known || in.name == name;
    if (!known) fail("'{}' is not an input of the model (inputs: {})", name, names);
  }
  TempDir work("mlipc-run");
  std::vector<std::string> argv = {exe_.string(), "-r", std::to_string(std::max(runs, 1))};
  for (size_t i = 0; i < md.inputs.size(); ++i) {
    const auto& in = md.inputs[i];
    auto it = given.find(in.name);
    if (it == given.end()) fail("input '{}' is missing (inputs: {})", in.name, names);
    const TensorData& t = *it->second;
    if (t.dtype() != in.dtype)
      fail("input '{}' must be {}, got {}", in.name, dtype_name(in.dtype), dtype_name(t.dtype()));
    if (t.shape() != in.shape)
      fail("input '{}' must have shape {}, got {}", in.name, shape_str(in.shape), shape_str(t.shape()));
    fs::path p = work.path() / fmt::format("in{}.bin", i);
    write_file(p, std::string_view(reinterpret_cast<const char*>(t.raw()), t.nbytes()));
    argv.push_back(p.string());
  }
  for (size_t i = 0; i < md.outputs.size(); ++i) argv.push_back((work.path() / fmt::format("out{}.bin", i)).string());

  ProcessResult r = run_process(argv, work.path(), kRunTimeout);
  if (r.timed_out) fail("the model did not finish within {} s", kRunTimeout);
  if (r.signal) fail("the model crashed (signal {})", r.signal);
  if (r.exit_code != 0) {
    std::string msg = r.err.substr(0, r.err.find('\n'));
    fail("the model failed: {}", msg.empty() ? fmt::format("exit code {}", r.exit_code) : msg);
  }
  RunResult result;
  for (size_t i = 0; i < md.outputs.size(); ++i) {
    const auto& out = md.outputs[i];
    std::string bytes = read_file(work.path() / fmt::format("out{}.bin", i));
    result.outputs.emplace_back(out.name, TensorData(out.dtype, out.shape, std::vector<uint8_t>(bytes.begin(), bytes.end())));
  }
  std::istringstream lines(r.out);
  std::string tag;
  while (lines >> tag) {
    if (tag == "mlipc-total-ns") {
      double ns = 0;
      lines >> ns;
      result.run_ns.push_back(ns);
    }
    else if (tag == "mlipc-layer") {
      LayerTime lt{};
      lines >> lt.layer >> lt.ns;
      result.layers.push_back(lt);
    } else if (tag == "mlipc-mlip-layer") {
      MlipLayerTime mt{};
      double count = 0;
      lines >> mt.region >> mt.layer >> mt.cycles >> mt.ns >> count;
      if (count > 0) {
        mt.cycles /= count;
        mt.ns /= count;
      }
      result.mlip_layers.push_back(mt);
    }
  }
  if (!result.run_ns.empty()) {
    std::vector<double> sorted = result.run_ns;
    std::sort(sorted.begin(), sorted.end());
    result.total_ns = sorted[sorted.size() / 2];
  }
  return result;
}

}  // namespace mlipc::host
