/* GridSample ({{mode}}, padding {{padding}}, align_corners {{align_n}}): x [N, C, H, W],
 * grid [N, HO, WO, 2] holding (x, y) in [-1, 1]; y [N, C, HO, WO]. The
 * operations and their order are the reference's (ops/grid_sample.cpp):
 * denormalize, {{#nearest}}round half to even, {{/nearest}}apply the padding rule to the coordinate, then
 * read the taps, a tap outside the image by the padding rule. */
{{#reflection}}
static float {{fn}}_reflect(float v, float lo, float hi) {
  const float range = hi - lo;
  if (!(range > 0.0f)) return lo;
  if (v < lo) {
    const float dx = lo - v;
    const float k = truncf(dx / range);
    const float r = dx - k * range;
    return fmodf(k, 2.0f) == 0.0f ? lo + r : hi - r;
  }
  if (v > hi) {
    const float dx = v - hi;
    const float k = truncf(dx / range);
    const float r = dx - k * range;
    return fmodf(k, 2.0f) == 0.0f ? hi - r : lo + r;
  }
  return v;
}
{{/reflection}}

/* The coordinate after the padding rule, in a range whose taps are small
 * integers (a NaN included). */
static float {{fn}}_pad(float v, int32_t d, float lo, float hi) {
{{#zeros}}
  const float far = (float)d + 3.0f;
  (void)lo;
  (void)hi;
  return v >= -4.0f ? (v <= far ? v : far) : -4.0f;
{{/zeros}}
{{^zeros}}
  if (v < lo || v > hi) {
{{#border}}
    (void)d;
    v = v < 0.0f ? 0.0f : (v > (float)(d - 1) ? (float)(d - 1) : v);
{{/border}}
{{#reflection}}
    (void)d;
    v = {{fn}}_reflect(v, lo, hi);
{{/reflection}}
  }
  return v >= lo ? (v <= hi ? v : hi) : lo;
{{/zeros}}
}

/* The pixel index tap i reads, or -1 for a zero. */
static int32_t {{fn}}_index(int32_t i, int32_t d, float lo, float hi) {
{{#zeros}}
  (void)lo;
  (void)hi;
  return i >= 0 && i < d ? i : -1;
{{/zeros}}
{{^zeros}}
{{#reflection}}
  i = (int32_t){{fn}}_reflect((float)i, lo, hi);
{{/reflection}}
{{^reflection}}
  (void)lo;
  (void)hi;
{{/reflection}}
  return i < 0 ? 0 : (i >= d ? d - 1 : i);
{{/zeros}}
}

static float {{fn}}_pixel(const float* plane, int32_t i, int32_t j) {
  const int32_t r = {{fn}}_index(i, {{H}}, {{ylo}}, {{yhi}}), q = {{fn}}_index(j, {{W}}, {{xlo}}, {{xhi}});
  return r < 0 || q < 0 ? 0.0f : plane[r * {{W}} + q];
}
{{#bicubic}}

static void {{fn}}_cubic(float t, float* c) {
  const float a = -0.75f;
  c[0] = ((a * (t + 1.0f) - 5.0f * a) * (t + 1.0f) + 8.0f * a) * (t + 1.0f) - 4.0f * a;
  c[1] = ((a + 2.0f) * t - (a + 3.0f)) * t * t + 1.0f;
  c[2] = ((a + 2.0f) * (1.0f - t) - (a + 3.0f)) * (1.0f - t) * (1.0f - t) + 1.0f;
  c[3] = ((a * (2.0f - t) - 5.0f * a) * (2.0f - t) + 8.0f * a) * (2.0f - t) - 4.0f * a;
}
{{/bicubic}}

static void {{fn}}(const float* restrict x, const float* restrict grid, float* restrict y) {
  for (int32_t n = 0; n < {{N}}; ++n)
    for (int32_t p = 0; p < {{P}}; ++p) {
      const float* g = grid + (n * {{P}} + p) * 2;
{{#align}}
      float fx = (g[0] + 1.0f) / 2.0f * {{wm1}};
      float fy = (g[1] + 1.0f) / 2.0f * {{hm1}};
{{/align}}
{{^align}}
      float fx = ((g[0] + 1.0f) * {{wf}} - 1.0f) / 2.0f;
      float fy = ((g[1] + 1.0f) * {{hf}} - 1.0f) / 2.0f;
{{/align}}
{{#nearest}}
      fx = rintf(fx);
      fy = rintf(fy);
{{/nearest}}
      fx = {{fn}}_pad(fx, {{W}}, {{xlo}}, {{xhi}});
      fy = {{fn}}_pad(fy, {{H}}, {{ylo}}, {{yhi}});
      {
{{#nearest}}
        const int32_t i = (int32_t)fy, j = (int32_t)fx;
{{/nearest}}
{{^nearest}}
        const float x0 = floorf(fx), y0 = floorf(fy);
        const int32_t i = (int32_t)y0, j = (int32_t)x0;
{{/nearest}}
{{#bilinear}}
        const float tx = fx - x0, ty = fy - y0;
        const float cx0 = 1.0f - tx, cy0 = 1.0f - ty;
{{/bilinear}}
{{#bicubic}}
        float cx[4], cy[4];
        {{fn}}_cubic(fx - x0, cx);
        {{fn}}_cubic(fy - y0, cy);
{{/bicubic}}
        for (int32_t c = 0; c < {{C}}; ++c) {
          const float* plane = x + (n * {{C}} + c) * {{HW}};
          float v;
{{#nearest}}
          v = {{fn}}_pixel(plane, i, j);
{{/nearest}}
{{#bilinear}}
          {
            const float r0 = cx0 * {{fn}}_pixel(plane, i, j) + tx * {{fn}}_pixel(plane, i, j + 1);
            const float r1 = cx0 * {{fn}}_pixel(plane, i + 1, j) + tx * {{fn}}_pixel(plane, i + 1, j + 1);
            v = cy0 * r0 + ty * r1;
          }
{{/bilinear}}
{{#bicubic}}
          {
            float r[4];
            for (int32_t k = 0; k < 4; ++k)
              r[k] = cx[0] * {{fn}}_pixel(plane, i - 1 + k, j - 1) + cx[1] * {{fn}}_pixel(plane, i - 1 + k, j) +
                     cx[2] * {{fn}}_pixel(plane, i - 1 + k, j + 1) + cx[3] * {{fn}}_pixel(plane, i - 1 + k, j + 2);
            v = cy[0] * r[0] + cy[1] * r[1] + cy[2] * r[2] + cy[3] * r[3];
          }
{{/bicubic}}
          y[(n * {{C}} + c) * {{P}} + p] = v;
        }
      }
    }
}
