// Post-training quantization's weights (ptq/insert_qdq.cpp): per output
// channel, symmetric int8, and the bias-safe rule that raises a channel's
// scale when its bias would not fit the int32 accumulator at x_scale *
// w_scale (docs/user-guide.md, "Quantization", "Bias-safe weight scales").
#pragma once

#include <cstdint>
#include <vector>

#include "ir/tensor_data.h"

namespace mlipc::ptq {

// The largest |bias| in accumulator steps PTQ gives a layer: 2^30, half the
// int32 range. The other half holds the sum of products: with int8 weights
// in [-127, 127] and activations 255 steps wide each product is at most
// 255 * 127 = 32,385 steps, so 2^30 of them hold 33,156 taps per output
// (C * kh * kw of a Conv, K of a Gemm), past every layer PTQ meets; and the
// kernels' running sums (the zero-point term first, mlip/kq8.h) stay below
// |bias| + 2 * 128 * 127 per tap, 33,026 taps.
inline constexpr double kBiasBudget = 1073741824.0;

// The weight scales of `count` channels: max |w| / 127 of each (1 for a
// channel of zeros or of non-finite values), then raised where the bias
// needs it: a channel c whose bias entries (bias[c], and bias[c + count]
// ... when the bias is longer: ConvTranspose's groups) would exceed
// kBiasBudget steps of x_scale * w_scale[c] gets the smallest float scale at
// which they do not. `bias` may be empty (no bias). `raised` gets the
// channels whose scale was raised, in order.
std::vector<float> weight_scales(const std::vector<float>& amax, const std::vector<double>& bias, float x_scale,
                                 std::vector<int64_t>* raised);

// Per output channel along `axis`, symmetric: each channel's max |w|.
std::vector<float> channel_amax(const TensorData& w, int axis);

// w quantized per channel along `axis` at `scale` (one per channel): values
// rounded half to even as QuantizeLinear does, saturated to [-127, 127].
TensorData quantize_weight(const TensorData& w, int axis, const std::vector<float>& scale);

}  // namespace mlipc::ptq
