/* RoiAlign ({{mode}}, {{coord}}): x [N, C, H, W], rois [R, 4] (x1, y1, x2, y2),
 * batch_indices [R]; y [R, C, OH, OW]. Each bin pools a grid of bilinear
 * samples: {{#fixed}}{{ratio}} x {{ratio}}{{/fixed}}{{^fixed}}ceil(roi size / output size) per axis{{/fixed}}. The float operations and
 * their order are the reference's (ops/roi_align.cpp). A batch index
 * outside [0, N) or an adaptive grid above {{max_gh}} x {{max_gw}} stops the run
 * before anything is written. */
struct {{fn}}_axis {
  float start, bin, grid;
};

static struct {{fn}}_axis {{fn}}_geometry(float lo, float hi, float out) {
  struct {{fn}}_axis a;
  const float start = lo * {{scale}} - {{offset}};
  const float end = hi * {{scale}} - {{offset}};
  float size = end - start;
{{^half_pixel}}
  size = 1.0f > size ? 1.0f : size;
{{/half_pixel}}
  a.start = start;
  a.bin = size / out;
{{#fixed}}
  a.grid = {{ratio_f}};
{{/fixed}}
{{^fixed}}
  a.grid = ceilf(size / out);
{{/fixed}}
  return a;
}

static float {{fn}}_sample(const struct {{fn}}_axis* a, int32_t b, int32_t s) {
  const float base = a->start + (float)b * a->bin;
  const float step = ((float)s + 0.5f) * a->bin / a->grid;
  return base + step;
}

static int32_t {{fn}}(const float* restrict x, const float* restrict rois, const int64_t* restrict batch,
                      float* restrict y) {
  for (int32_t r = 0; r < {{R}}; ++r) {
    const struct {{fn}}_axis ah = {{fn}}_geometry(rois[r * 4 + 1], rois[r * 4 + 3], {{oh_f}});
    const struct {{fn}}_axis aw = {{fn}}_geometry(rois[r * 4], rois[r * 4 + 2], {{ow_f}});
    if (batch[r] < 0 || batch[r] >= {{N}}) return MLIP_ERR_INVALID_ARG;
    if (!(ah.grid <= {{max_gh_f}}) || !(aw.grid <= {{max_gw_f}})) return MLIP_ERR_INVALID_ARG;
  }
  for (int32_t r = 0; r < {{R}}; ++r) {
    const struct {{fn}}_axis ah = {{fn}}_geometry(rois[r * 4 + 1], rois[r * 4 + 3], {{oh_f}});
    const struct {{fn}}_axis aw = {{fn}}_geometry(rois[r * 4], rois[r * 4 + 2], {{ow_f}});
    const int32_t gh = ah.grid > 0.0f ? (int32_t)ah.grid : 0, gw = aw.grid > 0.0f ? (int32_t)aw.grid : 0;
    const float count = (float)(gh * gw);
    (void)count; /* avg only */
    for (int32_t c = 0; c < {{C}}; ++c) {
      const float* plane = x + ((int32_t)batch[r] * {{C}} + c) * {{HW}};
      float* out = y + (r * {{C}} + c) * {{OHW}};
      for (int32_t ph = 0; ph < {{OH}}; ++ph)
        for (int32_t pw = 0; pw < {{OW}}; ++pw) {
          float acc = 0.0f;
          int first = 1;
          for (int32_t iy = 0; iy < gh; ++iy)
            for (int32_t ix = 0; ix < gw; ++ix) {
              float yy = {{fn}}_sample(&ah, ph, iy), xx = {{fn}}_sample(&aw, pw, ix);
              float val = 0.0f;
              if (yy >= -1.0f && yy <= {{h_f}} && xx >= -1.0f && xx <= {{w_f}}) {
                int32_t y0, x0, y1, x1;
                if (yy < 0.0f) yy = 0.0f;
                if (xx < 0.0f) xx = 0.0f;
                y0 = (int32_t)yy;
                x0 = (int32_t)xx;
                if (y0 >= {{H}} - 1) {
                  y0 = y1 = {{H}} - 1;
                  yy = (float)y0;
                } else {
                  y1 = y0 + 1;
                }
                if (x0 >= {{W}} - 1) {
                  x0 = x1 = {{W}} - 1;
                  xx = (float)x0;
                } else {
                  x1 = x0 + 1;
                }
                {
                  const float ly = yy - (float)y0, lx = xx - (float)x0;
                  const float hy = 1.0f - ly, hx = 1.0f - lx;
                  const float w1 = hy * hx, w2 = hy * lx, w3 = ly * hx, w4 = ly * lx;
                  const float v1 = w1 * plane[y0 * {{W}} + x0], v2 = w2 * plane[y0 * {{W}} + x1];
                  const float v3 = w3 * plane[y1 * {{W}} + x0], v4 = w4 * plane[y1 * {{W}} + x1];
{{#max}}
                  val = v1;
                  if (v2 > val) val = v2;
                  if (v3 > val) val = v3;
                  if (v4 > val) val = v4;
{{/max}}
{{^max}}
                  val = v1 + v2 + v3 + v4;
{{/max}}
                }
              }
{{#max}}
              if (first || val > acc) acc = val;
{{/max}}
{{^max}}
              acc = acc + val;
{{/max}}
              first = 0;
            }
          (void)first;
{{#max}}
          out[ph * {{OW}} + pw] = acc;
{{/max}}
{{^max}}
          out[ph * {{OW}} + pw] = gh > 0 && gw > 0 ? acc / count : 0.0f;
{{/max}}
        }
    }
  }
  return 0;
}
