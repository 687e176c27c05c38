/* y [M, N] = {{#has_alpha}}alpha * {{/has_alpha}}A' x B'{{#has_c}} + beta * C{{/has_c}}, B' constant and packed at
 * compile time as [N / 16 blocks][K][16] (zero-padded). A' element (i, p) is
 * a[i * AR + p * AP]{{#has_c}}, C element (i, j) c[i * CI + j * CJ] (0 on broadcast axes){{/has_c}}.
 *
 * A tile is PM rows times NJ blocks of 16 columns held in vector lanes;
 * every accumulator adds a(i, p) * b(p, j) with one rounding (a fused
 * multiply-add, MLIP_VFMAS) for p in order from 0: each
 * output is the reference's dot product (ops::eval_Gemm), bit for bit at
 * any vector width (mlip/kvec.h). Rows and blocks past the end repeat the
 * last one, so every tile is full; their results are not stored twice. */
{{#noinline}}MLIP_VNOINLINE {{/noinline}}static void {{fn}}(const float* restrict a, {{#has_c}}const float* restrict c, {{/has_c}}const float* restrict bp, float* restrict y) {
  typedef MLIP_VT_16 vt;
  /* The tile: mlip/kvec.h's MLIP_VTILE_* rule (matmul_packed.c's too) */
  enum { VW = MLIP_VW_16, NV = 16 / MLIP_VW_16, PM = {{M}} < MLIP_VTILE_ROWS ? {{M}} : MLIP_VTILE_ROWS,
         NJ1 = MLIP_VTILE_BLOCKS(PM, NV), NJ = MLIP_VTILE_EVEN(NJ1, {{NBLK}}) };
  for (int32_t j0 = 0; j0 < {{NBLK}}; j0 += NJ) {
    for (int32_t i0 = 0; i0 < {{M}}; i0 += PM) {
      const float* ar[PM];
      const float* bq[NJ];
      vt acc[PM][NJ][NV];
      int32_t r, b, v;
      for (r = 0; r < PM; ++r) ar[r] = a + (i0 + r < {{M}} ? i0 + r : {{M}} - 1) * {{AR}};
      for (b = 0; b < NJ; ++b) bq[b] = bp + (j0 + b < {{NBLK}} ? j0 + b : {{NBLK}} - 1) * {{K}} * 16;
      {{#unroll}}MLIP_VUNROLL {{/unroll}}for (r = 0; r < PM; ++r)
        {{#unroll}}MLIP_VUNROLL {{/unroll}}for (b = 0; b < NJ; ++b)
          {{#unroll}}MLIP_VUNROLL {{/unroll}}for (v = 0; v < NV; ++v) acc[r][b][v] = (vt){0};
      for (int32_t p = 0; p < {{K}}; ++p) {
        float av[PM];
        {{#unroll}}MLIP_VUNROLL {{/unroll}}for (r = 0; r < PM; ++r) av[r] = ar[r][p * {{AP}}];
        {{#unroll}}MLIP_VUNROLL {{/unroll}}for (b = 0; b < NJ; ++b)
          {{#unroll}}MLIP_VUNROLL {{/unroll}}for (v = 0; v < NV; ++v) {
            vt w = MLIP_VLOAD_16(bq[b] + p * 16 + v * VW);
            MLIP_VKEEP(w); /* one load for the PM rows (mlip/kvec.h) */
            {{#unroll}}MLIP_VUNROLL {{/unroll}}for (r = 0; r < PM; ++r) acc[r][b][v] = MLIP_VFMAS_16(av[r], w, acc[r][b][v]);
          }
      }
      for (r = 0; r < PM && i0 + r < {{M}}; ++r) {
        const int32_t i = i0 + r;
        for (b = 0; b < NJ && j0 + b < {{NBLK}}; ++b) {
          float t[16];
          memcpy(t, acc[r][b], sizeof t);
          for (int32_t q = 0; q < 16 && (j0 + b) * 16 + q < {{N}}; ++q) {
            const int32_t j = (j0 + b) * 16 + q;
            float v = {{#has_alpha}}{{alpha}} * {{/has_alpha}}t[q];
{{#has_c}}            v += {{beta}} * c[i * {{CI}} + j * {{CJ}}];
{{/has_c}}            {{act}}
            y[i * {{N}} + j] = v;
          }
        }
      }
    }
  }
}
