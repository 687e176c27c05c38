/* {{#softmax}}SoftmaxCrossEntropyLoss{{/softmax}}{{^softmax}}NegativeLogLikelihoodLoss{{/softmax}}: x [{{N}}, {{C}}, {{D}}], targets [{{N}}, {{D}}];
 * loss = -logp[n][t][d]{{#weight}} * w[t]{{/weight}}{{#ignore}}, 0 where t == {{IGNORE}}{{/ignore}}{{#softmax}},
 * logp = x - max - log(sum exp(x - max)) along C{{/softmax}}{{^softmax}}, logp = x{{/softmax}}; {{#none}}one loss per target{{/none}}{{^none}}{{#mean}}their sum
 * over the sum of the weights used{{/mean}}{{^mean}}their sum{{/mean}}{{/none}}. Every target is checked before any write. */
static int32_t {{fn}}(const float* x, const {{in1_t}}* t, {{#weight}}const float* w, {{/weight}}float* y{{#log_prob}}, float* lp{{/log_prob}}) {
  float sum = 0.0f, wsum = 0.0f;
  int32_t n, i, k;
  for (k = 0; k < {{COUNT}}; ++k)
    if ({{#ignore}}(int64_t)t[k] != {{IGNORE}} && {{/ignore}}(t[k] < 0 || t[k] >= {{C}})) return MLIP_ERR_INVALID_ARG;
  for (n = 0; n < {{N}}; ++n) {
    for (i = 0; i < {{D}}; ++i) {
      const int32_t base = n * {{CD}} + i;
      const int64_t c = (int64_t)t[n * {{D}} + i];
{{#ignore}}      const int ignored = c == {{IGNORE}};
{{/ignore}}{{^ignore}}      const int ignored = 0;
{{/ignore}}      float wc, l, logp;
{{#softmax}}      float mx = -INFINITY, s = 0.0f, ls;
      for (k = 0; k < {{C}}; ++k) mx = fmaxf(mx, x[base + k * {{D}}]);
      for (k = 0; k < {{C}}; ++k) s += mlip_expf(x[base + k * {{D}}] - mx);
      ls = mlip_logf(s);
{{#log_prob}}      for (k = 0; k < {{C}}; ++k) lp[base + k * {{D}}] = x[base + k * {{D}}] - mx - ls;
{{/log_prob}}      logp = ignored ? 0.0f : x[base + (int32_t)c * {{D}}] - mx - ls;
{{/softmax}}{{^softmax}}      logp = ignored ? 0.0f : x[base + (int32_t)c * {{D}}];
{{/softmax}}      wc = ignored ? 0.0f : {{#weight}}w[c]{{/weight}}{{^weight}}1.0f{{/weight}};
      l = ignored ? 0.0f : -logp * wc;
{{#none}}      y[n * {{D}} + i] = l;
{{/none}}      sum += l;
      wsum += wc;
    }
  }
{{^none}}{{#mean}}  y[0] = sum / wsum;
{{/mean}}{{^mean}}  y[0] = sum;
  (void)wsum;
{{/mean}}{{/none}}{{#none}}  (void)sum;
  (void)wsum;
{{/none}}  return 0;
}
