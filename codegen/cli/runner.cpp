// Which program runs a tarball for `mlipc run` and Python's Module.run
// (cli/runner.h).
#include "cli/runner.h"

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include "driver/cross.h"
#include "host/cross_build.h"
#include "host/remote_client.h"
#include "mlf/metadata.h"
#include "support/error.h"
#include "support/text.h"

namespace fs = std::filesystem;

namespace mlipc::cli {

namespace {

// The runner that `compile --cross-compiler` built into this user's own
// cache, never the file beside the tarball nor a compiler named by
// metadata.json (docs/security.md): found by the same key, or refused with
// a line ending in `otherwise`.
host::HostModel cached_runner(const RunnerChoice& a, const std::string& bytes, const host::CheckedTarball& checked,
                              const driver::CrossTarget& cross, const std::string& otherwise) {
  host::BuildOptions bo;
  bo.cc = cross.compiler;
  bo.flags = host::runner_flags(cross.compiler_flags());
  bo.only_cached = true;
  host::HostModel model = host::HostModel::build(a.tarball, bytes, checked, bo);
  if (model.executable().empty())
    fail("{} is built for {} and this machine's build cache has no runner for it: compile it again here with "
         "--cross-compiler{}",
         a.tarball, printable(cross.triple), otherwise);
  return model;
}

// --remote: the cross-built runner runs on `mlipc serve` at host:port
// (docs/user-guide.md, "Remote run").
host::HostModel remote_runner(const RunnerChoice& a, const std::string& bytes, const host::CheckedTarball& checked,
                              const driver::CrossTarget& cross) {
  const mlf::Metadata& md = checked.metadata;
  host::RemoteEndpoint at = host::parse_endpoint(a.remote);
  if (!a.token_file.empty()) at.token = host::read_token_file(a.token_file);
  if (cross.compiler.empty())
    fail("{} has no cross build to run on {}: compile it with --cross-compiler (for example aarch64-linux-gnu-gcc)",
         a.tarball, at.shown());
  const fs::path beside = host::cross_dir(a.tarball, cross.triple) / host::runner_name(md.module_name);
  if (!cross.linux_triple())
    fail("{} is built for {}, which has no runner (not Linux): --remote runs a Linux target's runner", a.tarball,
         printable(cross.triple));
  host::HostModel model =
      cached_runner(a, bytes, checked, cross, fmt::format(" (the runner {} beside it is never sent)", beside.string()));
  model.run_on(std::move(at));
  return model;
}

}  // namespace

host::HostModel runner_for(const RunnerChoice& a, const std::string& bytes, const host::CheckedTarball& checked) {
  const mlf::Metadata& md = checked.metadata;
  const nlohmann::json& mlipc = md.extra.value("mlipc", nlohmann::json::object());
  driver::CrossTarget cross;
  try {
    if (mlipc.contains("cross")) cross = driver::CrossTarget::from_json(mlipc.at("cross"));
  } catch (const nlohmann::json::exception& e) {
    fail("{}: metadata.json is damaged ({})", a.tarball, mlf::json_error_reason(e));
  }
  if (!a.remote.empty()) return remote_runner(a, bytes, checked, cross);
  const std::string arch = cross.arch();
  if (cross.compiler.empty() || arch.empty() || arch == driver::host_arch()) {
    host::BuildOptions bo;
    bo.build_timeout = a.build_timeout;
    return host::HostModel::build(a.tarball, bytes, checked, bo);
  }
  const fs::path beside = host::cross_dir(a.tarball, cross.triple) / host::runner_name(md.module_name);
  if (!cross.linux_triple())
    fail("{} is built for {}, not this machine ({}): link {} into the device's firmware", a.tarball,
         printable(cross.triple), driver::host_arch(),
         (host::cross_dir(a.tarball, cross.triple) / ("lib" + md.module_name + ".a")).string());
  const std::string qemu = "qemu-" + arch;
  if (!host::on_path(qemu))
    fail("{} is built for {}: install qemu-user ({}) to run it here, or run {} on the device with the same arguments "
         "as mlipc run gives it",
         a.tarball, printable(cross.triple), qemu, beside.string());
  host::HostModel model = cached_runner(a, bytes, checked, cross, fmt::format(", or run {} on the device", beside.string()));
  std::vector<std::string> emulator = {qemu};
  // Debian's cross C library (libc6-<arch>-cross) for a dynamically linked runner.
  const fs::path sysroot = fs::path("/usr") / cross.triple;
  if (fs::is_directory(sysroot)) emulator.insert(emulator.end(), {"-L", sysroot.string()});
  model.run_through(emulator);
  return model;
}

}  // namespace mlipc::cli
