/* y[batch] = a[batch] [M, K] x b[batch] [K, N]{{#packed}}, b constant and packed at compile time
 * as [matrix][N / 16 blocks][K][16] (zero-padded){{/packed}}{{^packed}}, b an activation read in
 * place: blocks of 16 columns, then{{#tail}} the last N % 16 columns copied, zero-padded to a block,
 * into the scratch ([K][8] where they fit, else [K][16]) and tiled as the others{{/tail}}{{/packed}}. Loop d
 * walks the (simplified) broadcast batch axis d; a<d>, b<d> are the offsets
 * of the operand matrices after d loops (stride 0 on axes an operand is
 * broadcast along).
 *
 * A tile is PM rows times NJ blocks of 16 columns held in vector lanes;
 * every accumulator adds a(i, p) * b(p, j) with one rounding (a fused
 * multiply-add, MLIP_VFMAS; mlip_fmaf in the tail) for p in order from 0: each
 * output is the reference's dot product (ops::eval_MatMul), bit for bit at
 * any vector width (mlip/kvec.h). Rows and blocks past the end repeat the
 * last one, so every tile is full; their results are not stored twice.
 * Where a group of NJ blocks of B is larger than 1.5 MLIP_VPANEL_BYTES
 * (mlip/kvec.h: what stays in L1 beside A's rows), p runs in NKC chunks
 * of KC (about MLIP_VPANEL_BYTES of B each) over row blocks of MB (partial sums and A's chunk stay in L2): each
 * tile's unfinished sums are stored to y after a chunk and loaded back
 * before the next, floats as they were, so every output is still the one
 * sum in p's order.{{#bias}}
 * bias[j] is added to each finished sum as it is stored, as the Add after a
 * MatMul does (after the sum, not as its start: the same bits).{{/bias}}{{#scale}}
 * After the activation, each value is multiplied by scale[j] (a layer
 * scale's Mul){{/scale}}{{#residual}}, then the residual's element is added (the Add of a
 * residual connection), lane by lane: the unfused nodes' operations{{/residual}}. */
{{#noinline}}MLIP_VNOINLINE {{/noinline}}static void {{fn}}(const float* restrict a, {{#bias}}const float* restrict bias, {{/bias}}{{#scale}}const float* restrict scale, {{/scale}}{{#residual}}const float* restrict res, {{/residual}}const float* restrict b, float* restrict y{{#tail}}, void* scratch{{/tail}}) {
  typedef MLIP_VT_16 vt;
  /* The tile: mlip/kvec.h's MLIP_VTILE_* rule (gemm_packed.c's too), but
   * more rows where few blocks leave registers for them (up to 8:
   * independent chains hide the multiply-add's latency). */
  enum { VW = MLIP_VW_16, NV = 16 / MLIP_VW_16, PMB = MLIP_VTILE_ROWS,
         PMW0 = (MLIP_VREGS - 2) / ({{NBLK}} * NV + 1), PMW = PMW0 > 8 ? 8 : PMW0, PMX = PMW > PMB ? PMW : PMB,
         PM = {{M}} < PMX ? {{M}} : PMX, NJ1 = MLIP_VTILE_BLOCKS(PM, NV), NJ = MLIP_VTILE_EVEN(NJ1, {{NBLK}}),
         /* p in NKC chunks of about KC0 when a group's panel of B passes
          * 1.5 MLIP_VPANEL_BYTES (a panel up to that still fits L1 whole);
          * B read in place with rows of whole lines on few of the L1's sets
          * counts as BSETG / min(NJ, BSETG) times its bytes (codegen's
          * l1_set_period; 1 for a packed B) */
         BSG = {{BSETG}}, PNB = NJ * 16 * (int)sizeof(float) * BSG / (NJ < BSG ? NJ : BSG),
         KC0 = MLIP_VPANEL_BYTES / PNB < 8 ? 8 : MLIP_VPANEL_BYTES / PNB,
         NKC = MLIP_VPANEL_BYTES == 0 || 2 * {{K}} <= 3 * KC0 ? 1 : ({{K}} + KC0 - 1) / KC0, KC = ({{K}} + NKC - 1) / NKC,
         MB = NKC == 1 ? {{M}} : PM * ((256 + PM - 1) / PM) };
  float* yb = y;
  const int32_t a0 = 0;
  const int32_t b0 = 0;
{{#loops}}  for (int32_t i{{d}} = 0; i{{d}} < {{dim}}; ++i{{d}}) {
    const int32_t a{{d}} = {{a_off}};
    const int32_t b{{d}} = {{b_off}};
{{/loops}}  {
    const float* pa = a + a{{r}};
    const float* pb = b + b{{r}};
    for (int32_t j0 = 0; j0 < {{NBLK}}; j0 += NJ)
     for (int32_t ib = 0; ib < {{M}}; ib += MB) {
      const int32_t ie = {{M}} - ib < MB ? {{M}} : ib + MB;
      for (int32_t k0 = 0; k0 < {{K}}; k0 += KC) {
      const int32_t ke = {{K}} - k0 < KC ? {{K}} : k0 + KC;
      for (int32_t i0 = ib; i0 < ie; i0 += PM) {
        const float* ar[PM];
        const float* bq[NJ];
        vt acc[PM][NJ][NV];
        int32_t r, c, v;
        for (r = 0; r < PM; ++r) ar[r] = pa + (i0 + r < ie ? i0 + r : ie - 1) * {{K}};
        for (c = 0; c < NJ; ++c) bq[c] = pb + (j0 + c < {{NBLK}} ? j0 + c : {{NBLK}} - 1) * {{BB}};
        if (k0 == 0) {
          {{#unroll}}MLIP_VUNROLL {{/unroll}}for (r = 0; r < PM; ++r)
            {{#unroll}}MLIP_VUNROLL {{/unroll}}for (c = 0; c < NJ; ++c)
              {{#unroll}}MLIP_VUNROLL {{/unroll}}for (v = 0; v < NV; ++v) acc[r][c][v] = (vt){0};
        } else { /* the sums so far, as the last chunk stored them */
          for (r = 0; r < PM; ++r)
            for (c = 0; c < NJ; ++c) {
              float t[16] = {0};
              const int32_t j = (j0 + c < {{NBLK}} ? j0 + c : {{NBLK}} - 1) * 16;
              const float* const ys = yb + (i0 + r < ie ? i0 + r : ie - 1) * {{N}} + j;
              if (j + 16 <= {{N}}) { /* a whole block as vectors: not through t, whose
                                       * narrower moves the vector loads could not be
                                       * forwarded from (about a tenth of a K-chunked
                                       * Linear on Zen 3) */
                for (v = 0; v < NV; ++v) acc[r][c][v] = MLIP_VLOAD_16(ys + v * VW);
                continue;
              }
              memcpy(t, ys, ({{N}} - j) * sizeof(float));
              memcpy(acc[r][c], t, sizeof t);
            }
        }
        for (int32_t p = k0; p < ke; ++p) {
          float av[PM];
          {{#unroll}}MLIP_VUNROLL {{/unroll}}for (r = 0; r < PM; ++r) av[r] = ar[r][p];
          {{#unroll}}MLIP_VUNROLL {{/unroll}}for (c = 0; c < NJ; ++c)
            {{#unroll}}MLIP_VUNROLL {{/unroll}}for (v = 0; v < NV; ++v) {
              vt w = MLIP_VLOAD_16(bq[c] + p * {{BR}} + v * VW);
              MLIP_VKEEP(w); /* one load for the PM rows (mlip/kvec.h) */
              {{#unroll}}MLIP_VUNROLL {{/unroll}}for (r = 0; r < PM; ++r) acc[r][c][v] = MLIP_VFMAS_16(av[r], w, acc[r][c][v]);
            }
        }
        if (ke < {{K}}) { /* unfinished: stored as they are */
          for (r = 0; r < PM && i0 + r < ie; ++r)
            for (c = 0; c < NJ && j0 + c < {{NBLK}}; ++c) {
              float t[16];
              const int32_t j = (j0 + c) * 16;
              if (j + 16 <= {{N}}) { /* a whole block as vectors */
                for (v = 0; v < NV; ++v) MLIP_VSTORE_16(yb + (i0 + r) * {{N}} + j + v * VW, acc[r][c][v]);
                continue;
              }
              memcpy(t, acc[r][c], sizeof t);
              memcpy(yb + (i0 + r) * {{N}} + j, t, ({{N}} - j) * sizeof(float));
            }
          continue;
        }
        for (r = 0; r < PM && i0 + r < ie; ++r) {
          float* yr = yb + (i0 + r) * {{N}};
          int32_t cw = 0; /* the whole blocks, the first cw of the tile's row */
          for (c = 0; c < NJ && j0 + c < {{NBLK}}; ++c) {
            float t[16];
            if ((j0 + c) * 16 + 16 <= {{N}}) {
              /* A whole block: stored as vectors (the bias added lane by
               * lane, the same bits); an activation comes after the row's
               * whole blocks, below. */
              float* const yp = yr + (j0 + c) * 16;
              for (v = 0; v < NV; ++v) {
                vt s = acc[r][c][v];
{{#bias}}                s = s + MLIP_VLOAD_16(bias + (j0 + c) * 16 + v * VW);
{{/bias}}{{^has_act_block}}{{#scale}}                s = s * MLIP_VLOAD_16(scale + (j0 + c) * 16 + v * VW);
{{/scale}}{{#residual}}                s = s + MLIP_VLOAD_16(res + (yp - y) + v * VW);
{{/residual}}{{/has_act_block}}                MLIP_VSTORE_16(yp + v * VW, s);
              }
              ++cw;
              continue;
            }
            memcpy(t, acc[r][c], sizeof t);
            for (int32_t q = 0; q < 16 && (j0 + c) * 16 + q < {{N}}; ++q) {
              float v = t[q];
{{#bias}}              v = v + bias[(j0 + c) * 16 + q];
{{/bias}}              {{act}}
{{#scale}}              v = v * scale[(j0 + c) * 16 + q];
{{/scale}}{{#residual}}              v = v + res[(yr - y) + (j0 + c) * 16 + q];
{{/residual}}              yr[(j0 + c) * 16 + q] = v;
            }
          }
{{#has_act_block}}          /* The activation in place on the row's cw whole blocks at once
           * (contiguous in y): a sigmoid's or erf's chain of dependent
           * operations is long, and on one block's two vectors the next
           * could not start until it ended (docs/benchmarks.md, stop 49). */
          {
            float* const t = yr + j0 * 16;
            const int32_t nt = cw * 16;
            {{act_block}}
          }
{{#post_act}}          /* the scale and residual after the activation */
          for (c = 0; c < cw; ++c)
            for (v = 0; v < NV; ++v) {
              float* const yp = yr + (j0 + c) * 16;
              vt s = MLIP_VLOAD_16(yp + v * VW);
{{#scale}}              s = s * MLIP_VLOAD_16(scale + (j0 + c) * 16 + v * VW);
{{/scale}}{{#residual}}              s = s + MLIP_VLOAD_16(res + (yp - y) + v * VW);
{{/residual}}              MLIP_VSTORE_16(yp + v * VW, s);
            }
{{/post_act}}{{/has_act_block}}        }
      }
      }
     }
{{#tail}}    /* The last N % 16 columns: B's columns NT.. copied into a zero-padded
     * block of TW columns (8 where they fit: an attention head of 24 or 40
     * leaves 8, which a 16-lane block would carry as much padding), then
     * tiles of PT rows in the lanes as above (the same sums in the same
     * order; the padding lanes are not stored). */
    {
#if {{N}} - {{NT}} <= 8
      typedef MLIP_VT_8 vtt;
      enum { TW = 8, TVW = MLIP_VW_8 };
#define MLIP__TLOAD(p) MLIP_VLOAD_8(p)
#define MLIP__TFMAS(s, w, c) MLIP_VFMAS_8(s, w, c)
#else
      typedef MLIP_VT_16 vtt;
      enum { TW = 16, TVW = MLIP_VW_16 };
#define MLIP__TLOAD(p) MLIP_VLOAD_16(p)
#define MLIP__TFMAS(s, w, c) MLIP_VFMAS_16(s, w, c)
#endif
      enum { TNV = TW / TVW, PT0 = (MLIP_VREGS - 2) / (TNV + 1), PT1 = PT0 < 1 ? 1 : PT0 > 8 ? 8 : PT0,
             PT = {{M}} < PT1 ? {{M}} : PT1 };
      float* restrict bt = (float*)scratch;
      for (int32_t p = 0; p < {{K}}; ++p)
        for (int32_t q = 0; q < TW; ++q) bt[p * TW + q] = {{NT}} + q < {{N}} ? pb[p * {{N}} + {{NT}} + q] : 0.0f;
      for (int32_t i0 = 0; i0 < {{M}}; i0 += PT) {
        const float* ar[PT];
        vtt acc[PT][TNV];
        int32_t r, v;
        for (r = 0; r < PT; ++r) ar[r] = pa + (i0 + r < {{M}} ? i0 + r : {{M}} - 1) * {{K}};
        {{#unroll}}MLIP_VUNROLL {{/unroll}}for (r = 0; r < PT; ++r)
          {{#unroll}}MLIP_VUNROLL {{/unroll}}for (v = 0; v < TNV; ++v) acc[r][v] = (vtt){0};
        for (int32_t p = 0; p < {{K}}; ++p) {
          float av[PT];
          {{#unroll}}MLIP_VUNROLL {{/unroll}}for (r = 0; r < PT; ++r) av[r] = ar[r][p];
          {{#unroll}}MLIP_VUNROLL {{/unroll}}for (v = 0; v < TNV; ++v) {
            vtt w = MLIP__TLOAD(bt + p * TW + v * TVW);
            MLIP_VKEEP(w);
            {{#unroll}}MLIP_VUNROLL {{/unroll}}for (r = 0; r < PT; ++r) acc[r][v] = MLIP__TFMAS(av[r], w, acc[r][v]);
          }
        }
        for (r = 0; r < PT && i0 + r < {{M}}; ++r) {
          float* yr = yb + (i0 + r) * {{N}};
          float t[TW];
          memcpy(t, acc[r], sizeof t);
          for (int32_t q = 0; {{NT}} + q < {{N}}; ++q) {
            float v = t[q];
{{#bias}}            v = v + bias[{{NT}} + q];
{{/bias}}            {{act}}
{{#scale}}            v = v * scale[{{NT}} + q];
{{/scale}}{{#residual}}            v = v + res[(yr - y) + {{NT}} + q];
{{/residual}}            yr[{{NT}} + q] = v;
          }
        }
      }
#undef MLIP__TLOAD
#undef MLIP__TFMAS
    }
{{/tail}}    yb += {{M}} * {{N}};
  }
{{#loops}}  }
{{/loops}}}
