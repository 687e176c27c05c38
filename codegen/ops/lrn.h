// LRN over channels of x [N, C, D1, ...]: for channel c the window
// c - lo .. c + hi (clipped to [0, C)), lo = floor((size - 1) / 2),
// hi = ceil((size - 1) / 2);
//   sq = x[c-lo]^2 + ... + x[c+hi]^2          (float32, channels ascending)
//   y  = x / pow(bias + (alpha / size) * sq, beta)
// with alpha / size rounded to float32 once. templates/kernels/lrn.c
// computes the same in the same order.
#pragma once

#include "ir/attrs.h"
#include "ir/tensor_data.h"

namespace mlipc::ops {

struct LrnParams {
  int64_t n = 1, c = 1, spatial = 1, lo = 0, hi = 0;
  float alpha_over_size = 0, beta = 0, bias = 0;
};

LrnParams lrn_params(const Attrs& attrs, const Shape& x);

}  // namespace mlipc::ops
