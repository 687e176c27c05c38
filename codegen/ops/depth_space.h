// DepthToSpace / SpaceToDepth parameters, shared by the reference and the C kernel.
#pragma once

#include "ir/graph.h"

namespace mlipc::ops {

// The blocksize (> 1 not required; >= 1) after checking the NCHW input
// against it; `crd` is set for DepthToSpace's mode "CRD" (default "DCR").
int64_t depth_space_block(const Attrs& attrs, const Shape& in, bool to_space, bool* crd);

}  // namespace mlipc::ops
