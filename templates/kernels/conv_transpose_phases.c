/* ConvTranspose with constant weights, output channels in vector lanes:
 * x [N, C, ID, IH, IW], y [N, M, OD, OH, OW] (1-D and 2-D have size-1
 * leading axes).
 *
 * Stride phases: output o on an axis receives tap k from input
 * (o + P - k * D) / S when that divides, so the outputs of one phase
 * (o mod S on every axis) take the same taps, and a phase is a dense
 * convolution: output q of the phase reads input q + c_k for its tap k.
 * The code generator splits each phase into rectangles of positions whose
 * taps all fall inside the input (rect: the phase's weights, its taps' run
 * in tap, the phase and the q ranges), so no tap reads outside x and none
 * is tested. The weights are packed at compile time per group and phase,
 * a block of 16 output channels at a time (lanes past the group's
 * channels 0), as [ic][tap of the phase][16] where the rectangles with
 * every tap hold 3/4 of the positions (read front to back), else as
 * [tap][ic][16] (a rectangle with some taps reads whole runs).
 * A tile is PQ positions of a rectangle times NJ blocks of 16 channels:
 * for every input channel of the group, then every tap in (kd, kh, kw)
 * order, it adds x * w (MLIP_VFMAS, mlip_fmaf per lane) into each
 * position's accumulators, from 0; the bias is added as the results go
 * out. Each output thus sums the reference's terms in the reference's
 * order (conv_transpose.c, ops/conv_transpose.cpp): the same bits. The
 * blocks go NG at a time; for each band of output rows every rectangle's
 * positions in the band go through the tiles, whose results go into a
 * band buffer with the channels last (whole vector stores), and the band
 * goes out to y transposed, a vector of positions per channel (stores
 * straight from a tile, one per channel plane, all fell in one set of the
 * first-level cache where a plane is a multiple of 4 KiB). */
/* One step of a tile: an input channel's tap, x at xt and the weights at
 * wt in each block, into every position and block. */
#define {{fn}}_STEP(xt, wt)                                                                                        \
  do {                                                                                                             \
    if (HOLDW) { /* the weights held, the positions broadcast one by one */                                        \
      MLIP_VT_16 w[NJ][NV];                                                                                        \
      for (j = 0; j < NJ; ++j)                                                                                     \
        for (v = 0; v < NV; ++v) {                                                                                 \
          w[j][v] = MLIP_VLOAD_16(wb[j] + (wt) + v * VW);                                                        \
          MLIP_VKEEP(w[j][v]);                                                                                     \
        }                                                                                                          \
      for (r = 0; r < PQ; ++r) {                                                                                   \
        const float xv = (xt)[po[r]];                                                                              \
        for (j = 0; j < NJ; ++j)                                                                                   \
          for (v = 0; v < NV; ++v) acc[r][j][v] = MLIP_VFMAS_16(xv, w[j][v], acc[r][j][v]);                        \
      }                                                                                                            \
    } else { /* the broadcasts held, each weight vector loaded once for them */                                    \
      float xv[PQ];                                                                                                \
      for (r = 0; r < PQ; ++r) xv[r] = (xt)[po[r]];                                                                \
      for (j = 0; j < NJ; ++j)                                                                                     \
        for (v = 0; v < NV; ++v) {                                                                                 \
          MLIP_VT_16 w = MLIP_VLOAD_16(wb[j] + (wt) + v * VW);                                                     \
          MLIP_VKEEP(w); /* one load for the PQ positions (mlip/kvec.h) */                                         \
          for (r = 0; r < PQ; ++r) acc[r][j][v] = MLIP_VFMAS_16(xv[r], w, acc[r][j][v]);                           \
        }                                                                                                          \
    }                                                                                                              \
  } while (0)
