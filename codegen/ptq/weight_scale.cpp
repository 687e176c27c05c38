#include "ptq/weight_scale.h"

#include <algorithm>
#include <cmath>
#include <limits>

#include "ops/quant.h"

namespace mlipc::ptq {

namespace {

// Whether `b` stays within the budget at x_scale * w (the float product
// ops::bias_int32 divides by).
bool fits(double b, float x_scale, float w) {
  return b / static_cast<double>(x_scale * w) <= kBiasBudget;
}

}  // namespace

ChannelLayout::ChannelLayout(const Shape& s, int axis) {
  count = s[static_cast<size_t>(axis)];
  for (size_t d = static_cast<size_t>(axis) + 1; d < s.size(); ++d) inner *= s[d];
  for (size_t d = 0; d < static_cast<size_t>(axis); ++d) outer *= s[d];
}

int block_exponent(float amax, float s) {
  int e = 0;
  while (e < kMaxBlockExponent && !(amax <= static_cast<float>(kInt4Max) * std::ldexp(s, e))) ++e;
  return e;
}

std::vector<float> channel_amax(const TensorData& w, int axis) {
  const TensorData f = w.cast(DType::Float32);
  const ChannelLayout l(f.shape(), axis);
  const float* x = f.data<float>();
  std::vector<float> amax(static_cast<size_t>(l.count), 0.0f);
  for (int64_t c = 0; c < l.count; ++c)
    for (int64_t o = 0; o < l.outer; ++o)
      for (int64_t i = 0; i < l.inner; ++i)
        amax[static_cast<size_t>(c)] = std::max(amax[static_cast<size_t>(c)], std::fabs(x[l.at(o, c, i)]));
  return amax;
}

std::vector<float> weight_scales(const std::vector<float>& amax, const std::vector<double>& bias, float x_scale,
                                 std::vector<int64_t>* raised, int qmax) {
  const size_t m = amax.size();
  std::vector<float> scale(m);
  const float q = static_cast<float>(qmax);
  for (size_t c = 0; c < m; ++c) scale[c] = amax[c] > 0.0f && std::isfinite(amax[c]) ? amax[c] / q : 1.0f;
  if (bias.empty() || m == 0 || !(x_scale > 0.0f)) return scale;
  std::vector<double> bmax(m, 0.0);  // per channel, its largest |bias| (over the groups)
  for (size_t k = 0; k < bias.size(); ++k)
    if (std::isfinite(bias[k])) bmax[k % m] = std::max(bmax[k % m], std::fabs(bias[k]));
  for (size_t c = 0; c < m; ++c) {
    if (fits(bmax[c], x_scale, scale[c])) continue;
    // The scale at which |b| is the budget, then up by float steps until
    // the float product x_scale * w keeps it there.
    float s = static_cast<float>(bmax[c] / (static_cast<double>(x_scale) * kBiasBudget));
    while (!fits(bmax[c], x_scale, s) && std::isfinite(s)) s = std::nextafter(s, std::numeric_limits<float>::infinity());
    scale[c] = s;
    if (raised) raised->push_back(static_cast<int64_t>(c));
  }
  return scale;
}

TensorData quantize_weight(const TensorData& w, int axis, const std::vector<float>& scale, int qmax) {
  const TensorData f = w.cast(DType::Float32);
  const ChannelLayout l(f.shape(), axis);
  const float* x = f.data<float>();
  TensorData q(DType::Int8, f.shape());
  int8_t* out = q.data<int8_t>();
  for (int64_t o = 0; o < l.outer; ++o)
    for (int64_t c = 0; c < l.count; ++c)
      for (int64_t i = 0; i < l.inner; ++i)
        out[l.at(o, c, i)] =
            static_cast<int8_t>(ops::quantize_value(x[l.at(o, c, i)], scale[static_cast<size_t>(c)], 0, -qmax, qmax));
  return q;
}

TensorData quantize_weight_blocks(const TensorData& w, int axis, const std::vector<float>& scale, int64_t block) {
  const TensorData f = w.cast(DType::Float32);
  const ChannelLayout l(f.shape(), axis);
  const float* x = f.data<float>();
  TensorData q(DType::Int8, f.shape());
  int8_t* out = q.data<int8_t>();
  const int64_t k = l.outer * l.inner;  // a channel's values, K in order: (o, i)
  block = std::max<int64_t>(1, block);
  for (int64_t c = 0; c < l.count; ++c) {
    const float s = scale[static_cast<size_t>(c)];
    auto at = [&](int64_t t) { return l.at(t / l.inner, c, t % l.inner); };
    for (int64_t b0 = 0; b0 < k; b0 += block) {
      const int64_t b1 = std::min(k, b0 + block);
      float amax = 0.0f;
      for (int64_t t = b0; t < b1; ++t)
        if (std::isfinite(x[at(t)])) amax = std::max(amax, std::fabs(x[at(t)]));
      const int e = block_exponent(amax, s);
      const float sb = std::ldexp(s, e);  // exact: a power of two times s
      for (int64_t t = b0; t < b1; ++t)
        out[at(t)] = static_cast<int8_t>(ops::quantize_value(x[at(t)], sb, 0, -kInt4Max, kInt4Max) * (1 << e));
    }
  }
  return q;
}

}  // namespace mlipc::ptq
