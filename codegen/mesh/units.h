// The whole model's schedule as units, what the partitioner cuts
// (pe_partition.h): each MLIP layer of each region and each CPU layer, in
// schedule order, with the ONNX nodes it stands for, its estimated cycles,
// its weights and working bytes, and what a cut after it costs (the tensors
// that cross, their border conversions) or whether it may end a stage at
// all (docs/mesh.md, "Compile").
#pragma once

#include <string>
#include <vector>

#include "driver/compile.h"
#include "mesh/pe_partition.h"
#include "mlip/target.h"

namespace mlipc::mesh {

// A unit of the whole model's schedule (an MLIP layer or a CPU layer) and
// the ONNX nodes it stands for.
struct UnitInfo {
  Unit unit;
  bool mlip = false;
  std::vector<std::string> origins;
};

struct Model {
  const Graph* pre = nullptr;        // after the target-independent passes
  std::vector<UnitInfo> units;
  std::vector<int> node_unit;        // per node of *pre, -1: no layer of its own
};

// The units of `whole` (prepared compiled for the target, on `tiles` tiles
// of `t`), their costs and cuts, and the unit of each node of
// prepared.graph (by the ONNX nodes it stands for). Throws when the model
// has no layer.
Model make_model(const driver::CompileResult& prepared, const driver::CompileResult& whole, const mlip::TargetInfo& t,
                 int tiles);

}  // namespace mlipc::mesh
