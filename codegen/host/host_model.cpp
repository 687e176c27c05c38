#include "host/host_model.h"

#include <algorithm>
#include <map>

#include <fmt/format.h>

#include "host/build_cache.h"
#include "host/cache_trim.h"
#include "host/host_program.h"
#include "host/member_check.h"
#include "host/object_cache.h"
#include "host/run_program.h"
#include "host/runtime_object.h"
#include "mlf/archive.h"
#include "resources/resources.h"
#include "support/error.h"
#include "support/file_util.h"
#include "support/process.h"
#include "support/text.h"

namespace fs = std::filesystem;

namespace mlipc::host {

using namespace steps;

namespace {

// The host program of one model: its generated sources and model.c, each
// cached by what it reads (the runtime's public headers, the module's
// header, the source); main.c, the same for every model; and the runtime
// (core and simulator) as one object cached by the runtime alone, so that
// it is compiled once for every model of one mlipc build. The build folder
// holds the model's own files only; the runtime's come from the shared
// runtime_tree (its include folder given to the compiler by absolute path,
// which no cache key holds).
void build_into(const fs::path& dir, const std::string& tar_bytes, const fs::path& tarball, const Toolchain& tc,
                const std::string& model_c, const fs::path& cache, int timeout) {
  const mlf::FileMap files = mlf::read_tar_bytes(tar_bytes, tarball);
  const fs::path tree = runtime_tree(files, cache, tarball);
  for (const auto& [name, data] : files) {
    if (name.rfind("codegen/host/", 0) != 0) continue;
    fs::create_directories((dir / name).parent_path());
    write_file(dir / name, data);
  }
  write_file(dir / "host_main.c", resources::get("templates/host/main.c"));
  write_file(dir / "host_model.c", model_c);
  Toolchain with_runtime = tc;
  with_runtime.flags.push_back("-I" + (fs::absolute(tree) / "runtime" / "include").string());
  const fs::path objects_dir = cache / "objects";
  const std::string runtime_key = headers_key(tree, {"runtime/include"}, tc);
  const std::string model_key = runtime_key + headers_key(dir, {"codegen/host/include"}, tc);
  std::vector<std::string> objects;
  for (const fs::path& s : c_sources(dir, "codegen/host/src"))
    objects.push_back(cached_object(dir, s, model_key, objects_dir, with_runtime, timeout).string());
  objects.push_back(cached_object(dir, "host_model.c", model_key, objects_dir, with_runtime, timeout).string());
  objects.push_back(cached_object(dir, "host_main.c", runtime_key, objects_dir, with_runtime, timeout).string());
  objects.push_back(runtime_object(tree, runtime_parts(), tc, cache, timeout).string());
  fs::copy_file(cached_program(objects, {"-lm"}, dir, cache, tc, timeout), dir / "model_host",
                fs::copy_options::overwrite_existing);
}

}  // namespace

CheckedTarball check_tarball(const std::string& bytes, const fs::path& tarball) {
  return check_tarball(mlf::read_tar_bytes(bytes, tarball), tarball);
}

CheckedTarball check_tarball(const mlf::FileMap& files, const fs::path& tarball) {
  CheckedTarball c;
  auto it = files.find("metadata.json");
  if (it == files.end()) fail("{}: not an mlipc model library (no metadata.json, no pipeline.json)", tarball.string());
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
  return build(tarball, bytes, check_tarball(bytes, tarball), options);
}

HostModel HostModel::build(const fs::path& tarball, const std::string& bytes, const CheckedTarball& checked,
                           const BuildOptions& options) {
  HostModel m;
  m.tarball_ = tarball;
  m.metadata_ = checked.metadata;
  if (options.build_timeout < 1) fail("--build-timeout {} must be at least 1 second", options.build_timeout);
  const Toolchain cc{options.cc.empty() ? compiler() : options.cc, options.flags.empty() ? host_flags() : options.flags};
  // The tarball's bytes, the compiler and its flags and the driver's
  // templates, hashed in parts (not copied into one string: 45 MB for
  // ResNet-18, a quarter of `mlipc run`'s time).
  std::string tail = "\n" + cc.cc;
  for (const std::string& f : cc.flags) tail += " " + f;
  const std::string key =
      sha256_hex({bytes, tail, resources::get("templates/host/main.c"), resources::get("templates/host/model.c")}).substr(0, 32);
  const fs::path cache = resolve_cache_dir(options.cache_dir);
  m.dir_ = cache / key;
  m.exe_ = m.dir_ / "model_host";
  if (fs::exists(m.exe_)) {
    mark_used(m.dir_);
    return m;
  }
  if (options.only_cached) {
    m.exe_.clear();
    return m;
  }
  const uint64_t max_bytes = cache_max_bytes();
  build_staged(cache, key, m.exe_, tarball, [&](const fs::path& staging) {
    build_into(staging, bytes, tarball, cc, checked.model_c, cache, options.build_timeout);
  });
  trim_after_build(cache, max_bytes);
  return m;
}

// The inputs' bytes in model order, each checked against the model (every
// input present once by name, no extra arrays, dtype and shape exact).
std::vector<std::string> HostModel::input_bytes(const io::NamedTensors& inputs, const std::string& which) const {
  const mlf::Metadata& md = metadata_;
  // `mlipc run` checked the .npz against the inputs already (naming it);
  // this is the library's own check, naming the tarball.
  const std::string tar = printable(tarball_.string()) + which;
  std::map<std::string, const TensorData*> given;
  for (const auto& [name, t] : inputs) {
    if (given.count(name)) fail("{}: input '{}' is given twice", tar, printable(name));
    given[name] = &t;
  }
  std::string names;
  for (const auto& in : md.inputs) names += (names.empty() ? "" : ", ") + printable(in.name);
  for (const auto& [name, t] : given) {
    bool known = false;
    for (const auto& in : md.inputs) known = known || in.name == name;
    if (!known) fail("{}: '{}' is not an input of the model (its inputs: {})", tar, printable(name), names);
  }
  std::vector<std::string> bytes;
  for (const auto& in : md.inputs) {
    auto it = given.find(in.name);
    if (it == given.end()) fail("{}: input '{}' is missing (its inputs: {})", tar, printable(in.name), names);
    const TensorData& t = *it->second;
    if (t.dtype() != in.dtype)
      fail("{}: input '{}' must be {}, got {}", tar, printable(in.name), dtype_name(in.dtype), dtype_name(t.dtype()));
    if (t.shape() != in.shape)
      fail("{}: input '{}' must have shape {}, got {}", tar, printable(in.name), shape_str(in.shape),
           shape_str(t.shape()));
    bytes.emplace_back(reinterpret_cast<const char*>(t.raw()), t.nbytes());
  }
  return bytes;
}

// Runs the local program on `files` (in<k>.bin), reading out<k>.bin of
// `samples` outputs each; returns its stdout.
std::string HostModel::run_local(const std::vector<RemoteFile>& files, const std::vector<std::string>& argv_extra,
                                 int64_t samples, int timeout_seconds, std::map<std::string, std::string>& written) const {
  TempDir work("mlipc-run");
  std::vector<std::string> argv = emulator_;
  argv.push_back(exe_.string());
  argv.insert(argv.end(), argv_extra.begin(), argv_extra.end());
  for (const RemoteFile& f : files) {
    write_file(work.path() / f.name, f.bytes);
    argv.push_back((work.path() / f.name).string());
  }
  const mlf::Metadata& md = metadata_;
  for (size_t k = 0; k < md.outputs.size(); ++k) argv.push_back((work.path() / fmt::format("out{}.bin", k)).string());
  ProcessResult r = run_program(argv, work.path(), timeout_seconds, tarball_, "model");
  for (size_t k = 0; k < md.outputs.size(); ++k) {
    const fs::path file = work.path() / fmt::format("out{}.bin", k);
    std::error_code ec;
    const uint64_t size = fs::file_size(file, ec);
    if (ec || size != output_bytes(k) * static_cast<uint64_t>(samples)) wrong_size(k, ec ? nullptr : &size, samples);
    written[fmt::format("out{}.bin", k)] = read_file(file);
  }
  return std::move(r.out);
}

uint64_t HostModel::output_bytes(size_t k) const {
  return static_cast<uint64_t>(numel(metadata_.outputs[k].shape)) * dtype_size(metadata_.outputs[k].dtype);
}

// Output k is numel x dtype bytes (per sample); anything else (or nothing) is one line.
void HostModel::wrong_size(size_t k, const uint64_t* got, int64_t samples) const {
  const auto& o = metadata_.outputs[k];
  fail("{}: the model wrote {} of output '{}', not the {} bytes of {}{} {}", printable(tarball_.string()),
       got ? fmt::format("{} bytes", *got) : std::string("nothing"), printable(o.name),
       output_bytes(k) * static_cast<uint64_t>(samples), samples == 1 ? "" : fmt::format("{} x ", samples),
       dtype_name(o.dtype), shape_str(o.shape));
}

RunResult HostModel::run(const io::NamedTensors& inputs, int runs, int timeout_seconds) const {
  if (timeout_seconds < 1) fail("--timeout {} must be at least 1 second", timeout_seconds);
  const mlf::Metadata& md = metadata_;
  const std::string tar = printable(tarball_.string());
  // The runner's arguments: -r N, in<k>.bin for each input, out<k>.bin for
  // each output (templates/host/main.c).
  std::vector<RemoteFile> files;
  std::vector<std::string> bytes = input_bytes(inputs, "");
  for (size_t i = 0; i < bytes.size(); ++i) files.push_back({fmt::format("in{}.bin", i), std::move(bytes[i])});
  std::vector<std::string> out_names;
  for (size_t i = 0; i < md.outputs.size(); ++i) out_names.push_back(fmt::format("out{}.bin", i));

  RunResult result;
  std::string out;                       // the program's stdout: its timings
  std::map<std::string, std::string> written;  // output file -> bytes
  if (remote_) {
    RemoteJob job{exe_, std::move(files), out_names, static_cast<uint32_t>(std::max(runs, 1))};
    RemoteResult rr = run_remote(*remote_, job, timeout_seconds);
    const std::string first = rr.err.substr(0, rr.err.find('\n'));
    if (rr.timed_out)
      fail("{}: the model did not finish within {} s on {} (raise it with --timeout, up to the server's "
           "--job-timeout)",
           tar, timeout_seconds, remote_->shown());
    if (rr.status != 0)
      fail("{}: the model failed on {} ({} {}){}", tar, remote_->shown(), rr.status < 0 ? "signal" : "exit status",
           std::abs(rr.status), first.empty() ? "" : ": " + printable(first));
    for (RemoteFile& f : rr.outputs) written[f.name] = std::move(f.bytes);
    out = std::move(rr.out);
    result.remote = true;
    result.remote_wall_ns = rr.wall_ns;
    result.remote_cpu_ns = rr.user_ns + rr.sys_ns;
  } else {
    out = run_local(files, {"-r", std::to_string(std::max(runs, 1))}, 1, timeout_seconds, written);
  }
  for (size_t i = 0; i < md.outputs.size(); ++i) {
    const auto& out_info = md.outputs[i];
    auto it = written.find(out_names[i]);
    if (it == written.end()) wrong_size(i, nullptr, 1);
    const uint64_t size = it->second.size();
    if (size != output_bytes(i)) wrong_size(i, &size, 1);
    const std::string& b = it->second;
    result.outputs.emplace_back(out_info.name, TensorData(out_info.dtype, out_info.shape, std::vector<uint8_t>(b.begin(), b.end())));
  }
  steps::read_timings(out, result);
  return result;
}

std::vector<io::NamedTensors> HostModel::run_each(const std::vector<io::NamedTensors>& samples,
                                                  int timeout_seconds) const {
  if (timeout_seconds < 1) fail("--timeout {} must be at least 1 second", timeout_seconds);
  std::vector<io::NamedTensors> outs;
  if (samples.empty()) return outs;
  if (remote_) {  // the server runs one job at a time: one per sample
    for (const io::NamedTensors& s : samples) outs.push_back(run(s, 1, timeout_seconds).outputs);
    return outs;
  }
  const mlf::Metadata& md = metadata_;
  const int64_t n = static_cast<int64_t>(samples.size());
  // Each sample checked first, naming it; then each input's samples in one
  // file, one after another (templates/host/main.c, -b).
  std::vector<RemoteFile> files;
  for (size_t i = 0; i < md.inputs.size(); ++i) files.push_back({fmt::format("in{}.bin", i), {}});
  for (size_t s = 0; s < samples.size(); ++s) {
    std::vector<std::string> bytes = input_bytes(samples[s], fmt::format(" (sample {})", s));
    for (size_t i = 0; i < bytes.size(); ++i) files[i].bytes += bytes[i];
  }
  // The timeout is each sample's, as for one run at a time.
  const int64_t total = std::min<int64_t>(static_cast<int64_t>(timeout_seconds) * n, limits::kMaxSeconds);
  std::map<std::string, std::string> written;
  (void)run_local(files, {"-b", std::to_string(n)}, n, static_cast<int>(total), written);
  outs.resize(samples.size());
  for (size_t k = 0; k < md.outputs.size(); ++k) {
    const std::string& all = written.at(fmt::format("out{}.bin", k));
    const size_t per = static_cast<size_t>(output_bytes(k));
    for (size_t s = 0; s < samples.size(); ++s) {
      const auto* p = reinterpret_cast<const uint8_t*>(all.data()) + s * per;
      outs[s].emplace_back(md.outputs[k].name,
                           TensorData(md.outputs[k].dtype, md.outputs[k].shape, std::vector<uint8_t>(p, p + per)));
    }
  }
  return outs;
}

}  // namespace mlipc::host