#define {{fn}}_TILE(NAME, PQ_, NJ_, HOLDW_)                                                                                 \
  static void NAME(const float* restrict xq, const float* restrict wq, int32_t wblock, int32_t wic,                 \
                   const int32_t* restrict tap, int32_t nt, const int32_t* restrict poff, const int32_t* restrict roff, \
                   int32_t np, int32_t mb, int32_t mend, float* restrict rq) {                                      \
    enum { PQ = PQ_, NJ = NJ_, HOLDW = HOLDW_, VW = MLIP_VW_16, NV = 16 / MLIP_VW_16 };                                \
    const float* wb[NJ];                                                                                           \
    intptr_t po[PQ];                                                                                               \
    MLIP_VT_16 acc[PQ][NJ][NV];                                                                                    \
    int32_t r, j, v;                                                                                               \
    /* blocks past mend repeat the last one, positions past np the last one; stored once */                        \
    for (j = 0; j < NJ; ++j) wb[j] = wq + (mb + j < mend ? mb + j : mend - 1) * wblock;                            \
    for (r = 0; r < PQ; ++r) po[r] = poff[r];                                                                      \
    for (r = 0; r < PQ; ++r)                                                                                       \
      for (j = 0; j < NJ; ++j)                                                                                     \
        for (v = 0; v < NV; ++v) acc[r][j][v] = (MLIP_VT_16){0};                                                   \
    if (PQ > 1 && nt == 1) /* one tap (kernel 2, stride 2): no loop over the taps */                                \
      for (int32_t ic = 0; ic < {{ICG}}; ++ic) {                                                                   \
        const float* xt = xq + ic * {{ISIZE}} + tap[0];                                                            \
        const int32_t wt = ic * wic + tap[1];                                                                      \
        {{fn}}_STEP(xt, wt);                                                                                       \
      }                                                                                                            \
    else                                                                                                           \
      for (int32_t ic = 0; ic < {{ICG}}; ++ic) {                                                                   \
        const float* xc = xq + ic * {{ISIZE}};                                                                     \
        const int32_t wi = ic * wic;                                                                               \
        for (int32_t t = 0; t < nt; ++t) {                                                                         \
          const float* xt = xc + tap[2 * t];                                                                       \
          const int32_t wt = wi + tap[2 * t + 1];                                                                  \
          {{fn}}_STEP(xt, wt);                                                                                     \
        }                                                                                                          \
      }                                                                                                            \
    /* into the row buffer, channels last: whole vectors */                                                        \
    for (r = 0; r < np; ++r)                                                                                       \
      for (j = 0; j < NJ && mb + j < mend; ++j)                                                                    \
        for (v = 0; v < NV; ++v) MLIP_VSTORE_16(rq + roff[r] + j * 16 + v * VW, acc[r][j][v]);                    \
  }
/* The tiles (mlip/kvec.h's MLIP_VTILE_* rule, matmul_packed.c's): PQA
 * positions (3 on 16 registers, 4 on 32) by NJA blocks, what the registers
 * hold beside the PQA broadcasts and one weight vector (MLIP_VKEEP); 2
 * and 1 positions by as many of the NG blocks for what is left of a row.
 * NG: the blocks of a pass over the rows, the tile's blocks evened over
 * NBLK; RB: floats per position in the row buffer. */
