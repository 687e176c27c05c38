#include "ops/quant.h"

#include <algorithm>
#include <cmath>
#include <cstring>

#include "mlip/requant.h"
#include "support/error.h"

namespace mlipc::ops {

bool is_quant_type(DType t) { return t == DType::Int8 || t == DType::UInt8; }
bool is_act_type(DType t) { return is_quant_type(t) || t == DType::Int16; }
int32_t quant_min(DType t) { return t == DType::Int8 ? -128 : t == DType::Int16 ? -32768 : 0; }
int32_t quant_max(DType t) { return t == DType::Int8 ? 127 : t == DType::Int16 ? 32767 : 255; }

int32_t clamp_lo(const Attrs& attrs, DType t) {
  return static_cast<int32_t>(std::max<int64_t>(quant_min(t), attrs.get_int("mlipc_clamp_lo", quant_min(t))));
}
int32_t clamp_hi(const Attrs& attrs, DType t) {
  return static_cast<int32_t>(std::min<int64_t>(quant_max(t), attrs.get_int("mlipc_clamp_hi", quant_max(t))));
}

void expect_quant_type(const InferContext& ctx, int i, std::string_view name) {
  const DType t = ctx.in_dtype(i);
  if (!is_quant_type(t))
    fail("{} is {}; supported quantized types: int8, uint8 (int16, int4 and float8 are not supported)", name,
         dtype_name(t));
}

void expect_same_type(const InferContext& ctx, int zp, std::string_view zp_name, DType want,
                      std::string_view of_name) {
  if (!ctx.has_input(zp)) return;
  if (ctx.in_dtype(zp) != want)
    fail("{} is {} but {} is {}; they must have the same element type", zp_name, dtype_name(ctx.in_dtype(zp)),
         of_name, dtype_name(want));
}

QuantAxis quant_axis(const Shape& x, const Shape& scale, int64_t axis, std::string_view scale_name) {
  QuantAxis q;
  q.inner = numel(x);
  if (scale.size() == 0 || (scale.size() == 1 && scale[0] == 1)) return q;
  if (scale.size() != 1)
    fail("{} has shape {}; it must be a scalar (per tensor) or 1-D (per axis)", scale_name, shape_str(scale));
  const int rank = static_cast<int>(x.size());
  if (axis < -rank || axis >= rank)
    fail("axis {} is out of range for input of rank {} (per-axis {} {})", axis, rank, scale_name, shape_str(scale));
  q.axis = static_cast<int>(axis < 0 ? axis + rank : axis);
  if (scale[0] != x[static_cast<size_t>(q.axis)])
    fail("per-axis {} has {} values but axis {} of the input {} has {}", scale_name, scale[0], q.axis, shape_str(x),
         x[static_cast<size_t>(q.axis)]);
  q.outer = 1;
  for (int d = 0; d < q.axis; ++d) q.outer *= x[static_cast<size_t>(d)];
  q.count = scale[0];
  q.inner = 1;
  for (int d = q.axis + 1; d < rank; ++d) q.inner *= x[static_cast<size_t>(d)];
  return q;
}

void expect_one_value(const Shape& s, std::string_view name) {
  if (numel(s) != 1 || s.size() > 1) fail("{} has shape {}; it must be one value (a scalar or [1])", name, shape_str(s));
}

void check_scale_values(const TensorData& scale, std::string_view name) {
  const float* s = scale.data<float>();
  for (int64_t i = 0; i < scale.numel(); ++i)
    if (!(s[i] > 0.0f) || std::isinf(s[i])) {
      if (scale.numel() == 1) fail("{} is {}; a scale must be positive and finite", name, s[i]);
      fail("{}[{}] is {}; a scale must be positive and finite", name, i, s[i]);
    }
}

void expect_zero_point_shape(const Shape& zp, const Shape& scale, std::string_view zp_name,
                             std::string_view scale_name) {
  if (numel(zp) != numel(scale) || (numel(zp) != 1 && zp != scale))
    fail("{} has shape {} but {} has shape {}; a zero point goes with its scale", zp_name, shape_str(zp), scale_name,
         shape_str(scale));
}

int32_t quantize_value(float x, float scale, int32_t zero_point, int32_t lo, int32_t hi) {
  const float zp = static_cast<float>(zero_point);
  float v = std::rint(x / scale) + zp;  // default rounding mode: half to even
  if (v != v) v = zp;
  v = v < static_cast<float>(lo) ? static_cast<float>(lo) : v;
  v = v > static_cast<float>(hi) ? static_cast<float>(hi) : v;
  return static_cast<int32_t>(v);
}

int32_t f32_bits(float f) {
  int32_t b = 0;
  std::memcpy(&b, &f, sizeof b);
  return b;
}

RequantMode requant_mode(const Attrs& attrs) {
  return attrs.get_int(kRequantAttr, 0) == 1 ? RequantMode::Ort : RequantMode::Fixed;
}

Requant requant_f32(float scale) {
  if (!(scale > 0.0f) || !std::isfinite(scale)) fail("the requantization scale {} is not positive and finite", scale);
  Requant r;
  r.q = f32_bits(scale);
  r.shift = MLIP_REQUANT_F32;
  return r;
}

AddF32 add_f32(float a_scale, int32_t a_zp, float b_scale, int32_t b_zp, float y_scale, int32_t y_zp) {
  AddF32 r;
  r.ra = a_scale / y_scale;
  r.rb = b_scale / y_scale;
  const float za = r.ra * static_cast<float>(a_zp), zb = r.rb * static_cast<float>(b_zp);
  const float sum = za + zb;
  r.offset = static_cast<float>(y_zp) - sum;
  return r;
}

Requant requant_multiplier(float in_scale, float w_scale, float out_scale, RequantMode mode) {
  if (mode == RequantMode::Ort) {
    const float product = in_scale * w_scale;  // rounded to float32 first, as onnxruntime's float expression
    return requant_f32(product / out_scale);
  }
  const double m = static_cast<double>(in_scale) * static_cast<double>(w_scale) / static_cast<double>(out_scale);
  Requant r;
  if (mlip_quantize_multiplier(m, &r.q, &r.shift) != 0)
    fail("the requantization multiplier {} * {} / {} = {} is out of range (it must be below 2^30)", in_scale, w_scale,
         out_scale, m);
  return r;
}

std::vector<int32_t> int32_values(const TensorData& t) {
  if (!dtype_is_integer(t.dtype())) {  // bool, or the error of as_int64
    const std::vector<int64_t> v = t.as_int64();
    return std::vector<int32_t>(v.begin(), v.end());
  }
  // The element pointer read once: through a byte vector, a store into `out`
  // would otherwise reload it every element (this is hot in PTQ).
  std::vector<int32_t> out(static_cast<size_t>(t.numel()));
  visit_numeric(t.dtype(), "integer conversion", [&](auto tag) {
    using T = typename decltype(tag)::type;
    const T* p = t.raw_as<T>();
    std::transform(p, p + out.size(), out.begin(), [](T v) { return static_cast<int32_t>(v); });
  });
  return out;
}

}  // namespace mlipc::ops
