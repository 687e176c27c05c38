/* {{op}} over the channels of x [N, C, P] (mlipc_channels_in: the
 * Transpose to [N, P, C] fused, passes/fuse_transpose_norm): each
 * position's C values normalized in the order of ops/normalize.h: the
 * mean (a sum over c in order, / C), the mean of squared deviations, the
 * inverse standard deviation, then d * inv * scale[c]{{#bias}} + bias[c]{{/bias}}{{#div}} (d / sd instead
 * of d * inv: the opset-13 decomposition's division){{/div}}. 64 or 16
 * positions in vector lanes, each lane one row's chains (lane by lane the
 * scalar operations, mlip/kvec.h), the positions past the last 16 one at
 * a time;
 * y is [N, C, P]{{^cout}} transposed to [N, P, C]{{/cout}}. */
/* One output: x's value xv of channel c, its row's mean and inverse
 * standard deviation{{#div}} (the standard deviation, divided by){{/div}}; vectors or scalars alike. */
#define {{fn}}_Y(xv, m, iv, c) (((xv) - (m)) {{^div}}*{{/div}}{{#div}}/{{/div}} (iv) * scale[c]{{#bias}} + bias[c]{{/bias}})
/* Positions [p0, p0 + 16 * KB) of one batch item: KB * 16 rows side by
 * side (KB lines of every channel in flight at once). */
#define {{fn}}_STRIP(KB)                                                                                      \
  for (; p0 + 16 * (KB) <= {{P}}; p0 += 16 * (KB)) {                                                         \
    vt s[(KB) * NV], q[(KB) * NV], m[(KB) * NV], iv[(KB) * NV];                                            \
    float qa[16 * (KB)], ia[16 * (KB)];                                                                      \
    for (v = 0; v < (KB) * NV; ++v) {                                                                        \
      s[v] = (vt){0};                                                                                        \
      q[v] = (vt){0};                                                                                        \
    }                                                                                                        \
    for (c = 0; c < {{C}}; ++c)                                                                              \
      for (v = 0; v < (KB) * NV; ++v) s[v] = s[v] + MLIP_VLOAD_16(xn + c * {{P}} + p0 + v * VW);             \
    for (v = 0; v < (KB) * NV; ++v) m[v] = s[v] / {{NF}};                                                   \
    for (c = 0; c < {{C}}; ++c)                                                                              \
      for (v = 0; v < (KB) * NV; ++v) {                                                                      \
        const vt d = MLIP_VLOAD_16(xn + c * {{P}} + p0 + v * VW) - m[v];                                     \
        q[v] = q[v] + d * d;                                                                                 \
      }                                                                                                      \
    for (v = 0; v < (KB) * NV; ++v) MLIP_VSTORE_16(qa + v * VW, q[v]);                                       \
    for (l = 0; l < 16 * (KB); ++l) ia[l] = {{^div}}1.0f / {{/div}}sqrtf(qa[l] / {{NF}} + {{EPS}});          \
    for (v = 0; v < (KB) * NV; ++v) iv[v] = MLIP_VLOAD_16(ia + v * VW);                                      \
{{#cout}}    for (c = 0; c < {{C}}; ++c)                                                                              \
      for (v = 0; v < (KB) * NV; ++v)                                                                        \
        MLIP_VSTORE_16(yn + c * {{P}} + p0 + v * VW,                                                         \
                       {{fn}}_Y(MLIP_VLOAD_16(xn + c * {{P}} + p0 + v * VW), m[v], iv[v], c)); \
{{/cout}}{{^cout}}    /* VW channels of VW positions at a time, transposed in registers: each    \
     * position's channels stored as one run */                                                             \
    for (c = 0; c + VW <= {{C}}; c += VW)                                                                    \
      for (v = 0; v < (KB) * NV; ++v) {                                                                      \
        vt t[VW];                                                                                            \
        for (l = 0; l < VW; ++l)                                                                             \
          t[l] = {{fn}}_Y(MLIP_VLOAD_16(xn + (c + l) * {{P}} + p0 + v * VW), m[v], iv[v], c + l); \
        MLIP_VTRANSPOSE_16(t);                                                                               \
        for (l = 0; l < VW; ++l) MLIP_VSTORE_16(yn + (p0 + v * VW + l) * {{C}} + c, t[l]);                   \
      }                                                                                                      \
    for (; c < {{C}}; ++c)                                                                                   \
      for (v = 0; v < (KB) * NV; ++v) {                                                                      \
        const vt r = {{fn}}_Y(MLIP_VLOAD_16(xn + c * {{P}} + p0 + v * VW), m[v], iv[v], c); \
        float t[VW];                                                                                         \
        memcpy(t, &r, sizeof t);                                                                             \
        for (l = 0; l < VW; ++l) yn[(p0 + v * VW + l) * {{C}} + c] = t[l];                                   \
      }                                                                                                      \
{{/cout}}  }
static void {{fn}}(const float* x, const float* scale{{#bias}}, const float* bias{{/bias}}, float* y) {
  typedef MLIP_VT_16 vt;
  enum { VW = MLIP_VW_16, NV = 16 / MLIP_VW_16 };
  for (int32_t n = 0; n < {{N}}; ++n) {
    const float* xn = x + n * {{C}} * {{P}};
    float* yn = y + n * {{C}} * {{P}};
    int32_t p0 = 0, c, v, l;
    {{fn}}_STRIP(4)
    {{fn}}_STRIP(1)
    for (; p0 < {{P}}; ++p0) {
      float s = 0.0f, q = 0.0f;
      for (c = 0; c < {{C}}; ++c) s += xn[c * {{P}} + p0];
      const float m = s / {{NF}};
      for (c = 0; c < {{C}}; ++c) {
        const float d = xn[c * {{P}} + p0] - m;
        q += d * d;
      }
      const float iv = {{^div}}1.0f / {{/div}}sqrtf(q / {{NF}} + {{EPS}});
      for (c = 0; c < {{C}}; ++c)
        yn[{{#cout}}c * {{P}} + p0{{/cout}}{{^cout}}p0 * {{C}} + c{{/cout}}] = {{fn}}_Y(xn[c * {{P}} + p0], m, iv, c);
    }
  }
}
#undef {{fn}}_STRIP
#undef {{fn}}_Y
