/* {{mode}} resize of the last two axes of x [P, IH, IW] -> y [P, OH, OW]
 * ({{taps}} taps per axis), one input row at a time: th/ch give each output
 * row's input rows and weights, tw/cw each output column's input columns
 * and weights. resize_interp.c's order, acc = 0, then acc += c * v per tap,
 * the inner (W) sums first; the W sums of an input row are the same for
 * every output row that reads it, so they are computed once per row into a
 * ring of {{taps}} rows (an output row's input rows are {{taps}}
 * consecutive ones or fewer, so they never share a slot; which row a slot
 * holds is kept), and each output row is its rows' sums weighted, a loop
 * over the row the compiler vectorizes (lanes never meet): the same bits. */
static void {{fn}}(const float* restrict x, float* restrict y, void* scratch) {
  static const int32_t th[{{NH}}] = {{th}};
  static const float ch[{{NH}}] = {{ch}};
  static const int32_t tw[{{NW}}] = {{tw}};
  static const float cw[{{NW}}] = {{cw}};
  float* const ring = (float*)scratch; /* [taps][OW] */
  for (int32_t p = 0; p < {{P}}; ++p) {
    const float* xp = x + p * {{IH}} * {{IW}};
    float* yp = y + p * {{OH}} * {{OW}};
    int32_t held[{{taps}}];
    for (int32_t k = 0; k < {{taps}}; ++k) held[k] = -1;
    for (int32_t oh = 0; oh < {{OH}}; ++oh) {
      const float* rows[{{taps}}];
      float* yr = yp + oh * {{OW}};
      for (int32_t u = 0; u < {{taps}}; ++u) {
        const int32_t ih = th[oh * {{taps}} + u];
        float* hr = ring + (ih % {{taps}}) * {{OW}};
        rows[u] = hr;
        if (held[ih % {{taps}}] == ih) continue;
        held[ih % {{taps}}] = ih;
        for (int32_t ow = 0; ow < {{OW}}; ++ow) {
          float acc = 0.0f;
          for (int32_t v = 0; v < {{taps}}; ++v) acc += cw[ow * {{taps}} + v] * xp[ih * {{IW}} + tw[ow * {{taps}} + v]];
          hr[ow] = acc;
        }
      }
      for (int32_t ow = 0; ow < {{OW}}; ++ow) yr[ow] = 0.0f;
      for (int32_t u = 0; u < {{taps}}; ++u) {
        const float c = ch[oh * {{taps}} + u];
        const float* hr = rows[u];
        for (int32_t ow = 0; ow < {{OW}}; ++ow) yr[ow] += c * hr[ow];
      }
    }
  }
}
