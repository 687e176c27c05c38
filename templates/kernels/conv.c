/* Conv: x [N, C, ID, IH, IW], w [M, C/group, KD, KH, KW], y [N, M, OD, OH, OW]
 * (1-D and 2-D have size-1 leading axes). For each output: sum over the
 * group's input channels, then kd, kh, kw, skipping padding taps; then bias
 * and activation. */
static void {{fn}}(const float* x, const float* w, {{#has_bias}}const float* b, {{/has_bias}}float* y) {
  for (int32_t n = 0; n < {{N}}; ++n) {
    for (int32_t m = 0; m < {{M}}; ++m) {
      const float* xg = x + (n * {{C}} + (m / {{OCG}}) * {{ICG}}) * {{ISIZE}};
      const float* wm = w + m * {{WSIZE}};
      float* ym = y + (n * {{M}} + m) * {{OSIZE}};
      for (int32_t od = 0; od < {{OD}}; ++od) {
        for (int32_t oh = 0; oh < {{OH}}; ++oh) {
          for (int32_t ow = 0; ow < {{OW}}; ++ow) {
            float sum = 0.0f;
            float v;
            for (int32_t ic = 0; ic < {{ICG}}; ++ic) {
              for (int32_t kd = 0; kd < {{KD}}; ++kd) {
                const int32_t id = od * {{SD}} - {{PD}} + kd * {{DD}};
                if (id < 0 || id >= {{ID}}) continue;
                for (int32_t kh = 0; kh < {{KH}}; ++kh) {
                  const int32_t ih = oh * {{SH}} - {{PH}} + kh * {{DH}};
                  if (ih < 0 || ih >= {{IH}}) continue;
                  for (int32_t kw = 0; kw < {{KW}}; ++kw) {
                    const int32_t iw = ow * {{SW}} - {{PW}} + kw * {{DW}};
                    if (iw < 0 || iw >= {{IW}}) continue;
                    sum += xg[((ic * {{ID}} + id) * {{IH}} + ih) * {{IW}} + iw] *
                           wm[((ic * {{KD}} + kd) * {{KH}} + kh) * {{KW}} + kw];
                  }
                }
              }
            }
            v = sum{{#has_bias}} + b[m]{{/has_bias}};
            {{act}}
            ym[(od * {{OH}} + oh) * {{OW}} + ow] = v;
          }
        }
      }
    }
  }
}
