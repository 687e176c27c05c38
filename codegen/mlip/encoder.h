// Writes a command buffer in the format of include/mlip/cmdbuf.h.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "mlip/lower.h"
#include "mlip/target.h"

namespace mlipc::mlip {

struct EncodedLayer {
  uint32_t kind = 0;
  std::string name;
  uint64_t macs = 0;
  uint64_t est_cycles = 0;
};

struct EncodeInput {
  const LoweredRegion* region = nullptr;
  const TargetInfo* target = nullptr;
  int num_tiles = 1;
  bool hardware = false;
  bool pinned = false;
  uint32_t ocm_size = 0;
  uint32_t pinned_offset = 0;
  uint32_t scratch_size = 0;
  std::vector<EncodedLayer> layers;
  std::vector<mlip_cmd> init, main;
};

std::vector<uint8_t> encode(const EncodeInput& in);

}  // namespace mlipc::mlip
