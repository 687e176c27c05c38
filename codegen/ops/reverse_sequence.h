// ReverseSequence's geometry, shared by the reference and the C kernel.
#pragma once

#include "ir/graph.h"

namespace mlipc::ops {

struct ReverseSequenceParams {
  int64_t time = 0, batch = 0;   // lengths of the time and batch axes
  int64_t inner = 1;             // elements per (time, batch) position
  int64_t time_stride = 0, batch_stride = 0;
};

ReverseSequenceParams reverse_sequence_params(const Attrs& attrs, const Shape& x);

}  // namespace mlipc::ops
