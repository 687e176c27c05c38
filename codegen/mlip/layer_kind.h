// One description per MLIP layer kind: what it is called (reports, nodes-JSON,
// composite), which ONNX operators become it, whether an activation fuses
// into it, and its functions: the support rule (why a node cannot be this
// layer, sized by the planner's own OCM formula), the lowering (ONNX node ->
// RLayer) and the planning (RLayer -> commands). Each kind's description
// and functions live in layers/<kind>.cpp; layers/layer_list.inc lists them.
// The opcodes a kind emits are its planner's; their cycles are the runtime's
// cycle model (mlip/cycle_model.h).
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include <nlohmann/json_fwd.hpp>

#include "ir/graph.h"
#include "mlip/region_ir.h"
#include "mlip/target.h"

namespace mlipc::mlip {

class LowerContext;  // lower.h
class LayerPlanner;  // plan.h

// What a support rule needs to know about the target.
struct SupportLimits {
  const TargetInfo& target;
  uint32_t work_bytes;  // OCM per tile for a layer's working buffers (working_ocm_bytes)
  bool int8 = false;    // -quantize=int8: only the integer operators' int8 layers
};

// "" when `n` can be this layer on the MLIP, otherwise why not (one line,
// without the node's name).
using SupportFn = std::string (*)(const Graph& g, const Node& n, const SupportLimits& limits);
// Appends the layer(s) for `n` to the region (throws Error when it cannot).
using LowerFn = void (*)(LowerContext& ctx, const Node& n);
// Emits one layer's commands: for the split p.split() when the kind has
// candidate splits (LayerKind::splits), otherwise for the split it picks.
using PlanFn = void (*)(LayerPlanner& p);
// The splits the planner compares by the cycle model for a layer with this
// output, in order (the first wins a tie).
using SplitsFn = std::vector<Split> (*)(const RTensor& out);
// Adds the kind's own attributes to the layer's nodes-JSON "attrs".
using JsonFn = void (*)(const RLayer& l, nlohmann::json& attrs);

struct LayerKind {
  uint32_t kind;                      // MLIP_LAYER_* (include/mlip/cmdbuf.h)
  const char* name;                   // "conv2d": metadata.json, inspect, run --profile
  const char* json_name;              // nodes-JSON layer_name ("Conv2D"), as TVM's Marvell integration
  const char* composite;              // nodes-JSON composite_name ("mrvl.conv2d_nhwc2nhwc")
  std::vector<std::string> onnx_ops;  // ONNX operators lowered into it; none for kinds the backend
                                      // makes itself (region borders, weight loading)
  bool fuses_activation;              // a following activation rides on it (activation.h)
  SupportFn support;                  // required when onnx_ops is not empty
  LowerFn lower;                      // idem
  PlanFn plan;                        // null only for LOAD_WEIGHTS (the backend's INIT section)
  SplitsFn splits;                    // null: the plan function picks its split itself
  JsonFn json;                        // may be null
};

// Every kind, in MLIP_LAYER_* order.
const std::vector<const LayerKind*>& layer_kinds();
// The description of a kind; throws Error for an unknown one.
const LayerKind& layer_kind(uint32_t kind);
// The kind an ONNX operator is lowered into, or nullptr.
const LayerKind* layer_kind_for_op(const std::string& op);

}  // namespace mlipc::mlip
