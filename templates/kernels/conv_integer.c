/* ConvInteger / QLinearConv: x [N, C, ID, IH, IW], w [M, C/group, KD, KH,
 * KW], y [N, M, OD, OH, OW] (1-D and 2-D have size-1 leading axes). Each
 * output sums (x - zx) * (w - zw[m]) over the taps inside x in int32
 * (padding holds the zero point, a real 0, so its taps are skipped; the
 * compiler bounds the taps so no sum overflows). QLinearConv adds the
 * int32 bias (saturating), requantizes with the channel's baked (q, shift)
 * (mlip/requant.h), adds zy and saturates. */
{{#wide}}
/* 16x8 (int16 x or y, int8 w): the sum and the bias are int64 (no tap
 * count overflows), requantized by mlip_requantize64. */
{{/wide}}
static void {{fn}}(const {{x_t}}* restrict x, const {{w_t}}* restrict w, {{#has_zx}}const {{x_t}}* restrict zx, {{/has_zx}}{{#has_zw}}const {{w_t}}* restrict zw, {{/has_zw}}{{#qlinear}}const {{y_t}}* restrict zy, {{/qlinear}}{{#has_bias}}const {{b_t}}* restrict bias, {{/has_bias}}{{y_t}}* restrict y) {
{{#qlinear}}
  static const int32_t qm[{{NQ}}] = { {{q_list}} };
  static const int32_t qs[{{NQ}}] = { {{shift_list}} };
  const int32_t zy0 = (int32_t)zy[0];
{{/qlinear}}
  const int32_t zx0 = {{#has_zx}}(int32_t)zx[0]{{/has_zx}}{{^has_zx}}0{{/has_zx}};
  for (int32_t n = 0; n < {{N}}; ++n) {
    for (int32_t m = 0; m < {{M}}; ++m) {
      const {{x_t}}* xg = x + (n * {{C}} + (m / {{OCG}}) * {{ICG}}) * {{ISIZE}};
      const {{w_t}}* wm = w + m * {{WSIZE}};
      const int32_t zwm = {{#has_zw}}(int32_t)zw[{{zw_index}}]{{/has_zw}}{{^has_zw}}0{{/has_zw}};
      {{y_t}}* ym = y + (n * {{M}} + m) * {{OSIZE}};
      for (int32_t od = 0; od < {{OD}}; ++od) {
        for (int32_t oh = 0; oh < {{OH}}; ++oh) {
          for (int32_t ow = 0; ow < {{OW}}; ++ow) {
            {{acc_t}} acc = 0;
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
                    acc += ((int32_t)xg[((ic * {{ID}} + id) * {{IH}} + ih) * {{IW}} + iw] - zx0) *
                           ((int32_t)wm[((ic * {{KD}} + kd) * {{KH}} + kh) * {{KW}} + kw] - zwm);
                  }
                }
              }
            }
{{#qlinear}}
{{#has_bias}}
{{#wide}}
            acc += bias[m];
{{/wide}}
{{^wide}}
            acc = mlip_add_sat_i32(acc, bias[m]);
{{/wide}}
{{/has_bias}}
            ym[(od * {{OH}} + oh) * {{OW}} + ow] = ({{y_t}}){{requant_fn}}(acc, qm[{{q_index}}], qs[{{q_index}}], zy0, {{LO}}, {{HI}});
{{/qlinear}}
{{^qlinear}}
            ym[(od * {{OH}} + oh) * {{OW}} + ow] = acc;
{{/qlinear}}
          }
        }
      }
    }
  }
}
