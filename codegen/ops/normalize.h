// The row normalization LayerNormalization and InstanceNormalization share
// (ONNX's LayerNormalization function): x viewed as [rows, n], each row
//   mean = (x[0] + x[1] + ... + x[n-1]) / n           (in index order)
//   var  = (d[0]^2 + d[1]^2 + ... + d[n-1]^2) / n,  d[j] = x[j] - mean
//   inv  = 1 / sqrt(var + epsilon)
//   y[j] = d[j] * inv * scale + bias                   (left to right)
// all in float32. templates/kernels/normalize_rows.c computes the same
// expressions in the same order.
#pragma once

#include <cmath>
#include <cstdint>

namespace mlipc::ops {

// scale(row, j) and bias(row, j) give the factors of element j of a row;
// has_bias = false leaves out the addition. mean_out/inv_out may be null.
// `divide`: (x - mean) / sqrt(var + eps) instead of (x - mean) * (1 /
// sqrt(var + eps)), as the opset-13 decomposition of LayerNormalization
// divides (passes/fuse_layer_norm: LayerNormalization's mlipc_divide).
template <class Scale, class Bias>
void normalize_rows(const float* x, float* y, int64_t rows, int64_t n, float epsilon, Scale&& scale, Bias&& bias,
                    bool has_bias, float* mean_out, float* inv_out, bool divide = false) {
  for (int64_t r = 0; r < rows; ++r) {
    const float* px = x + r * n;
    float* py = y + r * n;
    float sum = 0.0f;
    for (int64_t j = 0; j < n; ++j) sum += px[j];
    const float mean = sum / static_cast<float>(n);
    float sq = 0.0f;
    for (int64_t j = 0; j < n; ++j) {
      const float d = px[j] - mean;
      const float d2 = d * d;
      sq += d2;
    }
    const float var = sq / static_cast<float>(n);
    const float sd = std::sqrt(var + epsilon), inv = 1.0f / sd;
    for (int64_t j = 0; j < n; ++j) {
      const float v = (divide ? (px[j] - mean) / sd : (px[j] - mean) * inv) * scale(r, j);
      py[j] = has_bias ? v + bias(r, j) : v;
    }
    if (mean_out) mean_out[r] = mean;
    if (inv_out) inv_out[r] = inv;
  }
}

}  // namespace mlipc::ops
