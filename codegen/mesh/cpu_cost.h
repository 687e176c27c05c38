// The CPU cost model of a PE (docs/mesh.md, "Cost model"): the Arm core
// beside each PE's MLIP, counted at the cycle model's clock. A node that
// stays on the CPU costs kCyclesPerMac per multiply-accumulate (the
// operators whose table row counts MACs, OpTraits::macs: one scalar fused
// multiply-add per cycle), kCyclesPerElement per element it reads or
// writes otherwise, and kCyclesPerLayer for the call.
#pragma once

#include <cstdint>

#include "ir/graph.h"

namespace mlipc::mesh {

constexpr uint64_t kCyclesPerMac = 1;
constexpr uint64_t kCyclesPerElement = 1;
constexpr uint64_t kCyclesPerLayer = 100;

uint64_t cpu_cycles(const Graph& g, const Node& n);

}  // namespace mlipc::mesh
