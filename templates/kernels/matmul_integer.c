/* MatMulInteger / QLinearMatMul: y[batch] = (a[batch] - za) [M, K] x
 * (b[batch] - zb) [K, N], products of int8/uint8 values minus their zero
 * points (one value, per row of A or per column of B) summed in int32 (the
 * compiler bounds K so no sum overflows; integer sums are exact in any
 * order); QLinearMatMul's 16x8 form (int16 on a side) in int64, requantized
 * by mlip_requantize64. Loop d walks the (simplified) broadcast batch axis d; a<d>, b<d>
 * are the operand matrices' offsets. QLinearMatMul requantizes each sum
 * with its baked (q, shift) (mlip/requant.h), adds zy and saturates. */
static void {{fn}}(const {{a_t}}* restrict a, const {{b_t}}* restrict b, {{#has_za}}const {{a_t}}* restrict za, {{/has_za}}{{#has_zb}}const {{b_t}}* restrict zb, {{/has_zb}}{{#qlinear}}const {{y_t}}* restrict zy, {{/qlinear}}{{y_t}}* restrict y) {
{{#qlinear}}
  static const int32_t qm[{{NQ}}] = { {{q_list}} };
  static const int32_t qs[{{NQ}}] = { {{shift_list}} };
  const int32_t zy0 = (int32_t)zy[0];
{{/qlinear}}
  {{y_t}}* yr = y;
  const int32_t a0 = 0;
  const int32_t b0 = 0;
{{#loops}}  for (int32_t i{{d}} = 0; i{{d}} < {{dim}}; ++i{{d}}) {
    const int32_t a{{d}} = {{a_off}};
    const int32_t b{{d}} = {{b_off}};
{{/loops}}  {
    const {{a_t}}* pa = a + a{{r}};
    const {{b_t}}* pb = b + b{{r}};
    for (int32_t i = 0; i < {{M}}; ++i, yr += {{N}}) {
      const int32_t zai = {{#has_za}}(int32_t)za[{{za_i}}]{{/has_za}}{{^has_za}}0{{/has_za}};
      for (int32_t j = 0; j < {{N}}; ++j) {
        const int32_t zbj = {{#has_zb}}(int32_t)zb[{{zb_j}}]{{/has_zb}}{{^has_zb}}0{{/has_zb}};
        {{acc_t}} acc = 0;
        for (int32_t p = 0; p < {{K}}; ++p)
          acc += {{prod_cast}}((int32_t)pa[i * {{K}} + p] - zai) * ((int32_t)pb[p * {{N}} + j] - zbj);
{{#qlinear}}
        yr[j] = ({{y_t}}){{requantize}}(acc, qm[{{q_i}}], qs[{{q_i}}], zy0, {{LO}}, {{HI}});
{{/qlinear}}
{{^qlinear}}
        yr[j] = acc;
{{/qlinear}}
      }
    }
  }
{{#loops}}  }
{{/loops}}}
