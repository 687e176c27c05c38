// `mlipc run --profile`: one row per layer of one run (an MLIP region's
// layers or a CPU layer) with its ONNX nodes, MACs, the MLIP cycles and the
// measured host time. profile_of() builds the rows; the command line prints
// them (print_profile), the Python module returns them as records.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "host/host_model.h"
#include "mlf/metadata.h"

namespace mlipc::cli {

struct ProfileRow {
  std::string region;  // "cpu", or the MLIP region's name
  std::string layer;   // the CPU layer's op, the MLIP layer's kind, or "load_weights"
  std::vector<std::string> onnx_nodes;  // empty for load_weights (once, at load)
  std::optional<uint64_t> macs;    // unset: not recorded (older tarballs), or load_weights
  std::optional<uint64_t> cycles;  // MLIP layers only: measured by the simulator, else the estimate
  double host_us = 0;              // measured on this machine
  bool at_load = false;            // load_weights: the region's pinned weights, loaded once
};

struct Profile {
  std::vector<ProfileRow> rows;
  uint64_t total_cycles = 0, border_cycles = 0;  // MLIP cycles of all layers, of the border conversions
  double total_us = 0;                           // the (least) run's host time
  int runs = 1;                                  // runs measured: above 1, each CPU layer's least
  uint64_t mlip_macs = 0, cpu_macs = 0;
  bool has_mlip = false;
  double clock_mhz = 0;  // with MLIP: the cycle model's clock, mcpu and tiles
  std::string mcpu;
  int num_tiles = 0;
};

// Throws nlohmann::json's exceptions or Error on a damaged metadata.json
// (the caller names the tarball).
Profile profile_of(const mlf::Metadata& md, const host::RunResult& r);
// The table `mlipc run --profile` prints.
void print_profile(std::string& text, const Profile& p);

}  // namespace mlipc::cli
