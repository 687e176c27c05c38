// Host emulation: a compiled tarball built with the system C compiler
// together with the runtime and a small driver, then run on host tensors.
// Builds are cached per tarball content (and compiler), so running the same
// tarball twice compiles it once; objects and programs are cached per what
// the compiler reads (host/object_cache.h), so equal sources in other
// tarballs compile once too, and the runtime is one object per runtime
// content and flags, whatever the model (host/runtime_object.h). The steps:
// toolchain.h (the compiler), member_check.h (what may be built),
// build_cache.h (the cache folder, staged builds), host_program.h (the
// driver's model half, its output), run_program.h.
#pragma once

#include <filesystem>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "host/remote_client.h"
#include "io/npz.h"
#include "mlf/archive.h"
#include "mlf/metadata.h"
#include "support/limits.h"

namespace mlipc::host {

struct BuildOptions {
  std::string cc;                   // C compiler; default $CC or "cc"
  // Default $MLIPC_CACHE_DIR, $XDG_CACHE_HOME/mlipc, ~/.cache/mlipc, else
  // <temp>/mlipc-cache-<uid>. It must be the user's own folder, not writable
  // by others (the fallback: not accessible by others); created 0700.
  std::filesystem::path cache_dir;
  int build_timeout = limits::kDefaultBuildSeconds;  // per compiler run
  // The compiler's flags; empty: host emulation's (host_flags()). A cross
  // build gives its own (cross_build.h).
  std::vector<std::string> flags;
  // Only look the build up in the cache, never compile: build() returns a
  // model whose executable() is empty when it is not there. (`run` of a
  // cross-built tarball: the compiler named in its metadata is never run.)
  bool only_cached = false;
};

// Host emulation's compiler flags.
const std::vector<std::string>& host_flags();

struct LayerTime {
  int layer;
  double ns;
};

struct MlipLayerTime {
  int region;  // index in metadata's mlip.regions
  int layer;   // index in that region's layers (the last may be load_weights)
  double cycles;  // per run
  double ns;      // per run (mean)
};

// An MLIP region as a whole (its stats entry after its layers'): the cycles
// its backend counted (the simulator's cycle model here), per run.
struct MlipRegionTime {
  int region;
  double cycles;  // per run
  double ns;      // per run (mean)
};

struct RunResult {
  io::NamedTensors outputs;  // in model order, keyed by the model's output names
  double total_ns = 0;       // the median over the runs
  std::vector<double> run_ns;  // every run
  std::vector<LayerTime> layers;
  std::vector<MlipLayerTime> mlip_layers;
  std::vector<MlipRegionTime> mlip_regions;
  // A remote run (HostModel::run_on): what the server measured around the
  // runner, all its runs together.
  bool remote = false;
  uint64_t remote_wall_ns = 0, remote_cpu_ns = 0;
};

// What build() checks before it compiles anything: the archive, its
// metadata.json, that it holds only files mlipc compile writes, and the host
// driver rendered from the metadata. Errors name `tarball`. (The fuzz
// target's entry for what `run` reads.)
struct CheckedTarball {
  mlf::Metadata metadata;
  std::string model_c;  // the host driver's model-specific half (templates/host/model.c)
};

class HostModel {
 public:
  // Extracts and builds `tarball` (or reuses the cached build). Only a
  // tarball holding nothing but the files mlipc compile writes is built.
  static HostModel build(const std::filesystem::path& tarball, const BuildOptions& options = {});
  // The same for a tarball the caller has read (`bytes`, the build cache's
  // key) and checked (check_tarball): a 180 MB tarball is read once.
  static HostModel build(const std::filesystem::path& tarball, const std::string& bytes,
                         const CheckedTarball& checked, const BuildOptions& options = {});

  // Runs the program through `emulator` (for example qemu-aarch64 -L
  // /usr/aarch64-linux-gnu): a cross build's runner.
  void run_through(std::vector<std::string> emulator) { emulator_ = std::move(emulator); }
  // Runs the program on `mlipc serve` at `at` instead (remote_client.h): a
  // cross build's runner on its board.
  void run_on(RemoteEndpoint at) { remote_ = std::move(at); }

  const mlf::Metadata& metadata() const { return metadata_; }
  const std::filesystem::path& executable() const { return exe_; }

  // Checks `inputs` against the model (every input present once by name, no
  // extra arrays, dtype and shape exact), runs, returns the outputs.
  // `runs` > 1 repeats the inference (for timing); layer times are those of
  // the first run, total_ns the median.
  // The model process is killed after `timeout_seconds`.
  RunResult run(const io::NamedTensors& inputs, int runs = 1, int timeout_seconds = limits::kDefaultRunSeconds) const;
  // Runs each set of inputs once and returns each one's outputs: a local
  // program runs them all in one process (a remote one, one job each). Each
  // set is checked as run() checks it, errors naming it ("sample 3");
  // `timeout_seconds` is each sample's.
  std::vector<io::NamedTensors> run_each(const std::vector<io::NamedTensors>& samples,
                                         int timeout_seconds = limits::kDefaultRunSeconds) const;

 private:
  std::vector<std::string> input_bytes(const io::NamedTensors& inputs, const std::string& which) const;
  std::string run_local(const std::vector<RemoteFile>& files, const std::vector<std::string>& argv_extra,
                        int64_t samples, int timeout_seconds, std::map<std::string, std::string>& written) const;
  uint64_t output_bytes(size_t k) const;
  [[noreturn]] void wrong_size(size_t k, const uint64_t* got, int64_t samples) const;

  mlf::Metadata metadata_;
  std::filesystem::path tarball_;  // as the user named it, for messages
  std::filesystem::path dir_;
  std::filesystem::path exe_;
  std::vector<std::string> emulator_;  // run exe_ through this (empty: directly)
  std::optional<RemoteEndpoint> remote_;  // run exe_ there
};

CheckedTarball check_tarball(const std::string& bytes, const std::filesystem::path& tarball);
// The same on the members the caller has read (mlf::read_tar_bytes).
CheckedTarball check_tarball(const mlf::FileMap& files, const std::filesystem::path& tarball);

// The folder builds are cached in.
std::filesystem::path default_cache_dir();
// <temp>/mlipc-cache-<uid>: the cache when neither MLIPC_CACHE_DIR,
// XDG_CACHE_HOME nor HOME is set.
std::filesystem::path fallback_cache_dir();

}  // namespace mlipc::host
