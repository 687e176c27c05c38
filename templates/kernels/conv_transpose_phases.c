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
 * is tested. The weights are packed at compile time per group and phase as
 * [block of 16 output channels][tap of the phase][ic][16] (lanes past the
 * group's channels 0: a tap's weights one run, read front to back).
 * A tile is PQ positions of a rectangle times NJ blocks of 16 channels:
 * for every input channel of the group, then every tap in (kd, kh, kw)
 * order, it loads the NJ weight vectors once and adds x * w (MLIP_VFMAS,
 * mlip_fmaf per lane) into each position's accumulators, from 0; then the
 * bias. Each output thus sums the reference's terms in the reference's
 * order (conv_transpose.c, ops/conv_transpose.cpp): the same bits. The
 * blocks go NG at a time (their weights stay in the second-level cache
 * over every rectangle), in three tile shapes: the NG blocks by as many
 * positions as the registers hold (AVX-512: 4 x 6, 2 x 12, 1 x 14), 4
 * positions (what is left of a rectangle) or one (a 1x1 input: each
 * output one tap, a matrix-vector product). */
#define {{fn}}_TILE(NAME, PQ_, NJ_)                                                                                  \
  static void NAME(const float* restrict xg, const float* restrict wq, int32_t icstride, const int32_t* restrict tap, \
                   int32_t nt, const int32_t* restrict poff, const int32_t* restrict yoff, int32_t np, int32_t mb,    \
                   int32_t mend, {{#has_bias}}const float* restrict bg, {{/has_bias}}float* restrict yg) {                          \
    enum { PQ = PQ_, NJ = NJ_, VW = MLIP_VW_16, NV = 16 / MLIP_VW_16 };                                            \
    const float* wb[NJ];                                                                                           \
    MLIP_VT_16 acc[PQ][NJ][NV];                                                                                    \
    int32_t r, j, v;                                                                                               \
    /* blocks past mend repeat the last one; stored once */                                                        \
    for (j = 0; j < NJ; ++j) wb[j] = wq + (mb + j < mend ? mb + j : mend - 1) * {{ICG}} * icstride;                  \
    for (r = 0; r < PQ; ++r)                                                                                       \
      for (j = 0; j < NJ; ++j)                                                                                     \
        for (v = 0; v < NV; ++v) acc[r][j][v] = (MLIP_VT_16){0};                                                   \
    for (int32_t ic = 0; ic < {{ICG}}; ++ic) {                                                                     \
      const float* xc = xg + ic * {{ISIZE}};                                                                       \
      const int32_t wi = ic * 16;                                                                                  \
      for (int32_t t = 0; t < nt; ++t) {                                                                           \
        const float* xt = xc + tap[2 * t];                                                                         \
        MLIP_VT_16 w[NJ][NV];                                                                                      \
        for (j = 0; j < NJ; ++j)                                                                                   \
          for (v = 0; v < NV; ++v) w[j][v] = MLIP_VLOAD_16(wb[j] + wi + tap[2 * t + 1] + v * VW);                 \
        for (r = 0; r < PQ; ++r) {                                                                                 \
          const float xv = xt[poff[r]];                                                                            \
          for (j = 0; j < NJ; ++j)                                                                                 \
            for (v = 0; v < NV; ++v) acc[r][j][v] = MLIP_VFMAS_16(xv, w[j][v], acc[r][j][v]);                     \
        }                                                                                                          \
      }                                                                                                            \
    }                                                                                                              \
    /* channel by channel: a channel's positions lie in one or two rows of \
     * its plane (stores that walk the channels at one position would each \
     * touch another plane, all in one cache set where a plane is 4 KiB) */ \
    float tb[PQ][NJ * 16];                                                                                         \
    for (r = 0; r < PQ; ++r)                                                                                       \
      for (j = 0; j < NJ; ++j)                                                                                     \
        for (v = 0; v < NV; ++v) MLIP_VSTORE_16(tb[r] + j * 16 + v * VW, acc[r][j][v]);                           \
    for (j = 0; j < NJ * 16 && mb * 16 + j < mend * 16 && mb * 16 + j < {{OCG}}; ++j) {                            \
      const int32_t m = mb * 16 + j;                                                                               \
      float* ym = yg + m * {{OSIZE}};                                                                              \
      for (r = 0; r < np; ++r) ym[yoff[r]] = {{#has_bias}}tb[r][j] + bg[m]{{/has_bias}}{{^has_bias}}tb[r][j]{{/has_bias}}; \
    }                                                                                                              \
  }
/* Accumulator vectors a tile may hold: the registers less the weight
 * vectors and a broadcast. */
enum { {{fn}}_NV = 16 / MLIP_VW_16, {{fn}}_ACC = MLIP_VREGS >= 32 ? 24 : MLIP_VREGS - 4,
       {{fn}}_NG0 = MLIP_VREGS >= 32 && {{fn}}_NV == 1 ? 4 : 2, /* blocks whose weights one pass keeps */
       {{fn}}_NG = {{fn}}_NG0 > {{NBLK}} ? {{NBLK}} : {{fn}}_NG0,
       {{fn}}_NJA = {{fn}}_NV == 1 && MLIP_VREGS >= 32 ? {{fn}}_NG : 1,
       {{fn}}_PQA0 = {{fn}}_ACC / ({{fn}}_NJA * {{fn}}_NV), {{fn}}_PQA1 = {{fn}}_PQA0 < 1 ? 1 : {{fn}}_PQA0,
       {{fn}}_PQA = {{fn}}_PQA1 > 14 ? 14 : {{fn}}_PQA1,
       {{fn}}_PQB = {{fn}}_PQA < 4 ? {{fn}}_PQA : 4,
       {{fn}}_NJB0 = {{fn}}_ACC * 5 / 6 / ({{fn}}_PQB * {{fn}}_NV), {{fn}}_NJB1 = {{fn}}_NJB0 < 1 ? 1 : {{fn}}_NJB0,
       {{fn}}_NJB = {{fn}}_NJB1 > {{fn}}_NG ? {{fn}}_NG : {{fn}}_NJB1,
       {{fn}}_NJC0 = {{fn}}_ACC / {{fn}}_NV, {{fn}}_NJC1 = {{fn}}_NJC0 < 1 ? 1 : {{fn}}_NJC0,
       {{fn}}_NJC = {{fn}}_NJC1 > {{fn}}_NG ? {{fn}}_NG : {{fn}}_NJC1 };
{{fn}}_TILE({{fn}}_a, {{fn}}_PQA, {{fn}}_NJA)
{{fn}}_TILE({{fn}}_b, {{fn}}_PQB, {{fn}}_NJB)
{{fn}}_TILE({{fn}}_c, 1, {{fn}}_NJC)
#undef {{fn}}_TILE

static void {{fn}}(const float* restrict x, {{#has_bias}}const float* restrict b, {{/has_bias}}const float* restrict wp, float* restrict y) {
  /* per rectangle: the phase's weights (offset in a group's), floats per
   * input channel of a block (the phase's taps times 16), its taps (count, first in tap),
   * the phase (pd, ph, pw), and q0, q1 on each axis (d, h, w) */
  static const int32_t rect[{{NR}}][13] = {{rects}};
  /* per tap, two ints: the input offset (c_kd * IH + c_kh) * IW + c_kw,
   * and the offset of the tap's weights in a block, its place in the
   * phase times ICG * 16 */
  static const int32_t tap[{{NT}} * 2] = {{taps}};
  for (int32_t n = 0; n < {{N}}; ++n)
    for (int32_t grp = 0; grp < {{GROUPS}}; ++grp) {
      const float* xg = x + (n * {{C}} + grp * {{ICG}}) * {{ISIZE}};
      float* yg = y + (n * {{M}} + grp * {{OCG}}) * {{OSIZE}};
{{#has_bias}}
      const float* bg = b + grp * {{OCG}};
{{/has_bias}}
      for (int32_t mg = 0; mg < {{NBLK}}; mg += {{fn}}_NG) {
        const int32_t mend = mg + {{fn}}_NG < {{NBLK}} ? mg + {{fn}}_NG : {{NBLK}};
        for (int32_t ri = 0; ri < {{NR}}; ++ri) {
          const int32_t* rc = rect[ri];
          const float* wq = wp + grp * {{GWSIZE}} + rc[0];
          const int32_t nh = rc[10] - rc[9], nw = rc[12] - rc[11], np = (rc[8] - rc[7]) * nh * nw;
          for (int32_t i0 = 0; i0 < np;) {
            /* the tile's shape: as many positions as are left, up to PQA
             * (from two thirds of PQA up: the weights once for all) */
            const int32_t left = np - i0;
            const int32_t width = 3 * left >= 2 * {{fn}}_PQA ? {{fn}}_PQA : left >= 2 ? {{fn}}_PQB : 1;
            const int32_t pq = width < left ? width : left;
            int32_t poff[{{fn}}_PQA > 4 ? {{fn}}_PQA : 4], yoff[{{fn}}_PQA > 4 ? {{fn}}_PQA : 4];
            for (int32_t r = 0; r < width; ++r) {
              const int32_t i = i0 + (r < pq ? r : pq - 1); /* positions past the end repeat the last one */
              const int32_t qd = rc[7] + i / (nh * nw), qh = rc[9] + i / nw % nh, qw = rc[11] + i % nw;
              poff[r] = (qd * {{IH}} + qh) * {{IW}} + qw;
              yoff[r] = ((rc[4] + {{SD}} * qd) * {{OH}} + rc[5] + {{SH}} * qh) * {{OW}} + rc[6] + {{SW}} * qw;
            }
            if (width == {{fn}}_PQA)
              for (int32_t mb = mg; mb < mend; mb += {{fn}}_NJA)
                {{fn}}_a(xg, wq, rc[1], tap + 2 * rc[3], rc[2], poff, yoff, pq, mb, mend, {{#has_bias}}bg, {{/has_bias}}yg);
            else if (width == {{fn}}_PQB)
              for (int32_t mb = mg; mb < mend; mb += {{fn}}_NJB)
                {{fn}}_b(xg, wq, rc[1], tap + 2 * rc[3], rc[2], poff, yoff, pq, mb, mend, {{#has_bias}}bg, {{/has_bias}}yg);
            else
              for (int32_t mb = mg; mb < mend; mb += {{fn}}_NJC)
                {{fn}}_c(xg, wq, rc[1], tap + 2 * rc[3], rc[2], poff, yoff, pq, mb, mend, {{#has_bias}}bg, {{/has_bias}}yg);
            i0 += pq;
          }
        }
      }
    }
}
