#include "host/host_model.h"
#include "host/build_steps.h"

#include <openssl/evp.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <functional>
#include <set>
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
#include "support/text.h"

namespace fs = std::filesystem;

namespace mlipc::host {

namespace steps {

// Flags for host emulation: the runtime's numerics flags, optimized, with the
// profiling hooks compiled in (the driver times each layer). -O3 vectorizes the
// kernels' element-wise inner loops; no sum is reassociated (that would take
// -ffast-math), so results are the same bits as at -O0. An mlipc built with
// MLIPC_ASAN=ON builds the generated code and the runtime under the same
// sanitizers, so the sanitizer suite covers them too.
const std::vector<std::string> kCFlags = {"-std=c99", "-O3", "-march=native", "-ffp-contract=off", "-DMLIP_PROFILE", "-w",
#ifdef MLIPC_HOST_SANITIZE
                                          "-fsanitize=address,undefined", "-fno-sanitize-recover=all",
                                          "-fno-omit-frame-pointer",
#endif
};

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
// metadata.json: the layer table names each region's C function. Every name
// that reaches the C source is checked to be an identifier.
std::string render_model_c(const mlf::Metadata& md) {
  kainjow::mustache::mustache tmpl{std::string(resources::get("templates/host/model.c"))};
  tmpl.set_custom_escape([](const std::string& s) { return s; });
  kainjow::mustache::data d;
  d.set("module", md.module_name);
  kainjow::mustache::data regions{kainjow::mustache::data::type::list};
  const nlohmann::json& mlip = md.extra.value("mlip", nlohmann::json::object());
  const nlohmann::json& layers = md.extra.value("mlipc", nlohmann::json::object()).value("layers", nlohmann::json::array());
  if (mlip.contains("regions")) {
    int index = 0;
    for (const auto& reg : mlip.at("regions")) {
      std::string function;
      for (const auto& l : layers)
        if (l.value("node", "") == reg.value("name", "")) function = l.value("function", "");
      if (function.empty()) fail("metadata.json: MLIP region '{}' has no C function", printable(reg.value("name", "")));
      if (!is_c_identifier(function))
        fail("metadata.json: MLIP region function '{}' is not a C identifier", printable(function));
      size_t n = reg.at("layers").size() + (reg.at("pinned_layers").empty() ? 0 : 1);
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

void compile_or_fail(std::vector<std::string> argv, const fs::path& dir, const std::string& cc, int timeout) {
  // The compiler's temporary files go into the private build folder (and
  // go with it, even when the compiler is killed).
  const fs::path tmp = dir / ".tmp";
  fs::create_directories(tmp);
  ProcessResult r = run_process(argv, dir, timeout, {"TMPDIR=" + tmp.string()});
  if (r.timed_out)
    fail("building the model with '{}' did not finish within {} s (raise it with --build-timeout)", cc, timeout);
  if (r.exit_code != 0) {
    std::string first = first_error_line(r.err);
    if (first.empty()) first = r.signal ? fmt::format("killed by signal {}", r.signal) : fmt::format("exit code {}", r.exit_code);
    fail("building the model with '{}' failed: {}", cc, first);
  }
}

std::vector<std::string> cc_command(const Toolchain& tc) {
  std::vector<std::string> argv = {tc.cc};
  argv.insert(argv.end(), tc.flags.begin(), tc.flags.end());
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

// Every object is cached by what the compiler reads: the compiler and its
// flags, the headers the source can include and the source itself. The
// runtime's objects are the same for every tarball of one mlipc build, and a
// model's generated sources are often the same for several tarballs (the
// same network compiled with other options, or for "mrvl, c" with nothing on
// the MLIP), so each is compiled once per content and shared.
fs::path cached_object(const fs::path& dir, const fs::path& src, const std::string& headers_key,
                       const fs::path& objects, const Toolchain& tc, int timeout) {
  const fs::path obj = objects / (sha256_hex(headers_key + src.string() + read_file(dir / src)).substr(0, 32) + ".o");
  if (fs::exists(obj)) return obj;
  fs::create_directories(objects);
  const fs::path tmp = objects / fmt::format(".{}.{}", obj.filename().string(), static_cast<long>(getpid()));
  std::vector<std::string> argv = cc_command(tc);
  argv.insert(argv.end(), {"-c", src.string(), "-o", tmp.string()});
  compile_or_fail(argv, dir, tc.cc, timeout);
  std::error_code ec;
  fs::rename(tmp, obj, ec);  // losing a race to another process is fine
  fs::remove(tmp, ec);
  return obj;
}

// The compiler, its flags and the contents of the headers under `sub`.
std::string headers_key(const fs::path& dir, const fs::path& sub, const Toolchain& tc) {
  std::string key = tc.cc;
  for (const std::string& f : tc.flags) key += " " + f;
  std::vector<fs::path> headers;
  if (fs::exists(dir / sub))
    for (const auto& e : fs::recursive_directory_iterator(dir / sub))
      if (e.is_regular_file() && e.path().extension() == ".h") headers.push_back(e.path());
  std::sort(headers.begin(), headers.end());
  for (const fs::path& h : headers) key += fs::relative(h, dir).string() + read_file(h);
  return key;
}

// The files `mlipc compile` writes, and nothing else, are what `mlipc run`
// builds (docs/security.md, "Tarballs"): metadata.json; the generated C of
// the module (codegen/host/src/<m>_lib<N>.c, codegen/host/include/tvmgen_<m>.h);
// parameters/<m>.params, src/<m>.graph; per MLIP region mlip/<r>.bin,
// -nodes.json, -consts.json; and under runtime/ and templates/ exactly the
// files this mlipc embeds. Any other member (an extra .c file, a script, a
// Makefile) refuses the whole tarball before anything is compiled.
void check_members(const mlf::FileMap& files, const std::string& module, const fs::path& tarball) {
  std::set<std::string> embedded;
  for (const auto& r : resources::under("runtime/")) embedded.insert(std::string(r.path));
  for (const auto& r : resources::under("templates/mlf/")) embedded.insert("templates/" + std::string(r.path.substr(14)));
  for (const auto& r : resources::under("templates/firmware/")) embedded.insert(std::string(r.path));
  const std::string m = module;
  auto number_after = [](std::string_view s, std::string_view prefix, std::string_view suffix) {
    if (s.size() <= prefix.size() + suffix.size() || s.substr(0, prefix.size()) != prefix ||
        s.substr(s.size() - suffix.size()) != suffix)
      return false;
    std::string_view mid = s.substr(prefix.size(), s.size() - prefix.size() - suffix.size());
    return std::all_of(mid.begin(), mid.end(), [](char c) { return c >= '0' && c <= '9'; });
  };
  auto region_file = [](std::string_view s) {
    if (s.substr(0, 5) != "mlip/") return false;
    s.remove_prefix(5);
    for (std::string_view suffix : {"-nodes.json", "-consts.json", ".bin"})
      if (s.size() > suffix.size() && s.substr(s.size() - suffix.size()) == suffix)
        return is_c_identifier(s.substr(0, s.size() - suffix.size()));
    return false;
  };
  for (const auto& [name, data] : files) {
    const bool known = name == "metadata.json" || number_after(name, "codegen/host/src/" + m + "_lib", ".c") ||
                       name == "codegen/host/src/" + m + "_mlip_sim.c" ||
                       name == "codegen/host/include/tvmgen_" + m + ".h" || name == "parameters/" + m + ".params" ||
                       name == "src/" + m + ".graph" || region_file(name) || embedded.count(name) > 0;
    if (!known)
      fail("{}: member '{}' is not a file mlipc compile writes; mlipc run builds only mlipc's own tarballs "
           "(docs/security.md)",
           tarball.string(), printable(name));
  }
}

// The runtime core's sources as one translation unit: one compiler run
// instead of one per file (the core's files share no static name for this).
// The simulator comes with the generated code (codegen/host/src/<m>_mlip_sim.c
// includes runtime/src/sim), and runtime/src/runtime/crt is the TVM adapter,
// which firmware builds instead of the core. `contents` gets every runtime
// source, for the cache keys of the objects that include them.
std::string runtime_unity_source(const fs::path& dir, std::string* contents) {
  std::string unity = "/* The runtime core's sources, one translation unit (mlipc run). */\n";
  for (const fs::path& s : c_sources(dir, "runtime/src/core")) unity += "#include \"" + s.generic_string() + "\"\n";
  for (const fs::path& s : c_sources(dir, "runtime/src")) *contents += s.generic_string() + read_file(dir / s);
  return unity;
}

void build_into(const fs::path& dir, const std::string& tar_bytes, const fs::path& tarball, const Toolchain& cc,
                const std::string& model_c, const fs::path& cache, int timeout) {
  mlf::extract_tar_bytes(tar_bytes, tarball, dir);
  // The driver (the same for every model), its model-specific half, and the runtime.
  write_file(dir / "host_main.c", resources::get("templates/host/main.c"));
  write_file(dir / "host_model.c", model_c);
  std::string runtime_sources;
  write_file(dir / "runtime_all.c", runtime_unity_source(dir, &runtime_sources));

  // The generated sources include the runtime's headers and the model's own.
  const std::string runtime_key = headers_key(dir, "runtime", cc);
  const std::string model_key = runtime_key + runtime_sources + headers_key(dir, "codegen/host/include", cc);
  std::vector<std::string> objects;
  for (const fs::path& s : c_sources(dir, "codegen/host/src"))
    objects.push_back(cached_object(dir, s, model_key, cache / "objects", cc, timeout).string());
  objects.push_back(cached_object(dir, "host_model.c", model_key, cache / "objects", cc, timeout).string());
  objects.push_back(cached_object(dir, "host_main.c", runtime_key, cache / "objects", cc, timeout).string());
  objects.push_back(cached_object(dir, "runtime_all.c", runtime_key + runtime_sources, cache / "objects", cc, timeout).string());

  fs::copy_file(cached_program(objects, {"-lm"}, dir, cache, cc, timeout), dir / "model_host",
                fs::copy_options::overwrite_existing);
}

ProcessResult run_program(const std::vector<std::string>& argv, const fs::path& cwd, int timeout_seconds,
                          const fs::path& tarball, const char* what) {
  ProcessResult r = run_process(argv, cwd, timeout_seconds);
  const std::string t = tarball.string();
  if (r.timed_out) fail("{}: the {} did not finish within {} s (raise it with --timeout)", t, what, timeout_seconds);
  if (r.signal) fail("{}: the {} crashed (signal {})", t, what, r.signal);
  if (r.exit_code != 0) {
    std::string msg = first_error_line(r.err);
    fail("{}: the {} failed: {}", t, what, msg.empty() ? fmt::format("exit code {}", r.exit_code) : msg);
  }
  return r;
}

fs::path cached_program(const std::vector<std::string>& objects, const std::vector<std::string>& libs,
                        const fs::path& dir, const fs::path& cache, const Toolchain& cc, int timeout) {
  // The same objects link into the same program: linked once, then copied.
  std::string link_key = cc.cc;
  for (const std::string& f : cc.flags) link_key += " " + f;
  for (const std::string& o : objects) link_key += " " + o;
  for (const std::string& l : libs) link_key += " " + l;
  const fs::path programs = cache / "programs";
  const fs::path program = programs / sha256_hex(link_key).substr(0, 32);
  if (!fs::exists(program)) {
    fs::create_directories(programs);
    const fs::path tmp = programs / fmt::format(".{}.{}", program.filename().string(), static_cast<long>(getpid()));
    std::vector<std::string> link = cc_command(cc);
    link.insert(link.end(), objects.begin(), objects.end());
    link.insert(link.end(), {"-o", tmp.string()});
    link.insert(link.end(), libs.begin(), libs.end());
    compile_or_fail(link, dir, cc.cc, timeout);
    std::error_code ec;
    fs::rename(tmp, program, ec);
    fs::remove(tmp, ec);
  }
  return program;
}

void build_staged(const fs::path& cache, const std::string& key, const fs::path& exe, const fs::path& tarball,
                  const std::function<void(const fs::path&)>& build) {
  // Build beside the final folder, then rename: concurrent runs of the same
  // tarball never see a half-built cache entry.
  TempDir staging_holder("mlipc-build");
  fs::path staging = cache / fmt::format(".{}.{}", key, fs::path(staging_holder.path()).filename().string());
  try {
    fs::create_directories(staging);
    build(staging);
    std::error_code ec;
    fs::rename(staging, cache / key, ec);
    if (ec && !fs::exists(exe)) fail("cannot store the build in {}: {}", (cache / key).string(), ec.message());
  } catch (const Interrupted&) {
    std::error_code ec;
    fs::remove_all(staging, ec);
    throw;
  } catch (const Error& e) {
    std::error_code ec;
    fs::remove_all(staging, ec);
    // Every build error names the user's tarball (never the staging folder).
    const std::string prefix = tarball.string() + ": ";
    if (std::string_view(e.what()).rfind(prefix, 0) == 0) throw;
    fail("{}{}", prefix, e.what());
  } catch (...) {
    std::error_code ec;
    fs::remove_all(staging, ec);
    throw;
  }
  std::error_code ec;
  fs::remove_all(staging, ec);  // left over when another process won the rename
}

// The cache holds binaries that `run` executes, so nobody else may write
// into it: the folder is created 0700 and must be the user's own, not a
// symbolic link, and not writable by group or others (`strict`: no access
// for them at all, as for the fallback under the shared temp folder).
void check_cache_dir(const fs::path& dir, bool strict) {
  std::error_code ec;
  if (dir.has_parent_path()) fs::create_directories(dir.parent_path(), ec);
  if (::mkdir(dir.c_str(), 0700) != 0 && errno != EEXIST)
    fail("cannot create the build cache {}: {}", dir.string(), std::strerror(errno));
  struct stat st {};
  if (::lstat(dir.c_str(), &st) != 0) fail("cannot use the build cache {}: {}", dir.string(), std::strerror(errno));
  if (!S_ISDIR(st.st_mode))
    fail("the build cache {} is {}, not a folder; remove it or set MLIPC_CACHE_DIR", dir.string(),
         file_kind(static_cast<unsigned>(st.st_mode)));
  if (st.st_uid != ::geteuid())
    fail("the build cache {} belongs to another user (uid {}); mlipc runs only binaries from its own cache. "
         "Set MLIPC_CACHE_DIR to a folder of yours",
         dir.string(), st.st_uid);
  const mode_t forbidden = strict ? 077 : 022;
  if ((st.st_mode & forbidden) != 0)
    fail("the build cache {} is {} by others (mode {:o}); make it private (chmod 700) or set MLIPC_CACHE_DIR",
         dir.string(), strict ? "accessible" : "writable", st.st_mode & 0777);
}

}  // namespace steps

using namespace steps;

const std::vector<std::string>& host_flags() { return kCFlags; }

fs::path fallback_cache_dir() {
  return fs::temp_directory_path() / fmt::format("mlipc-cache-{}", static_cast<unsigned long>(::geteuid()));
}

fs::path default_cache_dir() {
  if (const char* d = std::getenv("MLIPC_CACHE_DIR"); d && *d) return d;
  if (const char* d = std::getenv("XDG_CACHE_HOME"); d && *d) return fs::path(d) / "mlipc";
  if (const char* d = std::getenv("HOME"); d && *d) return fs::path(d) / ".cache" / "mlipc";
  // No home: a per-user folder under the shared temp folder, which build()
  // requires to be the user's and inaccessible to others.
  return fallback_cache_dir();
}

CheckedTarball check_tarball(const std::string& bytes, const fs::path& tarball) {
  CheckedTarball c;
  mlf::FileMap files = mlf::read_tar_bytes(bytes, tarball);
  auto it = files.find("metadata.json");
  if (it == files.end()) fail("{}: not an mlipc model library (no metadata.json)", tarball.string());
  try {
    c.metadata = mlf::metadata_from_json(it->second);
  } catch (const Error& e) {
    fail("{}: {}", tarball.string(), e.what());
  }
  check_members(files, c.metadata.module_name, tarball);
  try {
    // A tarball bound to the hardware backend has no simulator to fall back
    // on: say so instead of pretending to run it.
    const nlohmann::json& mlip = c.metadata.extra.value("mlip", nlohmann::json::object());
    if (mlip.value("mode", "sim") == "hw")
      fail("{}: compiled for the MLIP hardware (-mattr=hw); it runs only where a device driver is registered. "
           "Host emulation needs a tarball compiled with --target-mrvl-mattr=\"sim ...\"",
           tarball.string());
    c.model_c = render_model_c(c.metadata);
  } catch (const nlohmann::json::exception& e) {
    fail("{}: metadata.json is damaged ({})", tarball.string(), mlf::json_error_reason(e));
  } catch (const Error& e) {
    if (std::string_view(e.what()).rfind("metadata.json", 0) == 0) fail("{}: {}", tarball.string(), e.what());
    throw;
  }
  return c;
}

HostModel HostModel::build(const fs::path& tarball, const BuildOptions& options) {
  const std::string bytes = read_file(tarball);
  HostModel m;
  m.tarball_ = tarball;
  CheckedTarball checked = check_tarball(bytes, tarball);
  m.metadata_ = std::move(checked.metadata);
  if (options.build_timeout < 1) fail("--build-timeout {} must be at least 1 second", options.build_timeout);
  const Toolchain cc{options.cc.empty() ? compiler() : options.cc, options.flags.empty() ? kCFlags : options.flags};
  std::string key_text = bytes + "\n" + cc.cc;
  for (const std::string& f : cc.flags) key_text += " " + f;
  key_text += std::string(resources::get("templates/host/main.c")) + std::string(resources::get("templates/host/model.c"));
  const std::string key = sha256_hex(key_text).substr(0, 32);
  const fs::path cache = options.cache_dir.empty() ? default_cache_dir() : options.cache_dir;
  check_cache_dir(cache, options.cache_dir.empty() && cache == fallback_cache_dir());
  m.dir_ = cache / key;
  m.exe_ = m.dir_ / "model_host";
  if (fs::exists(m.exe_)) return m;
  if (options.only_cached) {
    m.exe_.clear();
    return m;
  }

  build_staged(cache, key, m.exe_, tarball, [&](const fs::path& staging) {
    build_into(staging, bytes, tarball, cc, checked.model_c, cache, options.build_timeout);
  });
  return m;
}

RunResult HostModel::run(const io::NamedTensors& inputs, int runs, int timeout_seconds) const {
  if (timeout_seconds < 1) fail("--timeout {} must be at least 1 second", timeout_seconds);
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
  std::vector<std::string> argv = emulator_;
  argv.insert(argv.end(), {exe_.string(), "-r", std::to_string(std::max(runs, 1))});
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

  ProcessResult r = run_program(argv, work.path(), timeout_seconds, tarball_, "model");
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
    } else if (tag == "mlipc-mlip-region") {
      MlipRegionTime rt{};
      double count = 0;
      lines >> rt.region >> rt.cycles >> rt.ns >> count;
      if (count > 0) {
        rt.cycles /= count;
        rt.ns /= count;
      }
      result.mlip_regions.push_back(rt);
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
