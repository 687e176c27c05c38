// LpPool and GlobalLpPool share one kernel: (sum over the window of |x|^p)^(1/p),
// with p = 1 and p = 2 computed exactly (|x| and x * x; the root of p = 2 is
// sqrtf) and other p through mlip_powf, the same expressions in the
// reference and the C template.
#pragma once

#include <cstdint>

#include "ir/attrs.h"
#include "ops/spatial.h"

namespace mlipc::ops {

// The `p` attribute (default 2), checked positive.
int64_t lp_pool_p(const Attrs& attrs);

// LpPool's window (kernel_shape required; strides, pads or auto_pad, and the
// opset-18 dilations and ceil_mode), or GlobalLpPool's single window over
// every spatial axis.
Geometry lp_pool_geometry(const Attrs& attrs, const std::vector<int64_t>& in, bool global);

}  // namespace mlipc::ops
