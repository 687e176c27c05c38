/* Conv: x [N, C, ID, IH, IW], w [M, C/group, KD, KH, KW], y [N, M, OD, OH, OW]
 * (1-D and 2-D have size-1 leading axes). Output planes are accumulated in
 * y, MB channels of one group at a time: for every tap (ic, kd, kh, kw), in
 * that order, the tap's products are added (one rounding: mlip_fmaf) to the
 * outputs whose input
 * position lies inside x (padding taps add nothing). Every output thus sums
 * the same products in the same order as the reference kernel
 * (bit-identical), while the inner loop runs along an output row, reading
 * each input once for the MB channels. Then bias, residual r (a tensor of
 * y's shape, passes/fuse_residual) and activation. */
static void {{fn}}(const float* restrict x, const float* restrict w, {{#has_bias}}const float* restrict b, {{/has_bias}}{{#has_res}}const float* restrict r, {{/has_res}}float* restrict y) {
  for (int32_t n = 0; n < {{N}}; ++n) {
    for (int32_t m0 = 0; m0 < {{M}}; m0 += {{MB}}) {
      const float* xg = x + (n * {{C}} + (m0 / {{OCG}}) * {{ICG}}) * {{ISIZE}};
      const float* wm = w + m0 * {{WSIZE}};
      float* ym = y + (n * {{M}} + m0) * {{OSIZE}};
      for (int32_t o = 0; o < {{MOSIZE}}; ++o) ym[o] = 0.0f;
      for (int32_t ic = 0; ic < {{ICG}}; ++ic) {
        for (int32_t kd = 0; kd < {{KD}}; ++kd) {
          for (int32_t kh = 0; kh < {{KH}}; ++kh) {
            for (int32_t kw = 0; kw < {{KW}}; ++kw) {
              const int32_t tap = ((ic * {{KD}} + kd) * {{KH}} + kh) * {{KW}} + kw;
              const int32_t col = kw * {{DW}} - {{PW}};  /* input column of output column 0 */
              const int32_t row = kh * {{DH}} - {{PH}};  /* input row of output row 0 */
              int32_t ow0 = 0, ow1 = {{OW}}, oh0 = 0, oh1 = {{OH}};
              float wv[{{MB}}];
              for (int32_t q = 0; q < {{MB}}; ++q) wv[q] = wm[q * {{WSIZE}} + tap];
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
                  for (int32_t i = 0; i < len; ++i) {
                    const float xv = xr[i];
                    for (int32_t q = 0; q < {{MB}}; ++q) yr[q * {{OSIZE}} + i] = mlip_fmaf(xv, wv[q], yr[q * {{OSIZE}} + i]);
                  }
                  continue;
                }
                for (int32_t oh = oh0; oh < oh1; ++oh) {
                  const float* xr = xp + (oh * {{SH}} + row) * {{IW}} + col;
                  float* yr = yp + oh * {{OW}};
                  for (int32_t ow = ow0; ow < ow1; ++ow) {
                    const float xv = xr[ow * {{SW}}];
                    for (int32_t q = 0; q < {{MB}}; ++q) yr[q * {{OSIZE}} + ow] = mlip_fmaf(xv, wv[q], yr[q * {{OSIZE}} + ow]);
                  }
                }
              }
            }
          }
        }
      }
      for (int32_t q = 0; q < {{MB}}; ++q) {
        for (int32_t o = 0; o < {{OSIZE}}; ++o) {
          float v = ym[q * {{OSIZE}} + o]{{#has_bias}} + b[m0 + q]{{/has_bias}};
{{#has_res}}          v += r[(n * {{M}} + m0 + q) * {{OSIZE}} + o];
{{/has_res}}          {{act}}
          ym[q * {{OSIZE}} + o] = v;
        }
      }
    }
  }
}
