// A region output's NHWC -> NCHW transposition (a CONVERT_OUT layer) folded
// into the passes of the layer that writes the tensor: each of that layer's
// DMA_OUTs of the tensor becomes a LAYOUT of the block it holds in OCM and a
// DMA_OUT of the transposed block straight into the output binding, so the
// tensor makes no round trip through DDR scratch (docs/mlip-spec.md,
// "Region borders").
#pragma once

#include <vector>

#include "mlip/plan.h"

namespace mlipc::mlip {

// Folds every CONVERT_OUT of an int8 region whose input one layer writes and
// no other layer reads, when each of that writer's DMA_OUTs of it is a block
// of consecutive positions of one image (all channels, or a run of them),
// the transposed block fits the OCM working area after the writer's own
// buffers, and the cycle model says the folded form is faster than the two
// layers. The CONVERT_OUT layer then keeps no command but its barrier.
// `plans` are the region's layer plans (pinning applied).
void fold_border_transposes(const PlanContext& ctx, std::vector<LayerPlan>& plans);

}  // namespace mlipc::mlip
