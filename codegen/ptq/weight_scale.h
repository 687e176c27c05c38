// Post-training quantization's weights (ptq/insert_qdq.cpp): per output
// channel, symmetric int8 or int4 (--weight-bits 4: per channel, or in
// blocks along K with power-of-two sub-scales for a dense layer), and the
// bias-safe rule that raises a channel's scale when its bias would not fit
// the int32 accumulator at x_scale * w_scale (docs/user-guide.md,
// "Quantization", "Bias-safe weight scales" and "4-bit weights").
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

// int4 weights are symmetric in [-7, 7] (as int8's in [-127, 127]: no -8,
// so that the grid is symmetric and max |w| / 7 its step).
inline constexpr int kInt4Max = 7;
// A block's power-of-two sub-scale exponent is at most 4: its values q * 2^e
// stay within [-112, 112], inside int8, so the int8 kernels, their overflow
// bounds and the requantization are unchanged.
inline constexpr int kMaxBlockExponent = 4;
// The step of a block-wise channel: max |w| / 112, the finest grid whose
// largest block (exponent 4) still reaches max |w| with q = 7.
inline constexpr int kBlockQMax = kInt4Max << kMaxBlockExponent;

// The weight scales of `count` channels: max |w| / qmax of each (qmax 127
// for int8; 7 for int4 per channel, 112 for int4 blocks; 1 for a channel of
// zeros or of non-finite values), then raised where the bias
// needs it: a channel c whose bias entries (bias[c], and bias[c + count]
// ... when the bias is longer: ConvTranspose's groups) would exceed
// kBiasBudget steps of x_scale * w_scale[c] gets the smallest float scale at
// which they do not. `bias` may be empty (no bias). `raised` gets the
// channels whose scale was raised, in order.
std::vector<float> weight_scales(const std::vector<float>& amax, const std::vector<double>& bias, float x_scale,
                                 std::vector<int64_t>* raised, int qmax = 127);

// A weight tensor's elements around its channel axis: `outer` before it,
// `count` channels, `inner` after it. Channel c's K = outer * inner values,
// in order, are t = o * inner + i (a Conv's row [C / group, k...], a dense
// layer's column of K): the order 4-bit blocks and weight rounding
// (weight_rounding.h) walk.
struct ChannelLayout {
  int64_t count = 1, inner = 1, outer = 1;
  ChannelLayout(const Shape& s, int axis);
  int64_t k() const { return outer * inner; }
  int64_t at(int64_t o, int64_t c, int64_t i) const { return (o * count + c) * inner + i; }
  // Channel c's value t (t in [0, k())).
  int64_t of(int64_t c, int64_t t) const { return at(t / inner, c, t % inner); }
};

// A 4-bit block's sub-scale exponent at the channel's scale s: the smallest
// e in [0, kMaxBlockExponent] with amax <= 7 * s * 2^e (the largest when
// none is).
int block_exponent(float amax, float s);

// Per output channel along `axis`, symmetric: each channel's max |w|.
std::vector<float> channel_amax(const TensorData& w, int axis);

// w quantized per channel along `axis` at `scale` (one per channel): values
// rounded half to even as QuantizeLinear does, saturated to [-qmax, qmax].
TensorData quantize_weight(const TensorData& w, int axis, const std::vector<float>& scale, int qmax = 127);

// int4 in blocks (a dense layer's weights, --weight-block-size): along the
// non-channel axes of w (K, flattened in order), `block` values at a time,
// each channel c's block b gets the sub-scale scale[c] * 2^e, e the smallest
// in [0, 4] with max |w of the block| <= 7 * scale[c] * 2^e (4 when none
// is), and its values q = round half to even (w / (scale[c] * 2^e)) in
// [-7, 7]. The result is int8 at the channel's scale: q * 2^e, exactly the
// dequantized weights over scale[c] (a per-channel int8 DequantizeLinear
// states them, and fold_qdq, the kernels and the MLIP read them as int8);
// the 4-bit packing (c/kernels: nibbles q and e) recovers q and e from it.
TensorData quantize_weight_blocks(const TensorData& w, int axis, const std::vector<float>& scale, int64_t block);

}  // namespace mlipc::ptq
