/* DynamicQuantizeLinear: scale = (max(0, max x) - min(0, min x)) / 255,
 * zero_point = saturate(round(0 - min / scale)), y = saturate(round(x /
 * scale) + zero_point), rounding half to even, all in float as
 * ops::eval_DynamicQuantizeLinear; an all-zero x gives scale 0, zero point 0
 * and y 0. */
static void {{fn}}(const float* restrict x, uint8_t* restrict y, float* restrict y_scale, uint8_t* restrict y_zp) {
  float lo = 0.0f, hi = 0.0f, scale, zp = 0.0f;
  for (int32_t i = 0; i < {{in0_n}}; ++i) {
    lo = x[i] < lo ? x[i] : lo;
    hi = x[i] > hi ? x[i] : hi;
  }
  scale = (hi - lo) / 255.0f;
  if (scale > 0.0f) {
    zp = rintf((0.0f - lo / scale) / 1.0f);
    if (zp != zp) zp = 0.0f;
    zp = zp < 0.0f ? 0.0f : zp;
    zp = zp > 255.0f ? 255.0f : zp;
  }
  for (int32_t i = 0; i < {{in0_n}}; ++i) {
    float v = 0.0f;
    if (scale > 0.0f) {
      v = rintf(x[i] / scale) + zp;
      if (v != v) v = zp;
      v = v < 0.0f ? 0.0f : v;
      v = v > 255.0f ? 255.0f : v;
    }
    y[i] = (uint8_t)v;
  }
  *y_scale = scale;
  *y_zp = (uint8_t)zp;
}
