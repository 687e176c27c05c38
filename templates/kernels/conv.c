/* Conv: x [N, C, ID, IH, IW], w [M, C/group, KD, KH, KW], y [N, M, OD, OH, OW]
 * (1-D and 2-D have size-1 leading axes). Each output plane is accumulated
 * in y: for every tap (ic, kd, kh, kw), in that order, the tap's products are
 * added to the outputs whose input position lies inside x (padding taps add
 * nothing). Every output thus sums the same products in the same order as
 * the reference kernel (bit-identical), while the inner loop runs along an
 * output row. Then bias and activation. */
static void {{fn}}(const float* restrict x, const float* restrict w, {{#has_bias}}const float* restrict b, {{/has_bias}}float* restrict y) {
  for (int32_t n = 0; n < {{N}}; ++n) {
    for (int32_t m = 0; m < {{M}}; ++m) {
      const float* xg = x + (n * {{C}} + (m / {{OCG}}) * {{ICG}}) * {{ISIZE}};
      const float* wm = w + m * {{WSIZE}};
      float* ym = y + (n * {{M}} + m) * {{OSIZE}};
      for (int32_t o = 0; o < {{OSIZE}}; ++o) ym[o] = 0.0f;
      for (int32_t ic = 0; ic < {{ICG}}; ++ic) {
        for (int32_t kd = 0; kd < {{KD}}; ++kd) {
          for (int32_t kh = 0; kh < {{KH}}; ++kh) {
            for (int32_t kw = 0; kw < {{KW}}; ++kw) {
              const float wv = wm[((ic * {{KD}} + kd) * {{KH}} + kh) * {{KW}} + kw];
              const int32_t col = kw * {{DW}} - {{PW}};  /* input column of output column 0 */
              const int32_t row = kh * {{DH}} - {{PH}};  /* input row of output row 0 */
              int32_t ow0 = 0, ow1 = {{OW}}, oh0 = 0, oh1 = {{OH}};
              while (ow0 < ow1 && ow0 * {{SW}} + col < 0) ++ow0;
              while (ow1 > ow0 && (ow1 - 1) * {{SW}} + col >= {{IW}}) --ow1;
              while (oh0 < oh1 && oh0 * {{SH}} + row < 0) ++oh0;
              while (oh1 > oh0 && (oh1 - 1) * {{SH}} + row >= {{IH}}) --oh1;
              for (int32_t od = 0; od < {{OD}}; ++od) {
                const int32_t id = od * {{SD}} - {{PD}} + kd * {{DD}};
                const float* xp;
                float* yp;
                if (id < 0 || id >= {{ID}}) continue;
                xp = xg + (ic * {{ID}} + id) * {{IH}} * {{IW}};
                yp = ym + od * {{OH}} * {{OW}};
                if ({{SW}} == 1 && {{SH}} == 1 && {{IW}} == {{OW}} && ow0 == 0 && ow1 == {{OW}}) {
                  /* whole rows, same row length in x and y: one contiguous run */
                  const float* xr = xp + (oh0 + row) * {{IW}};
                  float* yr = yp + oh0 * {{OW}};
                  const int32_t len = (oh1 - oh0) * {{OW}};
                  for (int32_t i = 0; i < len; ++i) yr[i] += xr[i] * wv;
                  continue;
                }
                for (int32_t oh = oh0; oh < oh1; ++oh) {
                  const float* xr = xp + (oh * {{SH}} + row) * {{IW}} + col;
                  float* yr = yp + oh * {{OW}};
                  for (int32_t ow = ow0; ow < ow1; ++ow) yr[ow] += xr[ow * {{SW}}] * wv;
                }
              }
            }
          }
        }
      }
      for (int32_t o = 0; o < {{OSIZE}}; ++o) {
        float v = ym[o]{{#has_bias}} + b[m]{{/has_bias}};
        {{act}}
        ym[o] = v;
      }
    }
  }
}
