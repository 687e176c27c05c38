/* {{#rnn}}RNN{{/rnn}}{{#gru}}GRU{{/gru}}{{#lstm}}LSTM{{/lstm}}: x, w [DIRS, G * H, I], r [DIRS, G * H, H] and the optional
 * inputs; y, and Y_h / Y_c when the node has them. For each direction and
 * batch entry the cell runs over the entry's steps (backwards in a reversed
 * direction); the state lives in the scratch. Every gate pre-activation is
 * s = Wb_j + Rb_j (0 without B), then s = mlip_fmaf(x_p, W_jp, s) over
 * p and s = mlip_fmaf(h_k, R_jk, s) over k in index order [+ P_j * c],
 * then clip and activation: the expressions and order of the reference
 * kernel (ops/recurrent.cpp). */
static float {{fn}}_act(int32_t k, float v) {
  switch (k) {
{{#acts}}
    case {{k}}: { {{body}} }
{{/acts}}
    default: return v;
  }
}

static float {{fn}}_clip(float s) {
{{#has_clip}}
  return s < {{neg_clip}} ? {{neg_clip}} : (s > {{clip}} ? {{clip}} : s);
{{/has_clip}}
{{^has_clip}}
  return s;
{{/has_clip}}
}

/* s, then s = mlip_fmaf(a[k], b[k], s) for k in index order. */
static float {{fn}}_dot(float s, const float* restrict a, const float* restrict b, int32_t n) {
  int32_t k;
  for (k = 0; k < n; ++k) s = mlip_fmaf(a[k], b[k], s);
  return s;
}

/* The pre-activation of one gate row before the peephole. */
static float {{fn}}_pre(const float* restrict xv, const float* restrict hv, const float* restrict wrow,
                        const float* restrict rrow{{#has_bias}}, float wb, float rb{{/has_bias}}) {
  return {{fn}}_dot({{fn}}_dot({{#has_bias}}wb + rb{{/has_bias}}{{^has_bias}}0.0f{{/has_bias}}, xv, wrow, {{I}}), hv, rrow, {{H}});
}

static {{#has_lens}}int32_t{{/has_lens}}{{^has_lens}}void{{/has_lens}} {{fn}}(const float* restrict x, const float* restrict w, const float* restrict r, {{#has_bias}}const float* restrict bias, {{/has_bias}}{{#has_lens}}const int32_t* restrict lens, {{/has_lens}}{{#has_h0}}const float* restrict h0, {{/has_h0}}{{#has_c0}}const float* restrict c0, {{/has_c0}}{{#has_p}}const float* restrict p, {{/has_p}}float* restrict y, {{#has_yh}}float* restrict yh, {{/has_yh}}{{#has_yc}}float* restrict yc, {{/has_yc}}void* scratch) {
  float* h = (float*)scratch; /* the state */
  float* hn = h + {{H}};      /* the next state */
{{#lstm}}
  float* c = hn + {{H}};      /* the cell state */
{{/lstm}}
{{#gru}}
  float* z = hn + {{H}};      /* update gate */
  float* rg = z + {{H}};      /* reset gate */
  float* rh = rg + {{H}};     /* reset gate * state */
{{/gru}}
{{#has_lens}}
  for (int32_t b = 0; b < {{BATCH}}; ++b)
    if (lens[b] < 0 || lens[b] > {{T}}) return MLIP_ERR_INVALID_ARG;
{{/has_lens}}
  for (int32_t d = 0; d < {{DIRS}}; ++d) {
    const float* wd = w + d * {{GHI}};
    const float* rd = r + d * {{GHH}};
{{#has_bias}}
    const float* wb = bias + d * 2 * {{GH}};
    const float* rb = wb + {{GH}};
{{/has_bias}}
{{#has_p}}
    const float* pd = p + d * 3 * {{H}};
{{/has_p}}
    const int32_t act = d * {{FUNCS}};
    const int32_t reversed = {{REVERSE}} || d == 1;
    for (int32_t b = 0; b < {{BATCH}}; ++b) {
      const int32_t len = {{#has_lens}}lens[b]{{/has_lens}}{{^has_lens}}{{T}}{{/has_lens}};
      for (int32_t j = 0; j < {{H}}; ++j) {
        h[j] = {{#has_h0}}h0[d * {{SD}} + b * {{SB}} + j]{{/has_h0}}{{^has_h0}}0.0f{{/has_h0}};
{{#lstm}}
        c[j] = {{#has_c0}}c0[d * {{SD}} + b * {{SB}} + j]{{/has_c0}}{{^has_c0}}0.0f{{/has_c0}};
{{/lstm}}
      }
      for (int32_t s = 0; s < len; ++s) {
        const int32_t t = reversed ? len - 1 - s : s;
        const float* xv = x + t * {{XT}} + b * {{XB}};
        float* yt = y + t * {{YT}} + d * {{YD}} + b * {{YB}};
{{#rnn}}
        for (int32_t j = 0; j < {{H}}; ++j)
          hn[j] = {{fn}}_act(act, {{fn}}_clip({{fn}}_pre(xv, h, wd + j * {{I}}, rd + j * {{H}}{{#has_bias}}, wb[j], rb[j]{{/has_bias}})));
{{/rnn}}
{{#gru}}
        for (int32_t j = 0; j < {{H}}; ++j)
          z[j] = {{fn}}_act(act, {{fn}}_clip({{fn}}_pre(xv, h, wd + j * {{I}}, rd + j * {{H}}{{#has_bias}}, wb[j], rb[j]{{/has_bias}})));
        for (int32_t j = 0; j < {{H}}; ++j) {
          const int32_t row = {{H}} + j;
          rg[j] = {{fn}}_act(act, {{fn}}_clip({{fn}}_pre(xv, h, wd + row * {{I}}, rd + row * {{H}}{{#has_bias}}, wb[row], rb[row]{{/has_bias}})));
        }
        for (int32_t j = 0; j < {{H}}; ++j) rh[j] = rg[j] * h[j];
        for (int32_t j = 0; j < {{H}}; ++j) {
          const int32_t row = 2 * {{H}} + j;
{{#lbr}}
          const float sx = {{fn}}_dot({{#has_bias}}wb[row]{{/has_bias}}{{^has_bias}}0.0f{{/has_bias}}, xv, wd + row * {{I}}, {{I}});
          const float sr = {{fn}}_dot({{#has_bias}}rb[row]{{/has_bias}}{{^has_bias}}0.0f{{/has_bias}}, h, rd + row * {{H}}, {{H}});
          const float sh = sx + rg[j] * sr;
{{/lbr}}
{{^lbr}}
          const float sh = {{fn}}_pre(xv, rh, wd + row * {{I}}, rd + row * {{H}}{{#has_bias}}, wb[row], rb[row]{{/has_bias}});
{{/lbr}}
          const float hh = {{fn}}_act(act + 1, {{fn}}_clip(sh));
          hn[j] = (1.0f - z[j]) * hh + z[j] * h[j];
        }
{{/gru}}
{{#lstm}}
        for (int32_t j = 0; j < {{H}}; ++j) {
          const int32_t ri = j, ro = {{H}} + j, rf = 2 * {{H}} + j, rc = 3 * {{H}} + j;
          float si = {{fn}}_pre(xv, h, wd + ri * {{I}}, rd + ri * {{H}}{{#has_bias}}, wb[ri], rb[ri]{{/has_bias}});
          float ig, fg, cg, so;
{{#has_p}}
          si = si + pd[j] * c[j];
{{/has_p}}
          ig = {{fn}}_act(act, {{fn}}_clip(si));
{{#input_forget}}
          (void)rf;
          fg = 1.0f - ig;
{{/input_forget}}
{{^input_forget}}
          {
            float sf = {{fn}}_pre(xv, h, wd + rf * {{I}}, rd + rf * {{H}}{{#has_bias}}, wb[rf], rb[rf]{{/has_bias}});
{{#has_p}}
            sf = sf + pd[2 * {{H}} + j] * c[j];
{{/has_p}}
            fg = {{fn}}_act(act, {{fn}}_clip(sf));
          }
{{/input_forget}}
          cg = {{fn}}_act(act + 1, {{fn}}_clip({{fn}}_pre(xv, h, wd + rc * {{I}}, rd + rc * {{H}}{{#has_bias}}, wb[rc], rb[rc]{{/has_bias}})));
          c[j] = fg * c[j] + ig * cg;
          so = {{fn}}_pre(xv, h, wd + ro * {{I}}, rd + ro * {{H}}{{#has_bias}}, wb[ro], rb[ro]{{/has_bias}});
{{#has_p}}
          so = so + pd[{{H}} + j] * c[j];
{{/has_p}}
          hn[j] = {{fn}}_act(act, {{fn}}_clip(so)) * {{fn}}_act(act + 2, c[j]);
        }
{{/lstm}}
        for (int32_t j = 0; j < {{H}}; ++j) {
          h[j] = hn[j];
          yt[j] = hn[j];
        }
      }
      for (int32_t t = len; t < {{T}}; ++t) {
        float* yt = y + t * {{YT}} + d * {{YD}} + b * {{YB}};
        for (int32_t j = 0; j < {{H}}; ++j) yt[j] = 0.0f;
      }
{{#has_yh}}
      for (int32_t j = 0; j < {{H}}; ++j) yh[d * {{SD}} + b * {{SB}} + j] = h[j];
{{/has_yh}}
{{#has_yc}}
      for (int32_t j = 0; j < {{H}}; ++j) yc[d * {{SD}} + b * {{SB}} + j] = c[j];
{{/has_yc}}
    }
  }
{{#has_lens}}
  return MLIP_OK;
{{/has_lens}}
}