enum { {{fn}}_NV = 16 / MLIP_VW_16,
       /* (one position where a block alone fills the registers: width 1) */
       {{fn}}_PQA0 = (MLIP_VREGS - 2) / {{fn}}_NV < 1 ? 1 : (MLIP_VREGS - 2) / {{fn}}_NV,
       {{fn}}_PQA = MLIP_VTILE_ROWS < {{fn}}_PQA0 ? MLIP_VTILE_ROWS : {{fn}}_PQA0,
       {{fn}}_NG0 = MLIP_VTILE_EVEN(MLIP_VTILE_BLOCKS({{fn}}_PQA, {{fn}}_NV), {{NBLK}}),
       {{fn}}_NG = {{fn}}_NG0 < {{NGMAX}} ? {{fn}}_NG0 : {{NGMAX}},
       {{fn}}_NJA = {{fn}}_NG, {{fn}}_RB = {{fn}}_NG * 16,
       /* output rows per band: a multiple of SH, the band's buffer within
        * BANDF floats where SH rows fit, no more than the rows */
       {{fn}}_BH0 = {{BANDF}} / ({{OW}} * {{fn}}_RB) / {{SH}} * {{SH}}, {{fn}}_BH1 = {{fn}}_BH0 < {{SH}} ? {{SH}} : {{fn}}_BH0,
       {{fn}}_BH = {{fn}}_BH1 < {{OHR}} ? {{fn}}_BH1 : {{OHR}},
       {{fn}}_NJB = MLIP_VTILE_BLOCKS(2, {{fn}}_NV) < {{fn}}_NG ? MLIP_VTILE_BLOCKS(2, {{fn}}_NV) : {{fn}}_NG,
       {{fn}}_NJC = MLIP_VTILE_BLOCKS(1, {{fn}}_NV) < {{fn}}_NG ? MLIP_VTILE_BLOCKS(1, {{fn}}_NV) : {{fn}}_NG,
       /* a pass of one block: PQW positions by it, its weight vectors held
        * (AVX2: 6 x 2 accumulators, not 3 x 2 whose chains the
        * multiply-add's latency would stall), where that is more than PQA */
       {{fn}}_PQW0 = (MLIP_VREGS - {{fn}}_NV - 1) / {{fn}}_NV, {{fn}}_PQW = {{fn}}_PQW0 > 14 ? 14 : {{fn}}_PQW0,
       {{fn}}_W = {{fn}}_PQW > {{fn}}_PQA,
       {{fn}}_PMAX = {{fn}}_PQW > {{fn}}_PQA && {{fn}}_PQW > 2 ? {{fn}}_PQW : {{fn}}_PQA > 2 ? {{fn}}_PQA : 2 };
{{fn}}_TILE({{fn}}_a, {{fn}}_PQA, {{fn}}_NJA, 0)
{{fn}}_TILE({{fn}}_w, {{fn}}_W ? {{fn}}_PQW : 1, 1, 1)
{{fn}}_TILE({{fn}}_b, 2, {{fn}}_NJB, 0)
{{fn}}_TILE({{fn}}_c, 1, {{fn}}_NJC, 0)
#undef {{fn}}_TILE
#undef {{fn}}_STEP

