/* mlipc.QLinearConvTranspose: x [N, C, ID, IH, IW], w [C, M/group, KD, KH,
 * KW], y [N, M, OD, OH, OW] (1-D and 2-D have size-1 leading axes). Output
 * channel m of group m / OCG reads weight column j = m % OCG. Each output
 * sums (x - zx) * (w - zw[j]) in int32 over the input channels of its
 * group and the taps (kd, kh, kw) whose input position (o + P - k * D) / S
 * is whole and inside x on every axis: the products the float kernel adds
 * to it (the compiler bounds their count, so no sum overflows). Then the
 * int32 bias (saturating), the channel's baked (q, shift)
 * (mlip/requant.h), zy and saturation to [LO, HI]. */
static int32_t {{fn}}_src(int32_t o, int32_t k, int32_t p, int32_t d, int32_t s, int32_t in) {
  const int32_t v = o + p - k * d;
  return v < 0 || v % s != 0 || v / s >= in ? -1 : v / s;
}

static void {{fn}}(const {{x_t}}* restrict x, const {{w_t}}* restrict w, {{#has_zx}}const {{x_t}}* restrict zx, {{/has_zx}}{{#has_zw}}const {{w_t}}* restrict zw, {{/has_zw}}const {{y_t}}* restrict zy, {{#has_bias}}const int32_t* restrict bias, {{/has_bias}}{{y_t}}* restrict y) {
  static const int32_t qm[{{NQ}}] = { {{q_list}} };
  static const int32_t qs[{{NQ}}] = { {{shift_list}} };
  const int32_t zy0 = (int32_t)zy[0];
  const int32_t zx0 = {{#has_zx}}(int32_t)zx[0]{{/has_zx}}{{^has_zx}}0{{/has_zx}};
  for (int32_t n = 0; n < {{N}}; ++n) {
    for (int32_t m = 0; m < {{M}}; ++m) {
      const int32_t grp = m / {{OCG}}, j = m % {{OCG}};
      const int32_t zwj = {{#has_zw}}(int32_t)zw[{{zw_index}}]{{/has_zw}}{{^has_zw}}0{{/has_zw}};
      {{y_t}}* ym = y + (n * {{M}} + m) * {{OSIZE}};
      for (int32_t od = 0; od < {{OD}}; ++od) {
        for (int32_t oh = 0; oh < {{OH}}; ++oh) {
          for (int32_t ow = 0; ow < {{OW}}; ++ow) {
            int32_t acc = 0;
            for (int32_t ic = 0; ic < {{ICG}}; ++ic) {
              const int32_t cin = grp * {{ICG}} + ic;
              const {{x_t}}* xc = x + (n * {{C}} + cin) * {{ISIZE}};
              const {{w_t}}* wc = w + (cin * {{OCG}} + j) * {{KSIZE}};
              for (int32_t kd = 0; kd < {{KD}}; ++kd) {
                const int32_t id = {{fn}}_src(od, kd, {{PD}}, {{DD}}, {{SD}}, {{ID}});
                if (id < 0) continue;
                for (int32_t kh = 0; kh < {{KH}}; ++kh) {
                  const int32_t ih = {{fn}}_src(oh, kh, {{PH}}, {{DH}}, {{SH}}, {{IH}});
                  if (ih < 0) continue;
                  for (int32_t kw = 0; kw < {{KW}}; ++kw) {
                    const int32_t iw = {{fn}}_src(ow, kw, {{PW}}, {{DW}}, {{SW}}, {{IW}});
                    if (iw < 0) continue;
                    acc += ((int32_t)xc[(id * {{IH}} + ih) * {{IW}} + iw] - zx0) *
                           ((int32_t)wc[(kd * {{KH}} + kh) * {{KW}} + kw] - zwj);
                  }
                }
              }
            }
{{#has_bias}}
            acc = mlip_add_sat_i32(acc, bias[m]);
{{/has_bias}}
            ym[(od * {{OH}} + oh) * {{OW}} + ow] = ({{y_t}})mlip_requantize(acc, qm[{{q_index}}], qs[{{q_index}}], zy0, {{LO}}, {{HI}});
          }
        }
      }
    }
  }
}
