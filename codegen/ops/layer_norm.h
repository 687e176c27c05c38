// LayerNormalization's view of its input: rows = the axes before `axis`,
// n = the normalized axes from `axis` on; Scale and B repeat along the row
// every scale_n / bias_n elements (their shapes, leading 1s aside, must be
// the normalized shape's trailing dimensions).
#pragma once

#include "ir/attrs.h"
#include "ir/tensor_data.h"

namespace mlipc::ops {

struct LayerNormDims {
  int64_t rows = 1, n = 1, scale_n = 1, bias_n = 1;
  Shape stats;  // shape of Mean and InvStdDev: [d0, ..., d(axis-1), 1, ..., 1]
};

// bias is nullptr when B is omitted.
LayerNormDims layer_norm_dims(const Attrs& attrs, const Shape& x, const Shape& scale, const Shape* bias);

}  // namespace mlipc::ops
