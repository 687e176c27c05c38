/* {{#log}}Log{{/log}}Softmax over the middle axis of x viewed as [{{OUTER}}, {{N}}, {{INNER}}]:
 * o = outer index, i = inner index, k = index along the normalized axis.
 * Each (o, i) takes the max, then the sum of mlip_expf(x - max) in k's
 * order, as one element at a time would; the exponentials are computed into
 * y an array at a time (mlip/kmath_n.h: the same bits), and for INNER > 1
 * up to 64 inner indices side by side (each one's order unchanged). The max
 * is fmaxf's, which C fixes except between equal values (+0 and -0): only
 * those call it. */
static void {{fn}}(const float* x, float* y) {
{{#rows}}  for (int32_t o = 0; o < {{OUTER}}; ++o) {
    const float* px = x + o * {{N}};
    float* py = y + o * {{N}};
    float mx = -INFINITY;
    float sum = 0.0f;
    int32_t k;
    for (k = 0; k < {{N}}; ++k) {
      const float v = px[k];
      mx = v > mx ? v : v == mx ? fmaxf(mx, v) : mx;
    }
    for (k = 0; k < {{N}}; ++k) py[k] = px[k] - mx;
    mlip_expf_n(py, {{N}});
    for (k = 0; k < {{N}}; ++k) sum += py[k];
{{#log}}    {
      const float ls = mlip_logf(sum);
      for (k = 0; k < {{N}}; ++k) py[k] = px[k] - mx - ls;
    }
{{/log}}{{^log}}    for (k = 0; k < {{N}}; ++k) py[k] /= sum;
{{/log}}  }
{{/rows}}{{^rows}}  for (int32_t o = 0; o < {{OUTER}}; ++o) {
    for (int32_t i0 = 0; i0 < {{INNER}}; i0 += 64) {
      const int32_t ni = {{INNER}} - i0 < 64 ? {{INNER}} - i0 : 64;
      const float* px = x + o * {{BLOCK}} + i0;
      float* py = y + o * {{BLOCK}} + i0;
      float mx[64], sum[64];
      int32_t i, k;
      for (i = 0; i < ni; ++i) {
        mx[i] = -INFINITY;
        sum[i] = 0.0f;
      }
      for (k = 0; k < {{N}}; ++k)
        for (i = 0; i < ni; ++i) {
          const float v = px[k * {{INNER}} + i];
          mx[i] = v > mx[i] ? v : v == mx[i] ? fmaxf(mx[i], v) : mx[i];
        }
      for (k = 0; k < {{N}}; ++k) {
        for (i = 0; i < ni; ++i) py[k * {{INNER}} + i] = px[k * {{INNER}} + i] - mx[i];
        mlip_expf_n(py + k * {{INNER}}, ni);
        for (i = 0; i < ni; ++i) sum[i] += py[k * {{INNER}} + i];
      }
{{#log}}      for (i = 0; i < ni; ++i) sum[i] = mlip_logf(sum[i]);
      for (k = 0; k < {{N}}; ++k)
        for (i = 0; i < ni; ++i) py[k * {{INNER}} + i] = px[k * {{INNER}} + i] - mx[i] - sum[i];
{{/log}}{{^log}}      for (k = 0; k < {{N}}; ++k)
        for (i = 0; i < ni; ++i) py[k * {{INNER}} + i] /= sum[i];
{{/log}}    }
  }
{{/rows}}}
