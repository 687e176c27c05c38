// Concat's canonical axis, shared by the shape rule, the reference kernel and
// the C kernel.
#pragma once

#include "ir/attrs.h"

namespace mlipc::ops {

// The `axis` attribute (required) normalized against `rank`; throws when it
// is missing or out of range.
int concat_axis(const Attrs& attrs, int rank);

}  // namespace mlipc::ops
