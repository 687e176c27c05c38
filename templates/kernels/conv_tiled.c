/* Conv with weights packed at compile time: x [N, C, D, H, W], y [N, M, OD,
 * OH, OW] (1-D and 2-D as size-1 leading axes), each stored row-major or
 * channels-last (the strides X* and Y* say which). wp holds the weights as
 * [group][block of MB output channels][ic][kd][kh][kw][MB], zero-padded to
 * whole blocks, bp the bias the same way. Depthwise (dw: every output
 * channel reads one input channel of its own) is one group of C channels
 * with ICG = 1 whose lanes read their own channels: a vector load from
 * channels-last input, lane by lane from row-major.
 *
 * The output positions fall into rectangles whose windows keep the same
 * taps inside the input (rect: od, oh, ow ranges and the kd, kh, kw ranges
 * they read), so no loop tests for padding; the interior one (FULL, or -1)
 * runs the tap loops with constant bounds. A tile is PB positions of one
 * rectangle (the last one repeated to fill it) times one block of MB output
 * channels held in vector lanes; for every tap (ic, kd, kh, kw), in that
 * order, each accumulator adds x * w with one rounding (a fused multiply-add,
 * MLIP_VFMA). Every output thus sums the products of
 * its taps inside the input in the reference's order (ops::eval_Conv),
 * starting from 0, then adds the bias (and the residual r, which has y's
 * layout and may be y's own bytes: each element is read just before the same
 * element of y is written) and applies the activation: the same bits at any
 * vector width (mlip/kvec.h).
 * With padx, the scratch holds a zero-padded channels-last copy of the
 * input channels, PXS floats from pixel to pixel (the PCN channels and, at
 * multiples of 1 KiB, one cache line more: codegen's conv.cpp; geometry and
 * X* strides are the copy's, XR* the input's):
 * one rectangle, every tap inside (the weights are finite, so a padding tap
 * adds +-0, which changes no sum); a pool's rows follow it (POOL_AT).
 * With a fused MaxPool (pool), the convolution's rows go to a scratch of SR
 * rows, band by band, and each band's pooled row to y: the convolution's
 * output never exists whole, and no row is computed twice.
 * A dense tile holds KB blocks (KB from the code generator, 2 for dense
 * layers of two blocks or more, else 1; with a pool the scratch holds KB
 * blocks' rows, SRB floats each), where a block is one
 * vector and there are 32 vector registers (AVX-512): per tap KB weight
 * vectors are loaded, then each position's x is broadcast once and feeds
 * KB FMAs, so 12 positions x 2 blocks (24 accumulators) take 2 + 12 loads
 * per 24 FMAs against 1 + 8 per 8. (With the blocks as the outer loop of a
 * tap GCC kept every position's broadcast live across them and spilled the
 * accumulators.) The last block of an odd count runs alone. On 16
 * registers where codegen offers it (tile3) and mlip/kvec.h's MLIP_VTILE_*
 * rule takes KB blocks at its rows (AVX2's blocks of two vectors), KB is 2
 * at 3 positions (HX, {{fn}}_hx above). Elsewhere (a block of several
 * vectors: NEON, Helium, scalar, SSE) KB is 1. PB fits
 * the accumulators in the vector registers beside the tap's weights and a
 * broadcast, and on 16 registers (x86 without AVX-512) beside twice the
 * weights where that leaves 2 positions or more: AVX2's 6 positions of two
 * vectors (15 registers) spilled accumulators in every tap (GCC 12), 5 run
 * 12% faster (ResNet-18's 3x3 64-channel layer, its 7x7 stem 13%,
 * EfficientNet-B0's stem 18%); PBX (PBX2 with KB = 2) caps it
 * at what suits the layer's rectangles. The blocks are the outer loop (a block's weights stay in the cache over
 * the plane) or, with bi (depthwise on channels-last input, and dense
 * layers whose packed weights are small), the inner one: every block at a
 * tile's positions in turn, so each pixel's channels are read and written
 * front to back. Either order gives each output the same sum.
 * Where a block's outputs are contiguous, the bias, residual and a
 * piecewise-linear activation (act_vector) are applied as vectors, lane by
 * lane the operations of the scalar path. Not on Helium (Cortex-M55, M85),
 * where GCC 12.2 miscompiles the pool's mask: without -ffast-math it
 * lowers a float vector comparison to scalar VCMPs, and where the result
 * must exist as a lane mask (the pool's `a > b | a != a`, into which it
 * also folds two blends) it sets only lane 0's bits of the MVE predicate,
 * so lanes 1 to 3 kept the old maximum (the digits CNN and small_mlip on
 * the M55 gave other bytes than the host). Minimal reproducer:
 * tests/variants/gcc_mve_float_mask.c; the activations' single compare and
 * blend come out right but scalarized, no faster than the lane-by-lane
 * loop (digits -1.4%, small_mlip +6% instructions at -O2), so Helium keeps
 * the lane-by-lane forms for both (e2e.FloatKernelsOnCortexM checks the
 * bytes of a Conv, ReLU and fused MaxPool there). */
{{#act_lanes}}#if MLIP_VW_{{MB}} > 1 && !defined(__ARM_FEATURE_MVE) && !defined(MLIP__CT_SIGMOID_{{MB}})
#define MLIP__CT_SIGMOID_{{MB}}
#define MLIP_VSIG_VT MLIP_VT_{{MB}}
#define MLIP_VSIG_FN mlip__ct_sigmoid_{{MB}}
#include "mlip/kvec_sigmoid.h"
#endif
{{/act_lanes}}/* HX: on 16 vector registers where mlip/kvec.h's MLIP_VTILE_* rule takes
 * KB blocks at its rows (AVX2: 3 positions x 2 blocks of 2 vectors, 12
 * accumulators, 3 broadcasts and one weight vector at a time), for the
 * layers codegen's conv.cpp offers it (tile3), a dense tile of KB = 2 blocks
 * runs its taps in a function of its own, {{fn}}_hx, where nothing else
 * competes for the registers. */
{{#tile3}}#if {{KB}} > 1 && MLIP_VREGS == 16 && MLIP_VW_{{MB}} > 1 && MLIP_VTILE_BLOCKS(MLIP_VTILE_ROWS, {{MB}} / MLIP_VW_{{MB}}) == {{KB}}
#define {{fn}}_HX 1
#else
#define {{fn}}_HX 0
#endif
{{/tile3}}{{^tile3}}#define {{fn}}_HX 0
{{/tile3}}#define {{fn}}_ENUM                                                                                                                                                       \
  enum { VW = MLIP_VW_{{MB}}, NV = {{MB}} / MLIP_VW_{{MB}},                                                                                                               \
         HX = {{fn}}_HX,                                                                                                                                                  \
         KB = {{KB}} > 1 && ((NV == 1 && VW > 1 && MLIP_VREGS >= 32) || HX) ? {{KB}} : 1, NJ = KB * NV,                                                                   \
         PB1 = (MLIP_VREGS - 2 * NJ - 1) / NJ,                                                                                                                            \
         PB0 = HX ? MLIP_VTILE_ROWS : {{#dw}}PB1{{/dw}}{{^dw}}MLIP_VREGS == 16 && PB1 >= 2 ? PB1 : (MLIP_VREGS - NJ - 1) / NJ{{/dw}}, PBM = KB > 1 ? {{PBX2}} : {{PBX}},  \
         PB = PB0 < 1 ? 1 : PB0 > PBM ? PBM : PB0 }
  /* The taps of kd in [KD0, KD1), kh in [KH0, KH1), kw in [KW0, KW1), for
   * every input channel, in the reference's order. */
#define {{fn}}_TAPS(NJ_, XP, KD0, KD1, KH0, KH1, KW0, KW1)                                                      \
  for (int32_t ic = 0; ic < {{ICG}}; ++ic) {                                                                 \
    for (int32_t kd = (KD0); kd < (KD1); ++kd) {                                                             \
      for (int32_t kh = (KH0); kh < (KH1); ++kh) {                                                           \
        const int32_t w0 = (((ic * {{KD}} + kd) * {{KH}} + kh) * {{KW}} + (KW0)) * {{MB}};                   \
        const int32_t t0 = ic * {{XC}} + (kd - (KD0)) * {{DD}} * {{XD}} + (kh - (KH0)) * {{DH}} * {{XH}};    \
        {{#many_taps}}MLIP_VNOUNROLL16 {{/many_taps}}for (int32_t kw = 0; kw < (KW1) - (KW0); ++kw) {                                                     \
          int32_t t = t0 + kw * {{DW}} * {{XW}};                                                             \
          {{#many_taps}}MLIP_VNOSHARE16(t); /* no load shared with another tap (mlip/kvec.h) */{{/many_taps}}              \
{{^dw}}          if (HX) { /* the tap's PB x held (broadcasts), each weight vector loaded once for them */           \
            float xv[PB];                                                                                     \
            {{#unroll}}MLIP_VUNROLL {{/unroll}}for (p = 0; p < PB; ++p) xv[p] = XP(p)[t];                     \
            {{#unroll}}MLIP_VUNROLL {{/unroll}}for (j = 0; j < (NJ_); ++j) {                                  \
              vt w = MLIP_VLOAD_{{MB}}(wb + j / NV * {{WBLOCK}} + w0 + kw * {{MB}} + j % NV * VW);            \
              MLIP_VKEEP(w); /* one load for the PB positions (mlip/kvec.h) */                                \
              {{#unroll}}MLIP_VUNROLL {{/unroll}}for (p = 0; p < PB; ++p) acc[p][j] = MLIP_VFMAS_{{MB}}(xv[p], w, acc[p][j]);\
            }                                                                                                 \
          } else { /* the tap's weights held: each x (a broadcast) feeds NJ_ FMAs in turn */                  \
            vt wv[NJ];                                                                                        \
            {{#unroll}}MLIP_VUNROLL {{/unroll}}for (j = 0; j < (NJ_); ++j) wv[j] = MLIP_VLOAD_{{MB}}(wb + j / NV * {{WBLOCK}} + w0 + kw * {{MB}} + j % NV * VW);\
            {{#unroll}}MLIP_VUNROLL {{/unroll}}for (p = 0; p < PB; ++p) {                                     \
              {{#unroll}}MLIP_VUNROLL {{/unroll}}for (j = 0; j < (NJ_); ++j) acc[p][j] = MLIP_VFMAS_{{MB}}(XP(p)[t], wv[j], acc[p][j]);\
            }                                                                                                 \
          }                                                                                                   \
{{/dw}}{{#dw}}          {{#unroll}}MLIP_VUNROLL {{/unroll}}for (j = 0; j < NV; ++j) {                                       \
            const vt w = MLIP_VLOAD_{{MB}}(wb + w0 + kw * {{MB}} + j * VW);                                   \
            {{#unroll}}MLIP_VUNROLL {{/unroll}}for (p = 0; p < PB; ++p) {                                     \
              {{#vector_load}}acc[p][j] = MLIP_VFMA_{{MB}}(MLIP_VLOAD_{{MB}}(XP(p) + t + j * VW), w, acc[p][j]);{{/vector_load}}{{^vector_load}}float lane[VW];          \
              vt xv;                                                                                         \
              int32_t l;                                                                                     \
              for (l = 0; l < VW; ++l) lane[l] = j * VW + l < nq ? XP(p)[t + (j * VW + l) * {{XC}}] : 0.0f; \
              memcpy(&xv, lane, sizeof xv);                                                                  \
              acc[p][j] = MLIP_VFMA_{{MB}}(xv, w, acc[p][j]);{{/vector_load}}                                     \
            }                                                                                                 \
          }                                                                                                   \
{{/dw}}        }                                                                                                    \
      }                                                                                                      \
    }                                                                                                        \
  }
  /* Position p's input: through its own pointer, or, where a tile's
   * positions lie along one row of its rectangle, at a constant stride from
   * the first (one pointer and immediate offsets where the PB pointers
   * spilled from the registers). */
#define {{fn}}_XG(p) xs[p]
#define {{fn}}_XR(p) (xs[0] + (p) * ({{SW}} * {{XW}}))
  /* The taps of the tile's rectangle for NJ_ accumulators per position. */
#define {{fn}}_RUN(NJ_)                                                                                    \
  if (ri == {{FULL}}) {                                                                                    \
    if (row1) {                                                                                           \
      {{fn}}_TAPS(NJ_, {{fn}}_XR, 0, {{KD}}, 0, {{KH}}, 0, {{KW}})                                          \
    } else {                                                                                              \
      {{fn}}_TAPS(NJ_, {{fn}}_XG, 0, {{KD}}, 0, {{KH}}, 0, {{KW}})                                          \
    }                                                                                                     \
  } else if (row1) {                                                                                      \
    {{fn}}_TAPS(NJ_, {{fn}}_XR, R[2], R[3], R[6], R[7], R[10], R[11])                                       \
  } else {                                                                                                \
    {{fn}}_TAPS(NJ_, {{fn}}_XG, R[2], R[3], R[6], R[7], R[10], R[11])                                       \
  }
#if {{fn}}_HX
/* The taps of one tile (RUN) into out, as the kernel's acc: inlined in the
 * kernel, GCC 12 kept other values in vector registers across the tap loop
 * and spilled three of the 16 accumulators and broadcasts to the stack in
 * some layers' kernels (ResNet-50's 3x3 layers and 7x7 stems took twice as
 * long). */
static __attribute__((noinline)) void {{fn}}_hx(const float* const* xs, const float* restrict wb, const int32_t* R,
                                              int32_t ri, int32_t row1, int32_t whole, MLIP_VT_{{MB}}* out) {
  typedef MLIP_VT_{{MB}} vt;
  {{fn}}_ENUM;
  vt acc[PB][NJ];
  int32_t p, j;
  for (p = 0; p < PB; ++p)
    for (j = 0; j < NJ; ++j) acc[p][j] = (vt){0};
  if (whole) {
    {{fn}}_RUN(NJ)
  } else {
    {{fn}}_RUN(NV)
  }
  memcpy(out, acc, sizeof acc);
}
#endif
{{#noinline}}MLIP_VNOINLINE {{/noinline}}static void {{fn}}(const float* restrict x, {{#has_res}}const float* r, {{/has_res}}const float* restrict wp, {{#has_bias}}const float* restrict bp, {{/has_bias}}float* {{y_restrict}}y{{#has_scratch}}, void* scratch{{/has_scratch}}) {
  typedef MLIP_VT_{{MB}} vt;
{{#has_act_vector}}#if MLIP_VW_{{MB}} > 1 && !defined(__ARM_FEATURE_MVE)
  typedef int32_t vm __attribute__((vector_size(sizeof(vt))));
#endif
{{/has_act_vector}}  {{fn}}_ENUM;
  static const int32_t rect[{{NR}}][12] = {{rects}};
  /* The block of MB output channels blk: its weights, input (depthwise),
   * bias, output and residual. */
#define {{fn}}_BLOCK                                                                                       \
  const float* wb = wp + (g * {{NB}} + blk) * {{WBLOCK}};                                                 \
  const float* xb = xg{{#dw}} + blk * {{MB}} * {{XC}}{{/dw}};                                                             \
  const int32_t nq = {{OCG}} - blk * {{MB}} < {{MB}} ? {{OCG}} - blk * {{MB}} : {{MB}};                           \
  {{#has_bias}}const float* bb = bp + (g * {{NB}} + blk) * {{MB}};{{/has_bias}}                                             \
  float* yb = {{#stage}}(float*)scratch + {{STAGE_AT}}{{#bi}} + blk * {{MB}}{{/bi}}{{/stage}}{{^stage}}y + n * {{YN}} + (g * {{OCG}} + blk * {{MB}}) * {{YC}}{{/stage}}; \
  {{#has_res}}const float* rb = r + n * {{YN}} + (g * {{OCG}} + blk * {{MB}}) * {{YC}};{{/has_res}}
  for (int32_t n = 0; n < {{N}}; ++n) {
    for (int32_t g = 0; g < {{G}}; ++g) {
{{#padx}}
      /* The input channels of the group, zero-padded and channels-last. */
      const float* xg = (const float*)scratch;
      {
        float* sp = (float*)scratch;
        const float* xr = x + n * {{XRN}} + g * {{ICG}} * {{XRC}};
        int32_t d, h, w, c;
        {{#copy_pads}}memset(sp, 0, sizeof(float) * {{PAD_ELEMS}});
        {{/copy_pads}}for (d = 0; d < {{RID}}; ++d)
          for (h = 0; h < {{RIH}}; ++h)
{{^copy_rows}}            for (w = 0; w < {{RIW}}; ++w)
              for (c = 0; c < {{PCN}}; ++c)
{{/copy_rows}}{{#copy_rows}}            /* Row-major input: a row of one channel at a time (read in
             * order; channels one plane apart, at 4 KiB, fell in one L1
             * set), the row's pixels of the copy staying in L1. */
            for (c = 0; c < {{PCN}}; ++c)
              for (w = 0; w < {{RIW}}; ++w)
{{/copy_rows}}                sp[(((d + {{RPD}}) * {{IH}} + h + {{RPH}}) * {{IW}} + w + {{RPW}}) * {{PXS}} + c] =
                    xr[c * {{XRC}} + d * {{XRD}} + h * {{XRH}} + w * {{XRW}}];
      }
{{/padx}}{{^padx}}      const float* xg = x + n * {{XN}} + g * {{ICG}} * {{XC}};
{{/padx}}{{^bi}}      for (int32_t blk = 0; blk < {{NB}}; blk += KB) {
        const int32_t kb = {{NB}} - blk < KB ? {{NB}} - blk : KB;
        {{fn}}_BLOCK
{{/bi}}
        /* Row bands: all the output rows at once, or with a pool, per pooled
         * row the convolution rows its windows read that are not in the
         * scratch yet (which holds the last SR rows, row i at i % SR). */
{{#pool}}        float* sb = (float*)scratch + {{POOL_AT}};
        int32_t done = -1;
{{/pool}}        for (int32_t band = 0; band < {{NBAND}}; ++band) {
{{#pool}}          const int32_t first = band * {{PSH}} - {{PPH}}, last = first + ({{PKH}} - 1) * {{PDH}};
          const int32_t lo = (first > done + 1 ? first : done + 1) < 0 ? 0 : (first > done + 1 ? first : done + 1);
          const int32_t hi = last + 1 < {{OH}} ? last + 1 : {{OH}};
{{/pool}}{{^pool}}          const int32_t lo = band * {{SBR}}, hi = lo + {{SBR}} < {{OH}} ? lo + {{SBR}} : {{OH}};
{{/pool}}          for (int32_t ri = 0; ri < {{NR}}; ++ri) {
            const int32_t* R = rect[ri];
            const int32_t rh0 = R[4] > lo ? R[4] : lo, rh1 = R[5] < hi ? R[5] : hi;  /* its rows in this band */
            const int32_t cnt = (R[1] - R[0]) * (rh1 - rh0) * (R[9] - R[8]);
            int32_t od = R[0], oh = rh0, ow = R[8];
            for (int32_t i = 0; i < cnt; i += PB) {
              const int32_t m = cnt - i < PB ? cnt - i : PB;
              const int32_t row1 = ow + PB <= R[9];  /* all PB positions along this row */
              const float* xs[PB];
              int32_t yo[PB]{{#bi}}, xo[PB]{{/bi}};
              vt acc[PB][NJ];
              int32_t p, j;
              {{#unroll}}MLIP_VUNROLL {{/unroll}}for (p = 0; p < PB; ++p) {
                {{^bi}}xs[p] = xb + {{/bi}}{{#bi}}xo[p] = {{/bi}}(od * {{SD}} - {{PD}} + R[2] * {{DD}}) * {{XD}} + (oh * {{SH}} - {{PH}} + R[6] * {{DH}}) * {{XH}} +
                        (ow * {{SW}} - {{PW}} + R[10] * {{DW}}) * {{XW}};
                yo[p] = {{#pool}}((oh % {{SR}}) * {{OW}} + ow) * {{MB}}{{/pool}}{{^pool}}od * {{YD}} + (oh - lo) * {{YH}} + ow * {{YW}}{{/pool}};
{{^bi}}                {{#unroll}}MLIP_VUNROLL {{/unroll}}for (j = 0; j < NJ; ++j) acc[p][j] = (vt){0};
{{/bi}}                if (p + 1 < m || p + 1 == PB) {  /* the next position (past the tile: the next tile's first) */
                  if (++ow == R[9]) {
                    ow = R[8];
                    if (++oh == rh1) {
                      oh = rh0;
                      ++od;
                    }
                  }
                }
              }
{{#bi}}              /* Depthwise, every block at these positions in turn: each
               * pixel's channels are read and written front to back. */
              for (int32_t blk = 0; blk < {{NB}}; blk += KB) {
                const int32_t kb = {{NB}} - blk < KB ? {{NB}} - blk : KB;
                {{fn}}_BLOCK
                for (p = 0; p < PB; ++p) {
                  xs[p] = xb + xo[p];
                  for (j = 0; j < NJ; ++j) acc[p][j] = (vt){0};
                }
{{/bi}}              /* KB blocks at once (their weights one WBLOCK apart), or the
               * last one alone. */
#if {{fn}}_HX
              {{fn}}_hx(xs, wb, R, ri, row1, kb == KB, &acc[0][0]);
#else
              if (kb == KB) {
                {{fn}}_RUN(NJ)
              } else {
                {{fn}}_RUN(NV)
              }
#endif
              for (int32_t kk = 0; kk < kb; ++kk) {
                /* Block blk + kk: its channels, bias, outputs and residual;
                 * its sums are acc[p][kk * NV + j]. */
                const int32_t nqk = {{OCG}} - (blk + kk) * {{MB}} < {{MB}} ? {{OCG}} - (blk + kk) * {{MB}} : {{MB}};
                {{#has_bias}}const float* bbk = bb + kk * {{MB}};
                {{/has_bias}}float* ybk = yb + kk * {{MB}} * {{YC}};
                {{#has_res}}const float* rbk = rb + kk * {{MB}} * {{YC}};
                {{/has_res}}(void)nqk;
                (void)ybk; /* a pool's rows go to the scratch */
{{#act_lanes}}#if MLIP_VW_{{MB}} > 1 && !defined(__ARM_FEATURE_MVE)
                if ({{#pool}}1{{/pool}}{{^pool}}{{YC}} == 1{{/pool}} && {{#padded}}nqk{{/padded}}{{^padded}}{{MB}}{{/padded}} == {{MB}}) {
                  /* Contiguous outputs and a sigmoid or SiLU: the whole tile's
                   * vectors (positions past m: their sums, unused) through
                   * mlip__ct_sigmoid_{{MB}}, MLIP__CT_G at a time. Every
                   * residual element is read before any output is written. */
                  vt av[(PB * NV + MLIP__CT_G - 1) / MLIP__CT_G * MLIP__CT_G];
                  int32_t i;
                  for (i = PB * NV; i < (int32_t)(sizeof av / sizeof av[0]); ++i) av[i] = (vt){0};
                  {{#unroll}}MLIP_VUNROLL {{/unroll}}for (p = 0; p < PB; ++p) {
                    {{#unroll}}MLIP_VUNROLL {{/unroll}}for (j = 0; j < NV; ++j) {
                      vt v = acc[p][kk * NV + j];
                      if (p < m) {
{{#has_bias}}                      v = v + MLIP_VLOAD_{{MB}}(bbk + j * VW);
{{/has_bias}}{{#has_res}}                      v = v + MLIP_VLOAD_{{MB}}(rbk + yo[p] + j * VW);
{{/has_res}}                    }
                      av[p * NV + j] = v;
                    }
                  }
                  for (i = 0; i < (int32_t)(sizeof av / sizeof av[0]); i += MLIP__CT_G) mlip__ct_sigmoid_{{MB}}(av + i, {{act_silu}});
                  for (p = 0; p < m; ++p)
                    for (j = 0; j < NV; ++j) MLIP_VSTORE_{{MB}}({{#pool}}sb + kk * {{SRB}}{{/pool}}{{^pool}}ybk{{/pool}} + yo[p] + j * VW, av[p * NV + j]);
                } else
#endif
{{/act_lanes}}              for (p = 0; p < m; ++p) {
                  float t[{{MB}}];
                  const int32_t nt = {{#padded}}nqk{{/padded}}{{^padded}}{{MB}}{{/padded}};
                  float* yp = {{#pool}}sb + kk * {{SRB}}{{/pool}}{{^pool}}ybk{{/pool}} + yo[p];
                  int32_t q;
                  if ({{#pool}}1{{/pool}}{{^pool}}{{YC}} == 1{{/pool}} && nt == {{MB}}) {
                    /* The block's outputs are contiguous: the sums plus the
                     * bias and residual (lane by lane as below) and a
                     * piecewise-linear activation as vectors, the others in
                     * place. (Through t the compiler split the accumulators
                     * into scalars and applied the activation lane by lane.) */
                    for (j = 0; j < NV; ++j) {
                      vt v = acc[p][kk * NV + j];
{{#has_bias}}                    v = v + MLIP_VLOAD_{{MB}}(bbk + j * VW);
{{/has_bias}}{{#has_res}}                    v = v + MLIP_VLOAD_{{MB}}(rbk + yo[p] + j * VW);
{{/has_res}}{{#has_act_vector}}#if MLIP_VW_{{MB}} > 1 && !defined(__ARM_FEATURE_MVE)
                      {{act_vector}}
#endif
{{/has_act_vector}}                    MLIP_VSTORE_{{MB}}(yp + j * VW, v);
                    }
{{#has_act_block}}{{#has_act_vector}}#if MLIP_VW_{{MB}} == 1 || defined(__ARM_FEATURE_MVE)
{{/has_act_vector}}                  {
                      float* const t = yp; /* the activation's operand: the outputs in place */
                      {{act_block}}
                    }
{{#has_act_vector}}#endif
{{/has_act_vector}}{{/has_act_block}}                  continue;
                  }
                  memcpy(t, &acc[p][kk * NV], sizeof t);
                  for (q = 0; q < nt; ++q) {
                    float v = t[q]{{#has_bias}} + bbk[q]{{/has_bias}};
    {{#has_res}}                v += rbk[yo[p] + q * {{YC}}];
    {{/has_res}}                t[q] = v;
                  }
                  {{act_block}}
                  for (q = 0; q < nt; ++q) yp[q * {{#pool}}1{{/pool}}{{^pool}}{{YC}}{{/pool}}] = t[q];
                }
              }
{{#bi}}                (void)nq;
              }
{{/bi}}            }
          }
{{#stage}}          {
            /* The band's outputs from the stage to y, VW channels at a time:
             * VW positions by VW channels transposed (values moved,
             * mlip/kvec.h), each channel's VW positions one vector of its
             * rows, contiguous in y; the positions past a multiple of VW and
             * the channels past the stage's last whole vector one by one.
             * (One float at a time, the strided reads took 40% of
             * SqueezeNet's 16 -> 64 1x1 layers on 55 x 55.) Where the planes
             * are a multiple of 4 KiB apart, VW channels' lines fall in one
             * L1 set (MobileViT's 1x1 layer on 32 x 32 took 13% longer), so
             * there one channel's rows, contiguous in y, at a time, each line
             * written whole. */
            enum { SVW = MLIP_VW_16 };
            const float* sp = (const float*)scratch + {{STAGE_AT}};
            const int32_t c0 = {{#bi}}0{{/bi}}{{^bi}}blk * {{MB}}{{/bi}};
            const int32_t nc = {{#bi}}{{OCG}}{{/bi}}{{^bi}}{{OCG}} - c0 < kb * {{MB}} ? {{OCG}} - c0 : kb * {{MB}}{{/bi}};
            const int32_t np = (hi - lo) * {{OW}};
            float* yr = y + n * {{YRN}} + (g * {{OCG}} + c0) * {{YRC}} + lo * {{YRH}};
            int32_t c = 0;
            for (; {{YRC}} % 1024 != 0 && c < nc && c + SVW <= {{SCH}}; c += SVW) { /* a whole vector of each position's row */
              int32_t q = 0, e;
              for (; q + SVW <= np; q += SVW) {
                MLIP_VT_16 v[SVW];
                for (e = 0; e < SVW; ++e) v[e] = MLIP_VLOAD_16(sp + (q + e) * {{SCH}} + c);
                MLIP_VTRANSPOSE_16(v);
                for (e = 0; e < SVW && c + e < nc; ++e) MLIP_VSTORE_16(yr + (c + e) * {{YRC}} + q, v[e]);
              }
              /* By pointers stepped per position: with q * SCH in the index,
               * GCC 12 (AArch64, -O2) took the loop for one that could run
               * until the product overflowed and warned of it
               * (-Waggressive-loop-optimizations, an error with -Werror). */
              {
                const float* sq = sp + q * {{SCH}} + c;
                float* yq = yr + c * {{YRC}} + q;
                for (; q < np; ++q, sq += {{SCH}}, ++yq)
                  for (e = 0; e < SVW && c + e < nc; ++e) yq[e * {{YRC}}] = sq[e];
              }
            }
            for (; c < nc; ++c)
              for (int32_t q = 0; q < np; ++q) yr[c * {{YRC}} + q] = sp[q * {{SCH}} + c];
          }
{{/stage}}{{#pool}}          if (hi > done + 1) done = hi - 1;
          /* The pooled row: per position, the first tap inside, then every
           * later one that is greater or a NaN (ops::eval_MaxPool), all lanes
           * at once. */
          for (int32_t kk = 0; kk < kb; ++kk) {
            /* Block blk + kk: its rows in the scratch, its outputs. */
            const float* sbk = sb + kk * {{SRB}};
            float* ybk = yb + kk * {{MB}} * {{YC}};
            const int32_t nqk = {{OCG}} - (blk + kk) * {{MB}} < {{MB}} ? {{OCG}} - (blk + kk) * {{MB}} : {{MB}};
            (void)nqk;
            for (int32_t pw = 0; pw < {{POW}}; ++pw) {
#if MLIP_VW_{{MB}} > 1 && !defined(__ARM_FEATURE_MVE)
              /* The maxima in vector registers, a compare and a blend per
               * vector and tap. (Through a float array, memcpy'd to and from
               * vectors, each tap's blend waited for the last one's store to
               * reach the next load: the pool of a stem of 9 taps took 35 to
               * 40% of its layer, crnn_bilstm's.) */
              typedef int32_t vmask __attribute__((vector_size(sizeof(vt))));
              vt best[NV];
              int32_t j, any = 0;
              for (j = 0; j < NV; ++j) best[j] = (vt){0} - INFINITY;
              for (int32_t kh = 0; kh < {{PKH}}; ++kh) {
                const int32_t ih = first + kh * {{PDH}};
                if (ih < 0 || ih >= {{OH}}) continue;
                for (int32_t kw = 0; kw < {{PKW}}; ++kw) {
                  const int32_t iw = pw * {{PSW}} - {{PPW}} + kw * {{PDW}};
                  const float* sp;
                  if (iw < 0 || iw >= {{OW}}) continue;
                  sp = sbk + ((ih % {{SR}}) * {{OW}} + iw) * {{MB}};
                  for (j = 0; j < NV; ++j) {
                    const vt a = MLIP_VLOAD_{{MB}}(sp + j * VW), b = best[j];
                    const vmask m = any ? (a > b) | (a != a) : (vmask){0} - 1;
                    vmask ai, bi;
                    memcpy(&ai, &a, sizeof ai);
                    memcpy(&bi, &b, sizeof bi);
                    ai = (ai & m) | (bi & ~m);
                    memcpy(&best[j], &ai, sizeof ai);
                  }
                  any = 1;
                }
              }
              if ({{YC}} == 1 && {{#padded}}nqk{{/padded}}{{^padded}}{{MB}}{{/padded}} == {{MB}}) {
                for (j = 0; j < NV; ++j) MLIP_VSTORE_{{MB}}(ybk + band * {{YH}} + pw * {{YW}} + j * VW, best[j]);
              } else {
                float t[{{MB}}];
                int32_t q;
                memcpy(t, best, sizeof t);
                for (q = 0; q < {{#padded}}nqk{{/padded}}{{^padded}}{{MB}}{{/padded}}; ++q) ybk[band * {{YH}} + pw * {{YW}} + q * {{YC}}] = t[q];
              }
#else
              float best[{{MB}}];
              int32_t q, any = 0;
              for (q = 0; q < {{MB}}; ++q) best[q] = -INFINITY;
              for (int32_t kh = 0; kh < {{PKH}}; ++kh) {
                const int32_t ih = first + kh * {{PDH}};
                if (ih < 0 || ih >= {{OH}}) continue;
                for (int32_t kw = 0; kw < {{PKW}}; ++kw) {
                  const int32_t iw = pw * {{PSW}} - {{PPW}} + kw * {{PDW}};
                  const float* sp;
                  if (iw < 0 || iw >= {{OW}}) continue;
                  sp = sbk + ((ih % {{SR}}) * {{OW}} + iw) * {{MB}};
                  if (!any)
                    memcpy(best, sp, sizeof best);
                  else
                    for (q = 0; q < {{MB}}; ++q) best[q] = sp[q] > best[q] || sp[q] != sp[q] ? sp[q] : best[q];
                  any = 1;
                }
              }
              for (q = 0; q < {{#padded}}nqk{{/padded}}{{^padded}}{{MB}}{{/padded}}; ++q) ybk[band * {{YH}} + pw * {{YW}} + q * {{YC}}] = best[q];
#endif
            }
          }
{{/pool}}        }
{{^bi}}        (void)nq;
      }
{{/bi}}    }
  }
#undef {{fn}}_TAPS
#undef {{fn}}_XG
#undef {{fn}}_XR
#undef {{fn}}_RUN
#undef {{fn}}_BLOCK
#undef {{fn}}_ENUM
#undef {{fn}}_HX
}
