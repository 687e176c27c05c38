// Transpose's canonical permutation, shared by the shape rule, the reference
// kernel and the C kernel.
#pragma once

#include <vector>

#include "ir/attrs.h"

namespace mlipc::ops {

// The `perm` attribute checked against `rank`, or the reversed axes when it
// is absent (the ONNX default).
std::vector<int> transpose_perm(const Attrs& attrs, int rank);

}  // namespace mlipc::ops
