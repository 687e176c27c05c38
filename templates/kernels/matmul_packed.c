/* y[batch] = a[batch] [M, K] x b[batch] [K, N]{{#packed}}, b constant and packed at compile time
 * as [matrix][N / 16 blocks][K][16] (zero-padded){{/packed}}{{^packed}}, b an activation read in
 * place: blocks of 16 columns, then the last N % 16 columns one by one{{/packed}}. Loop d
 * walks the (simplified) broadcast batch axis d; a<d>, b<d> are the offsets
 * of the operand matrices after d loops (stride 0 on axes an operand is
 * broadcast along).
 *
 * A tile is PM rows times NJ blocks of 16 columns held in vector lanes;
 * every accumulator adds a(i, p) * b(p, j) with one rounding (a fused
 * multiply-add, MLIP_VFMAS; mlip_fmaf in the tail) for p in order from 0: each
 * output is the reference's dot product (ops::eval_MatMul), bit for bit at
 * any vector width (mlip/kvec.h). Rows and blocks past the end repeat the
 * last one, so every tile is full; their results are not stored twice.{{#bias}}
 * bias[j] is added to each finished sum as it is stored, as the Add after a
 * MatMul does (after the sum, not as its start: the same bits).{{/bias}} */
{{#noinline}}MLIP_VNOINLINE {{/noinline}}static void {{fn}}(const float* restrict a, {{#bias}}const float* restrict bias, {{/bias}}const float* restrict b, float* restrict y) {
  typedef MLIP_VT_16 vt;
  enum { VW = MLIP_VW_16, NV = 16 / MLIP_VW_16, PMX = MLIP_VREGS >= 32 ? 4 : 2, PM = {{M}} < PMX ? {{M}} : PMX,
         NJ0 = (MLIP_VREGS - PM - 2) / (PM * NV), NJ1 = NJ0 < 1 ? 1 : NJ0 > 8 ? 8 : NJ0,
         NJ = NJ1 > {{NBLK}} ? {{NBLK}} : NJ1 };
  float* yb = y;
  const int32_t a0 = 0;
  const int32_t b0 = 0;
{{#loops}}  for (int32_t i{{d}} = 0; i{{d}} < {{dim}}; ++i{{d}}) {
    const int32_t a{{d}} = {{a_off}};
    const int32_t b{{d}} = {{b_off}};
{{/loops}}  {
    const float* pa = a + a{{r}};
    const float* pb = b + b{{r}};
    for (int32_t j0 = 0; j0 < {{NBLK}}; j0 += NJ) {
      for (int32_t i0 = 0; i0 < {{M}}; i0 += PM) {
        const float* ar[PM];
        const float* bq[NJ];
        vt acc[PM][NJ][NV];
        int32_t r, c, v;
        for (r = 0; r < PM; ++r) ar[r] = pa + (i0 + r < {{M}} ? i0 + r : {{M}} - 1) * {{K}};
        for (c = 0; c < NJ; ++c) bq[c] = pb + (j0 + c < {{NBLK}} ? j0 + c : {{NBLK}} - 1) * {{BB}};
        {{#unroll}}MLIP_VUNROLL {{/unroll}}for (r = 0; r < PM; ++r)
          {{#unroll}}MLIP_VUNROLL {{/unroll}}for (c = 0; c < NJ; ++c)
            {{#unroll}}MLIP_VUNROLL {{/unroll}}for (v = 0; v < NV; ++v) acc[r][c][v] = (vt){0};
        for (int32_t p = 0; p < {{K}}; ++p) {
          float av[PM];
          {{#unroll}}MLIP_VUNROLL {{/unroll}}for (r = 0; r < PM; ++r) av[r] = ar[r][p];
          {{#unroll}}MLIP_VUNROLL {{/unroll}}for (c = 0; c < NJ; ++c)
            {{#unroll}}MLIP_VUNROLL {{/unroll}}for (v = 0; v < NV; ++v) {
              const vt w = MLIP_VLOAD_16(bq[c] + p * {{BR}} + v * VW);
              {{#unroll}}MLIP_VUNROLL {{/unroll}}for (r = 0; r < PM; ++r) acc[r][c][v] = MLIP_VFMAS_16(av[r], w, acc[r][c][v]);
            }
        }
        for (r = 0; r < PM && i0 + r < {{M}}; ++r) {
          float* yr = yb + (i0 + r) * {{N}};
          for (c = 0; c < NJ && j0 + c < {{NBLK}}; ++c) {
            float t[16];
            memcpy(t, acc[r][c], sizeof t);
            for (int32_t q = 0; q < 16 && (j0 + c) * 16 + q < {{N}}; ++q) {
              float v = t[q];
{{#bias}}              v = v + bias[(j0 + c) * 16 + q];
{{/bias}}              {{act}}
              yr[(j0 + c) * 16 + q] = v;
            }
          }
        }
      }
    }
{{#tail}}    /* The last columns as matmul.c sums them: row i accumulates
     * pa[i, p] * pb[p, j] for p in order, along the row. */
    for (int32_t i = 0; i < {{M}}; ++i) {
      float* yr = yb + i * {{N}};
      for (int32_t j = {{NT}}; j < {{N}}; ++j) yr[j] = 0.0f;
      for (int32_t p = 0; p < {{K}}; ++p) {
        const float av = pa[i * {{K}} + p];
        for (int32_t j = {{NT}}; j < {{N}}; ++j) yr[j] = mlip_fmaf(av, pb[p * {{N}} + j], yr[j]);
      }
      for (int32_t j = {{NT}}; j < {{N}}; ++j) {
        float v = yr[j];
{{#bias}}        v = v + bias[j];
{{/bias}}        {{act}}
        yr[j] = v;
      }
    }
{{/tail}}    yb += {{M}} * {{N}};
  }
{{#loops}}  }
{{/loops}}}
