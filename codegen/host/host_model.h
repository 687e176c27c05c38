// Host emulation: a compiled tarball built with the system C compiler
// together with the runtime and a small driver, then run on host tensors.
// Builds are cached per tarball content (and compiler), so running the same
// tarball twice compiles it once.
#pragma once

#include <filesystem>
#include <string>
#include <vector>

#include "io/npz.h"
#include "mlf/metadata.h"

namespace mlipc::host {

struct BuildOptions {
  std::string cc;                   // C compiler; default $CC or "cc"
  std::filesystem::path cache_dir;  // default $MLIPC_CACHE_DIR, $XDG_CACHE_HOME/mlipc, ~/.cache/mlipc
};

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

struct RunResult {
  io::NamedTensors outputs;  // in model order, keyed by the model's output names
  double total_ns = 0;       // the median over the runs
  std::vector<double> run_ns;  // every run
  std::vector<LayerTime> layers;
  std::vector<MlipLayerTime> mlip_layers;
};

class HostModel {
 public:
  // Extracts and builds `tarball` (or reuses the cached build).
  static HostModel build(const std::filesystem::path& tarball, const BuildOptions& options = {});

  const mlf::Metadata& metadata() const { return metadata_; }
  const std::filesystem::path& executable() const { return exe_; }
  const std::filesystem::path& source_dir() const { return dir_; }

  // Checks `inputs` against the model (every input present once by name, no
  // extra arrays, dtype and shape exact), runs, returns the outputs.
  // `runs` > 1 repeats the inference (for timing); layer times are those of
  // the first run, total_ns the median.
  RunResult run(const io::NamedTensors& inputs, int runs = 1) const;

 private:
  mlf::Metadata metadata_;
  std::filesystem::path dir_;
  std::filesystem::path exe_;
};

// The folder builds are cached in.
std::filesystem::path default_cache_dir();

}  // namespace mlipc::host