static void {{fn}}(const float* restrict x, {{#has_bias}}const float* restrict b, {{/has_bias}}const float* restrict wp, float* restrict y, void* scratch) {
  /* per rectangle: the phase's weights (offset in a group's), floats
   * between the input channels of a block and between blocks, its taps
   * (count, first in tap), the phase (pd, ph, pw), and q0, q1 on each axis
   * (d, h, w) */
  static const int32_t rect[{{NR}}][14] = {{rects}};
  /* per tap, two ints: the input offset (c_kd * IH + c_kh) * IW + c_kw,
   * and the offset of the tap's weights in an input channel's */
  static const int32_t tap[{{NT}} * 2] = {{taps}};
  float* rb = (float*)scratch; /* [BH][OW][RB]: a band of output rows of the pass's channels */
  for (int32_t n = 0; n < {{N}}; ++n)
    for (int32_t grp = 0; grp < {{GROUPS}}; ++grp) {
      const float* xg = x + (n * {{C}} + grp * {{ICG}}) * {{ISIZE}};
      float* yg = y + (n * {{M}} + grp * {{OCG}}) * {{OSIZE}};
{{#has_bias}}
      const float* bg = b + grp * {{OCG}};
{{/has_bias}}
      for (int32_t mg = 0; mg < {{NBLK}}; mg += {{fn}}_NG) {
        const int32_t mend = mg + {{fn}}_NG < {{NBLK}} ? mg + {{fn}}_NG : {{NBLK}};
        const int one = {{fn}}_W && mend - mg == 1; /* the pass's tile: w, else a */
        for (int32_t od = 0; od < {{OD}}; ++od)
          for (int32_t oh0 = 0; oh0 < {{OH}}; oh0 += {{fn}}_BH) {
            const int32_t oh1 = oh0 + {{fn}}_BH < {{OH}} ? oh0 + {{fn}}_BH : {{OH}};
            /* every position of the band lies in one rectangle (the runs
             * of q cover each phase): the band is whole */
            for (int32_t ri = 0; ri < {{NR}}; ++ri) {
              const int32_t* rc = rect[ri];
              if (od < rc[5] || (od - rc[5]) % {{SD}} != 0) continue;
              const int32_t qd = (od - rc[5]) / {{SD}};
              const int32_t qh0 = rc[10] > oh0 / {{SH}} ? rc[10] : oh0 / {{SH}};
              const int32_t qh1 = rc[11] < oh1 / {{SH}} + 1 ? rc[11] : oh1 / {{SH}} + 1;
              if (qd < rc[8] || qd >= rc[9]) continue;
              const float* wq = wp + grp * {{GWSIZE}} + rc[0];
              const int32_t nw = rc[13] - rc[12];
              /* rows of the phase in the band: rc[6] + SH * qh < oh1 */
              const int32_t nh = qh1 - qh0 - (qh1 > qh0 && rc[6] + {{SH}} * (qh1 - 1) >= oh1 ? 1 : 0);
              const int32_t np = nh > 0 ? nh * nw : 0;
              for (int32_t i0 = 0; i0 < np;) {
                /* the tile: PQA positions (3 of 4 on 16 registers: 2 + 2), then 2 or 1 */
                const int32_t left = np - i0, pqa = one ? {{fn}}_PQW : {{fn}}_PQA;
                const int32_t width = left == 4 && pqa == 3 ? 2 : left >= 3 ? pqa : left;
                const int32_t pq = width < left ? width : left;
                int32_t poff[{{fn}}_PMAX], roff[{{fn}}_PMAX];
                for (int32_t r = 0; r < width; ++r) {
                  const int32_t i = i0 + (r < pq ? r : pq - 1); /* positions past the end repeat the last one */
                  const int32_t qh = qh0 + i / nw, qw = rc[12] + i % nw;
                  poff[r] = (qd * {{IH}} + qh) * {{IW}} + qw;
                  roff[r] = ((rc[6] + {{SH}} * qh - oh0) * {{OW}} + rc[7] + {{SW}} * qw) * {{fn}}_RB;
                }
                if (one && width == {{fn}}_PQW)
                  {{fn}}_w(xg, wq, rc[2], rc[1], tap + 2 * rc[4], rc[3], poff, roff, pq, mg, mend, rb);
                else if (width == {{fn}}_PQA)
                  for (int32_t mb = mg; mb < mend; mb += {{fn}}_NJA)
                    {{fn}}_a(xg, wq, rc[2], rc[1], tap + 2 * rc[4], rc[3], poff, roff, pq, mb, mend, rb + (mb - mg) * 16);
                else if (width == 2)
                  for (int32_t mb = mg; mb < mend; mb += {{fn}}_NJB)
                    {{fn}}_b(xg, wq, rc[2], rc[1], tap + 2 * rc[4], rc[3], poff, roff, pq, mb, mend, rb + (mb - mg) * 16);
                else
                  for (int32_t mb = mg; mb < mend; mb += {{fn}}_NJC)
                    {{fn}}_c(xg, wq, rc[2], rc[1], tap + 2 * rc[4], rc[3], poff, roff, pq, mb, mend, rb + (mb - mg) * 16);
                i0 += pq;
              }
            }
            /* the band out: VW positions by VW channels transposed (values
             * moved), each channel's VW positions one vector of its plane;
             * then the bias; the positions past a multiple of VW one by one */
            {
              enum { VW = MLIP_VW_16 };
              const int32_t np = (oh1 - oh0) * {{OW}}, m0 = mg * 16;
              const int32_t nc = (mend - mg) * 16 < {{OCG}} - m0 ? (mend - mg) * 16 : {{OCG}} - m0;
              float* yb = yg + m0 * {{OSIZE}} + (od * {{OH}} + oh0) * {{OW}};
              int32_t p = 0;
              for (; p + VW <= np; p += VW)
                for (int32_t j0 = 0; j0 < nc; j0 += VW) {
                  MLIP_VT_16 v[VW];
                  int32_t c;
                  for (c = 0; c < VW; ++c) v[c] = MLIP_VLOAD_16(rb + (p + c) * {{fn}}_RB + j0);
                  MLIP_VTRANSPOSE_16(v);
                  for (c = 0; c < VW && j0 + c < nc; ++c) {
{{#has_bias}}
                    v[c] = v[c] + bg[m0 + j0 + c];
{{/has_bias}}
                    MLIP_VSTORE_16(yb + (j0 + c) * {{OSIZE}} + p, v[c]);
                  }
                }
              for (int32_t e = 0; e < VW - 1 && p + e < np; ++e) /* fewer than VW (a bound GCC sees) */
                for (int32_t j = 0; j < nc; ++j)
                  yb[j * {{OSIZE}} + p + e] = {{#has_bias}}rb[(p + e) * {{fn}}_RB + j] + bg[m0 + j]{{/has_bias}}{{^has_bias}}rb[(p + e) * {{fn}}_RB + j]{{/has_bias}};
            }
          }
      }
    }
}
