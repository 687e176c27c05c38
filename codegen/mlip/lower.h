// Region body (IR, NCHW) -> MLIP layers (NHWC, OHWI, fp16 weights):
// composites (conv/fc/add with their activation, flatten absorbed by the
// dense weights), and a convert layer at every region border.
#pragma once

#include <string>
#include <vector>

#include "ir/graph.h"
#include "mlip/region_ir.h"

namespace mlipc::mlip {

struct ConstInfo {
  std::string name;
  std::vector<int64_t> shape;  // in the layout the MLIP uses (OHWI, [out][in])
  std::vector<float> values;
};

struct LoweredRegion {
  std::string name;
  std::vector<RTensor> tensors;
  std::vector<RLayer> layers;
  std::vector<uint8_t> weights;   // the WEIGHTS section
  std::vector<int> inputs, outputs;  // planar tensors, binding order
  std::vector<ConstInfo> consts;  // for consts-JSON
};

// Throws Error naming the node for anything the partitioner should not
// have let through.
LoweredRegion lower_region(const Graph& body, const std::string& name);

// Offsets of the scratch tensors (alignment 128, the memory planner's
// hill climb over the layer schedule); returns the scratch size.
uint32_t plan_scratch(LoweredRegion& r);

}  // namespace mlipc::mlip
