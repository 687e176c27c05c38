// The cycle model of docs/mlip-spec.md section 5, on the compiler side (the
// runtime's simulator implements the same formula and the tests check that
// the two agree).
#pragma once

#include <cstdint>
#include <vector>

#include "mlip/region_ir.h"
#include "mlip/target.h"

namespace mlipc::mlip {

struct CommandCost {
  uint64_t compute = 0;
  uint64_t dma = 0;
  bool counted = true;  // BARRIER is free and not counted
};

CommandCost command_cost(const mlip_cmd& c, const TargetInfo& t);

// max over tiles of max(compute, dma) + overhead * commands.
uint64_t layer_cycles(const std::vector<RCommand>& commands, const TargetInfo& t);

}  // namespace mlipc::mlip
