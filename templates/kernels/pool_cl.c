/* {{op}} with a channel axis stored channels-last (c/layout.h; X* and Y* are
 * the strides, the channels of one position contiguous): x [N, C, D, H, W]
 * -> y [N, C, OD, OH, OW] (1-D and 2-D as size-1 leading axes). The output
 * positions fall into rectangles whose windows keep the same taps inside the
 * input (rect: od, oh, ow ranges and the kd, kh, kw ranges they read), so no
 * loop tests for padding; each position walks its taps in window order with
 * CB channels side by side in the innermost loop: all of them where x is
 * channels-last; where x is row-major (only y channels-last), 16 at a time
 * over the whole output, so each tap reads 16 planes near where the last
 * position read them and each position writes 64 contiguous bytes (all
 * channels at once read a cache line per channel and tap: SqueezeNet's
 * 3x3/2 pool of 128 channels on 55 x 55 took 437 us). A position's values
 * build up in t and go to y once (into a row-major y, one store per
 * channel plane, not one per tap). Per channel that is the
 * reference's arithmetic: {{#max}}the first tap, then every later one that is
 * greater{{#nan}} or a NaN (a NaN wins over any number){{/nan}}{{/max}}{{^max}}the taps summed in order from 0, then divided
 * by their count{{#include_pad}} within the padded extent{{/include_pad}}{{/max}}. */
static void {{fn}}(const {{in0_t}}* restrict x, {{out0_t}}* restrict y) {
  static const int32_t rect[{{NR}}][12] = {{rects}};
  for (int32_t c0 = 0; c0 < {{C}}; c0 += {{CB}}) {
  const int32_t c1 = {{C}} - c0 < {{CB}} ? {{C}} : c0 + {{CB}};
  for (int32_t n = 0; n < {{N}}; ++n) {
    for (int32_t r = 0; r < {{NR}}; ++r) {
      const int32_t* R = rect[r];
      for (int32_t od = R[0]; od < R[1]; ++od) {
        for (int32_t oh = R[4]; oh < R[5]; ++oh) {
          for (int32_t ow = R[8]; ow < R[9]; ++ow) {
            const {{in0_t}}* xp = x + n * {{XN}} + (od * {{SD}} - {{PD}} + R[2] * {{DD}}) * {{XD}} +
                                 (oh * {{SH}} - {{PH}} + R[6] * {{DH}}) * {{XH}} + (ow * {{SW}} - {{PW}} + R[10] * {{DW}}) * {{XW}};
            {{out0_t}}* yp = y + n * {{YN}} + od * {{YD}} + oh * {{YH}} + ow * {{YW}};
            {{out0_t}} t[{{CB}}]; /* the position's values, stored once */
            int32_t c, first = 1;
{{#max}}            for (c = c0; c < c1; ++c) t[c - c0] = {{lowest}};
{{/max}}{{^max}}            for (c = c0; c < c1; ++c) t[c - c0] = 0.0f;
{{/max}}            for (int32_t kd = R[2]; kd < R[3]; ++kd) {
              for (int32_t kh = R[6]; kh < R[7]; ++kh) {
                for (int32_t kw = R[10]; kw < R[11]; ++kw) {
                  const {{in0_t}}* xt = xp + (kd - R[2]) * {{DD}} * {{XD}} + (kh - R[6]) * {{DH}} * {{XH}} + (kw - R[10]) * {{DW}} * {{XW}};
{{#max}}                  if (first) {
                    for (c = c0; c < c1; ++c) t[c - c0] = xt[c * {{XC}}];
                  } else {
                    for (c = c0; c < c1; ++c) {
                      const {{in0_t}} v = xt[c * {{XC}}];
                      t[c - c0] = v > t[c - c0]{{#nan}} || v != v{{/nan}} ? v : t[c - c0];
                    }
                  }
{{/max}}{{^max}}                  for (c = c0; c < c1; ++c) t[c - c0] += xt[c * {{XC}}];
{{/max}}                  first = 0;
                }
              }
            }
{{^max}}            {
{{#include_pad}}              int32_t count = 1;
              int32_t k;
              int32_t in_padded = 0;
              for (k = 0, in_padded = 0; k < {{KD}}; ++k) in_padded += od * {{SD}} - {{PD}} + k * {{DD}} < {{ED}};
              count *= in_padded;
              for (k = 0, in_padded = 0; k < {{KH}}; ++k) in_padded += oh * {{SH}} - {{PH}} + k * {{DH}} < {{EH}};
              count *= in_padded;
              for (k = 0, in_padded = 0; k < {{KW}}; ++k) in_padded += ow * {{SW}} - {{PW}} + k * {{DW}} < {{EW}};
              count *= in_padded;
{{/include_pad}}{{^include_pad}}              const int32_t count = (R[3] - R[2]) * (R[7] - R[6]) * (R[11] - R[10]);
{{/include_pad}}              for (c = c0; c < c1; ++c) t[c - c0] = t[c - c0] / (float)count;
            }
{{/max}}            for (c = c0; c < c1; ++c) yp[c * {{YC}}] = t[c - c0];
            (void)first;
          }
        }
      }
    }
  }
  }
}
