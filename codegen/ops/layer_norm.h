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

// bias is nullptr when B is omitted. x is the normalized tensor's shape
// (layer_norm_rows_shape of the input's).
LayerNormDims layer_norm_dims(const Attrs& attrs, const Shape& x, const Shape& scale, const Shape* bias);

// With mlipc_channels_in = 1 (passes/fuse_transpose_norm) the input is
// [N, C, S...] and the rows are its positions: the shape normalized is
// [N, S..., C]; else the input's own. The output is [N, C, S...] again with
// mlipc_channels_out = 1.
Shape layer_norm_rows_shape(const Attrs& attrs, const Shape& in);
Shape layer_norm_output_shape(const Attrs& attrs, const Shape& in);

}  // namespace mlipc::ops
