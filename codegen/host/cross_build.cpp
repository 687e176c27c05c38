#include "host/cross_build.h"

#include <unistd.h>

#include <algorithm>
#include <cstdlib>
#include <set>
#include <sstream>

#include <fmt/format.h>

#include "host/host_model.h"
#include "host/object_cache.h"
#include "host/runtime_object.h"
#include "mlf/archive.h"
#include "support/error.h"
#include "support/text.h"
#include "support/file_util.h"
#include "support/process.h"

namespace fs = std::filesystem;

namespace mlipc::host {

namespace {

void run_or_fail(const std::vector<std::string>& argv, const fs::path& dir, const std::string& what, int timeout) {
  ProcessResult r = run_process(argv, dir, timeout, {"TMPDIR=" + dir.string()});
  if (r.timed_out) fail("{} with '{}' did not finish within {} s", what, argv.front(), timeout);
  if (r.exit_code != 0) {
    std::string first = first_error_line(r.err);
    if (first.empty()) first = r.signal ? fmt::format("killed by signal {}", r.signal) : fmt::format("exit code {}", r.exit_code);
    fail("{} with '{}' failed: {}", what, argv.front(), first);
  }
}

// The generated code and the runtime (the core, and the simulator of an
// MLIP module); runtime/src/runtime/crt is the TVM adapter, which firmware
// built the TVM way compiles instead.
std::vector<std::string> sources(const fs::path& dir) {
  std::vector<std::string> srcs;
  std::vector<std::string> subs = {"codegen/host/src"};
  subs.insert(subs.end(), steps::runtime_parts().begin(), steps::runtime_parts().end());
  for (const std::string& sub : subs)
    for (const fs::path& s : steps::c_sources(dir, sub)) srcs.push_back(s.generic_string());
  std::sort(srcs.begin(), srcs.end());
  return srcs;
}

}  // namespace

bool on_path(const std::string& tool) {
  if (tool.find('/') != std::string::npos) return ::access(tool.c_str(), X_OK) == 0;
  const char* path = std::getenv("PATH");
  std::istringstream dirs(path ? path : "");
  for (std::string d; std::getline(dirs, d, ':');)
    if (!d.empty() && ::access((fs::path(d) / tool).c_str(), X_OK) == 0) return true;
  return false;
}

std::string archiver_for(const std::string& compiler) {
  std::string name = fs::path(compiler).filename().string();
  std::vector<std::string> candidates;
  for (const char* cc : {"gcc", "clang", "cc"}) {
    const size_t at = name.rfind(cc);
    if (at != std::string::npos && at + std::string(cc).size() == name.size()) {
      const std::string prefix = name.substr(0, at);
      if (!prefix.empty()) candidates.insert(candidates.end(), {prefix + "ar", prefix + "gcc-ar"});
      break;
    }
  }
  candidates.insert(candidates.end(), {"llvm-ar", "ar"});
  for (const std::string& c : candidates)
    if (on_path(c)) return c;
  fail("--cross-compiler '{}': no archiver found (tried {})", compiler, fmt::join(candidates, ", "));
}

fs::path cross_dir(const fs::path& tarball, const std::string& triple) {
  // The triple was checked to be a name (driver::is_triple_name); this keeps
  // the folder beside the tarball whatever a caller passes.
  if (!is_triple_name(triple)) fail("internal: '{}' is not a target triple", printable(triple));
  fs::path base = tarball;
  if (base.extension() == ".tar") base.replace_extension();
  return base.string() + "." + triple;
}

std::string runner_name(const std::string& module) { return module + "_runner"; }

const std::vector<std::string>& cross_base_flags() {
  static const std::vector<std::string> flags = {"-std=c99", "-O2", "-ffp-contract=off"};
  return flags;
}

std::vector<std::string> runner_flags(const std::vector<std::string>& target_flags) {
  std::vector<std::string> f = {"-std=c99", "-O2", "-ffp-contract=off", "-DMLIP_PROFILE", "-w"};
  f.insert(f.end(), target_flags.begin(), target_flags.end());
  return f;
}

void check_build_folder(const fs::path& out, const std::string& module) {
  std::error_code ec;
  const fs::file_status st = fs::symlink_status(out, ec);
  if (!fs::exists(st)) return;
  if (!fs::is_directory(st))
    fail("{} exists and is not a folder: remove it or choose another output name", out.string());
  for (const auto& e : fs::directory_iterator(out)) {
    const std::string name = e.path().filename().string();
    if ((name != "lib" + module + ".a" && name != runner_name(module)) || !e.is_regular_file())
      fail("{} holds '{}', which a cross build does not write: mlipc replaces only its own build folder; move it "
           "or choose another output name",
           out.string(), printable(name));
  }
}

namespace {

// Puts the staged build at `out`, replacing only a folder check_build_folder
// accepts.
void replace_build_folder(const fs::path& out, const fs::path& staging, const std::string& module) {
  check_build_folder(out, module);
  std::error_code ec;
  fs::remove_all(out, ec);
  if (ec) fail("cannot replace {}: {}", out.string(), ec.message());
  fs::rename(staging, out, ec);
  if (ec) fail("cannot write {}: {}", out.string(), ec.message());
}

}  // namespace

void build_cross(const fs::path& tarball, const std::string& module, const CrossBuild& b, const fs::path& out) {
  const std::string ar = archiver_for(b.compiler);
  const std::string what = fmt::format("building the model for {}", b.triple.empty() ? "the target" : b.triple);
  TempDir work("mlipc-cross");
  const fs::path x = work.path() / "src";
  mlf::extract_tar(tarball, x);
  std::vector<std::string> srcs = sources(x);
  std::set<std::string> stems;
  std::vector<std::string> objects;
  // One object per source, so a firmware link takes only what it calls.
  std::vector<std::string> argv = {b.compiler};
  argv.insert(argv.end(), cross_base_flags().begin(), cross_base_flags().end());
  argv.insert(argv.end(), b.flags.begin(), b.flags.end());
  argv.insert(argv.end(), {"-Icodegen/host/include", "-Iruntime/include", "-c"});
  for (const std::string& s : srcs) {
    const std::string stem = fs::path(s).stem().string();
    if (!stems.insert(stem).second) fail("internal: two sources named {}.c in {}", stem, tarball.string());
    argv.push_back(s);
    objects.push_back(stem + ".o");
  }
  run_or_fail(argv, x, what, b.build_timeout);

  // Staged beside the destination, then renamed: never half a folder.
  const fs::path staging = fs::absolute(out).string() + fmt::format(".tmp-{}", static_cast<long>(::getpid()));
  std::error_code ec;
  fs::remove_all(staging, ec);
  fs::create_directories(staging);
  try {
    std::vector<std::string> arc = {ar, "rcs", (staging / ("lib" + module + ".a")).string()};
    arc.insert(arc.end(), objects.begin(), objects.end());
    run_or_fail(arc, x, "archiving the model", b.build_timeout);
    if (b.runner) {
      // mlipc run's own driver, built by the cross compiler: run() drives it
      // exactly as the host build (in files, out files, timing lines).
      BuildOptions bo;
      bo.cc = b.compiler;
      bo.build_timeout = b.build_timeout;
      bo.flags = runner_flags(b.flags);
      HostModel m = HostModel::build(tarball, bo);
      fs::copy_file(m.executable(), staging / runner_name(module), fs::copy_options::overwrite_existing);
    }
    replace_build_folder(out, staging, module);
  } catch (...) {
    fs::remove_all(staging, ec);
    throw;
  }
}

}  // namespace mlipc::host
