// A MaxPool fused into the Conv that feeds it (passes/fuse_pool): the pool's
// attributes ride on the Conv under the prefix "mlipc_pool.", and the Conv's
// output is the pooled tensor; its own never exists.
#pragma once

#include "ir/attrs.h"
#include "ops/spatial.h"
#include "ir/tensor_data.h"

namespace mlipc::ops {

inline constexpr const char* kFusedPoolPrefix = "mlipc_pool.";

// True when a MaxPool rides on the Conv with these attributes.
bool has_fused_pool(const Attrs& conv);
// The MaxPool's own attributes (kernel_shape, strides, pads, dilations, ceil_mode).
Attrs fused_pool_attrs(const Attrs& conv);
// Puts a MaxPool's attributes on a Conv.
void set_fused_pool(Attrs& conv, const Attrs& pool);
// MaxPool's window over an input of shape `x` (its rules: ceil_mode, pads below the window).
Geometry maxpool_geometry(const Attrs& pool, const Shape& x);

}  // namespace mlipc::ops
