// Gather's axis rule, shared by the reference and the C kernel.
#pragma once

#include "ir/attrs.h"

namespace mlipc::ops {

// The normalized `axis` attribute (default 0) for data of `rank`; throws
// when out of range or for scalar data.
int gather_axis(const Attrs& attrs, int rank);

}  // namespace mlipc::ops
