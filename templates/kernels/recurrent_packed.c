/* {{#rnn}}RNN{{/rnn}}{{#gru}}GRU{{/gru}}{{#lstm}}LSTM{{/lstm}} with constant W and R, packed at compile time per direction and gate as
 * [HP / 16 blocks][I or H][16] (HP: H rounded up to 16, the padding lanes 0).
 * R's blocks are grouped by 4, or 2 for a batch ({{fn}}_gemv). The same chains of fused
 * multiply-adds as the reference kernel (recurrent.c, ops/recurrent.cpp),
 * in the same order, so the same bits (MLIP_VFMAS: mlip_fmaf per lane):
 *   s = Wb_j + Rb_j, then fma over x in index order: for every step at
 *                        once before the recurrence, a GEMM over the rows
 *                        (t, b) whose accumulators start at the bias sums;
 *   then fma over h in index order: per step, a GEMV over the gate rows
 *                        for the batch's sequences still running, side by
 *                        side, whose accumulators start at the step's
 *                        projections (GRU's linear_before_reset gate: its
 *                        own chain from Rb_j, the projection from Wb_j);
 *   [+ P_j * c], clip, activation, state update: one pass per gate over
 *                        the H rows, a sigmoid or tanh by mlip/kmath_f.h's
 *                        array forms (loops the compiler vectorizes; the
 *                        bits of mlip_sigmoid_f and mlip_tanh_f).
 * The scratch holds the projections of one direction ([T * BATCH][G * HP]),
 * the gate sums [BATCH][G * HP], the states h, the cell states c or GRU's
 * r * h [BATCH][HP], the projections' starting values [G * HP] and the
 * linear_before_reset gate's [HP]. */
static float {{fn}}_act(int32_t k, float v) {
  switch (k) {
{{#acts}}
    case {{k}}: { {{body}} }
{{/acts}}
    default: return v;
  }
}

/* Activation k over n floats in place. */
static void {{fn}}_act_n(int32_t k, float* restrict p, int32_t n) {
  switch (k) {
{{#acts}}
    case {{k}}: {
{{#vector}}
      {{vec_fn}}(p, n);
{{/vector}}
{{^vector}}
      int32_t i;
      for (i = 0; i < n; ++i) p[i] = {{fn}}_act({{k}}, p[i]);
{{/vector}}
      return;
    }
{{/acts}}
    default: (void){{fn}}_act; return;
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

typedef MLIP_VT_16 {{fn}}_vt;
/* Blocks per GEMV pass (NJ) and rows times blocks per projection tile (PM,
 * PJ): as many accumulators as the registers hold, at least one block
 * (width 1: a block is 16 floats). */
enum { {{fn}}_VW = MLIP_VW_16, {{fn}}_NV = 16 / MLIP_VW_16, {{fn}}_NB = {{G}} * {{HP}} / 16,
       {{fn}}_NJ0 = (MLIP_VREGS >= 32 ? 16 : 8) / {{fn}}_NV, {{fn}}_NJ1 = {{fn}}_NJ0 < 1 ? 1 : {{fn}}_NJ0,
       {{fn}}_NJ = {{fn}}_NJ1 > {{fn}}_NB ? {{fn}}_NB : {{fn}}_NJ1,
       {{fn}}_PM = MLIP_VREGS >= 32 ? 4 : 2,
       {{fn}}_PJ0 = (MLIP_VREGS - {{fn}}_PM - 2) / ({{fn}}_PM * {{fn}}_NV), {{fn}}_PJ1 = {{fn}}_PJ0 < 1 ? 1 : {{fn}}_PJ0,
       {{fn}}_PJ = {{fn}}_PJ1 > {{fn}}_NB ? {{fn}}_NB : {{fn}}_PJ1 };

/* xw[r][blk * 16 + q] = the chain over x row r and the W row of block blk
 * lane q from xb[blk * 16 + q], for the T * BATCH rows r = t * BATCH + b;
 * every block of every gate. The chain runs in slices of KC inputs over
 * all rows (the W of a tile's blocks, NJ * KC * 64 bytes, stays in the
 * first-level cache), each slice starting where the previous one stored:
 * the same fused multiply-adds in the same order. */
static void {{fn}}_proj(const float* restrict x, const float* restrict wp, const float* restrict xb, float* restrict xw) {
  enum { VW = {{fn}}_VW, NV = {{fn}}_NV, NB = {{fn}}_NB, PM = {{fn}}_PM, NJ = {{fn}}_PJ, ROWS = {{T}} * {{BATCH}},
         KC0 = 384 / NJ, KC = KC0 < 1 ? 1 : KC0 };
  for (int32_t j0 = 0; j0 < NB; j0 += NJ) {
    int32_t blk[NJ], b;
    /* blocks past the end repeat the last one; stored once */
    for (b = 0; b < NJ; ++b) blk[b] = j0 + b < NB ? j0 + b : NB - 1;
    for (int32_t p0 = 0; p0 < {{I}}; p0 += KC) {
      const int32_t p1 = p0 + KC < {{I}} ? p0 + KC : {{I}};
      for (int32_t i0 = 0; i0 < ROWS; i0 += PM) {
        const float* ar[PM];
        const float* st[PM]; /* where each row's chains start: xb, or the previous slice's */
        const float* bq[NJ];
        {{fn}}_vt acc[PM][NJ][NV];
        int32_t r, v;
        for (r = 0; r < PM; ++r) {
          const int32_t i = i0 + r < ROWS ? i0 + r : ROWS - 1; /* rows past the end repeat the last one */
          ar[r] = x + (i / {{BATCH}}) * {{XT}} + (i % {{BATCH}}) * {{XB}};
          st[r] = p0 == 0 ? xb : xw + i * NB * 16;
        }
        for (b = 0; b < NJ; ++b) bq[b] = wp + blk[b] * {{I}} * 16;
        for (r = 0; r < PM; ++r)
          for (b = 0; b < NJ; ++b)
            for (v = 0; v < NV; ++v) acc[r][b][v] = MLIP_VLOAD_16(st[r] + blk[b] * 16 + v * VW);
        for (int32_t p = p0; p < p1; ++p) {
          float av[PM];
          for (r = 0; r < PM; ++r) av[r] = ar[r][p];
          for (b = 0; b < NJ; ++b)
            for (v = 0; v < NV; ++v) {
              {{fn}}_vt w = MLIP_VLOAD_16(bq[b] + p * 16 + v * VW);
              MLIP_VKEEP(w); /* one load for the PM rows (mlip/kvec.h) */
              for (r = 0; r < PM; ++r) acc[r][b][v] = MLIP_VFMAS_16(av[r], w, acc[r][b][v]);
            }
        }
        for (r = 0; r < PM && i0 + r < ROWS; ++r)
          for (b = 0; b < NJ && j0 + b < NB; ++b)
            for (v = 0; v < NV; ++v) MLIP_VSTORE_16(xw + (i0 + r) * NB * 16 + (j0 + b) * 16 + v * VW, acc[r][b][v]);
      }
    }
  }
}

/* out[r][g * HP + j] = the chain over h[r] and R row j of gate g from
 * init[r][g * HP + j], for the gates [0, ng) of rp and the nr rows r (the
 * batch's sequences still running at the step). A gate's HP / 16 blocks
 * are stored in groups of up to GB as [H][blocks of the group][16] (GB 4
 * for one sequence, 2 for a batch: recurrent.cpp): a
 * pass reads each of its groups as one run of memory in order, each cache
 * line once. The rows go through a span of NS groups (a one-row pass's
 * NJ blocks) together before the next span: two rows or more as tiles of
 * RM rows by the blocks of one group (the MatMul's register rule,
 * mlip/kvec.h), each vector of R loaded once for the tile's rows (the
 * last tile repeats its last row, stored once); a row alone by passes of
 * NJ blocks, NS groups side by side (NJ = 4 on AVX2: one run of a group of 4, or two of 2). With rev
 * the spans go in the reverse order (the gates last to first, and so the
 * groups and the passes): the kernel turns it every step, so that a step
 * starts on the rows the one before read last, still in the second-level
 * cache where R is larger than it (each output's chain over h keeps its
 * order: the same bits). */
static void {{fn}}_gemv(const float* const* h, const float* restrict rp, int32_t ng, const float* const* init,
                        float* const* out, int32_t nr, int32_t rev) {
  enum { VW = {{fn}}_VW, NV = {{fn}}_NV, NBG = {{HP}} / 16, GB = {{RG}}, NGR = (NBG + GB - 1) / GB,
         NJ0 = {{fn}}_NJ > NBG ? NBG : {{fn}}_NJ, NJG = NJ0 > GB ? GB : NJ0, /* a pass's blocks per group */
         NS0 = NJ0 / NJG, NS = NS0 > NGR ? NGR : NS0, /* a pass's groups */
         NSP = (NGR + NS - 1) / NS, /* spans */
         RM = MLIP_VTILE_ROWS, MJ0 = MLIP_VTILE_BLOCKS(RM, NV) > GB ? GB : MLIP_VTILE_BLOCKS(RM, NV),
         MJ = MJ0 > NBG ? NBG : MJ0 };
  for (int32_t gi = 0; gi < ng; ++gi) {
    const int32_t g = rev ? ng - 1 - gi : gi;
    for (int32_t si = 0; si < NSP; ++si) {
      const int32_t s0 = (rev ? NSP - 1 - si : si) * NS; /* the span's first group */
      const int32_t ns = NGR - s0 < NS ? NGR - s0 : NS;  /* its groups */
      int32_t r = 0;
      if (nr > 1)
        for (int32_t pj = 0; pj < ns; ++pj) {
          const int32_t g0 = (s0 + (rev ? ns - 1 - pj : pj)) * GB;
          const int32_t nbk = NBG - g0 < GB ? NBG - g0 : GB; /* blocks in this group */
          const float* rg = rp + (g * NBG + g0) * {{H}} * 16;
          for (r = 0; r + 1 < nr; r += RM) {
            const float* hq[RM];
            const float* iq[RM];
            float* oq[RM];
            const int32_t npass = (nbk + MJ - 1) / MJ;
            int32_t q;
            for (q = 0; q < RM; ++q) {
              const int32_t rr = r + q < nr ? r + q : nr - 1;
              hq[q] = h[rr];
              iq[q] = init[rr] + g * {{HP}} + g0 * 16;
              oq[q] = out[rr] + g * {{HP}} + g0 * 16;
            }
            for (int32_t pi = 0; pi < npass; ++pi) {
              const int32_t j0 = (rev ? npass - 1 - pi : pi) * MJ;
              {{fn}}_vt acc[RM][MJ][NV];
              int32_t col[MJ], b, v;
              for (b = 0; b < MJ; ++b) col[b] = (j0 + b < nbk ? j0 + b : nbk - 1) * 16;
              for (q = 0; q < RM; ++q)
                for (b = 0; b < MJ; ++b)
                  for (v = 0; v < NV; ++v) acc[q][b][v] = MLIP_VLOAD_16(iq[q] + col[b] + v * VW);
              for (int32_t k = 0; k < {{H}}; ++k) {
                const float* rk = rg + k * nbk * 16;
                float hk[RM];
                for (q = 0; q < RM; ++q) hk[q] = hq[q][k];
                for (b = 0; b < MJ; ++b)
                  for (v = 0; v < NV; ++v) {
                    {{fn}}_vt w = MLIP_VLOAD_16(rk + col[b] + v * VW);
                    MLIP_VKEEP(w); /* one load for the RM rows (mlip/kvec.h) */
                    for (q = 0; q < RM; ++q) acc[q][b][v] = MLIP_VFMAS_16(hk[q], w, acc[q][b][v]);
                  }
              }
              for (q = 0; q < RM && r + q < nr; ++q)
                for (b = 0; b < MJ && j0 + b < nbk; ++b)
                  for (v = 0; v < NV; ++v) MLIP_VSTORE_16(oq[q] + (j0 + b) * 16 + v * VW, acc[q][b][v]);
            }
          }
        }
      /* A row alone (the first, or the one the tiles left): passes of NS
       * groups by NJG blocks of each; groups past the span's end repeat
       * its last one, and blocks past a group's end its last block, stored
       * once. */
      for (; r < nr; ++r) {
        const float* restrict hr = h[r];
        const float* restrict ir = init[r] + g * {{HP}};
        float* restrict orow = out[r] + g * {{HP}};
        const float* rg[NS];
        int32_t gb[NS], nb[NS], p;
        for (p = 0; p < NS; ++p) {
          gb[p] = (s0 + (p < ns ? p : ns - 1)) * GB;
          nb[p] = NBG - gb[p] < GB ? NBG - gb[p] : GB;
          rg[p] = rp + (g * NBG + gb[p]) * {{H}} * 16;
        }
        /* NS > 1 only where NJG = GB: one pass; else the group's blocks by NJG */
        const int32_t npass = (nb[0] + NJG - 1) / NJG;
        for (int32_t pi = 0; pi < npass; ++pi) {
          const int32_t j0 = (rev ? npass - 1 - pi : pi) * NJG;
          {{fn}}_vt acc[NS][NJG][NV];
          int32_t col[NS][NJG], b, v;
          for (p = 0; p < NS; ++p)
            for (b = 0; b < NJG; ++b) col[p][b] = (j0 + b < nb[p] ? j0 + b : nb[p] - 1) * 16;
          for (p = 0; p < NS; ++p)
            for (b = 0; b < NJG; ++b)
              for (v = 0; v < NV; ++v) acc[p][b][v] = MLIP_VLOAD_16(ir + gb[p] * 16 + col[p][b] + v * VW);
          for (int32_t k = 0; k < {{H}}; ++k) {
            const float hk = hr[k];
            for (p = 0; p < NS; ++p) {
              const float* rk = rg[p] + k * nb[p] * 16;
              for (b = 0; b < NJG; ++b)
                for (v = 0; v < NV; ++v)
                  acc[p][b][v] = MLIP_VFMAS_16(hk, MLIP_VLOAD_16(rk + col[p][b] + v * VW), acc[p][b][v]);
            }
          }
          for (p = 0; p < ns; ++p)
            for (b = 0; b < NJG && j0 + b < nb[p]; ++b)
              for (v = 0; v < NV; ++v) MLIP_VSTORE_16(orow + gb[p] * 16 + (j0 + b) * 16 + v * VW, acc[p][b][v]);
        }
      }
    }
  }
}

static {{#has_lens}}int32_t{{/has_lens}}{{^has_lens}}void{{/has_lens}} {{fn}}(const float* restrict x, {{#has_bias}}const float* restrict bias, {{/has_bias}}{{#has_lens}}const int32_t* restrict lens, {{/has_lens}}{{#has_h0}}const float* restrict h0, {{/has_h0}}{{#has_c0}}const float* restrict c0, {{/has_c0}}{{#has_p}}const float* restrict p, {{/has_p}}const float* restrict wpk, const float* restrict rpk, float* restrict y, {{#has_yh}}float* restrict yh, {{/has_yh}}{{#has_yc}}float* restrict yc, {{/has_yc}}void* scratch) {
  float* xw = (float*)scratch;                   /* [T * BATCH][G * HP] */
  float* srs = xw + {{T}} * {{BATCH}} * {{GHP}}; /* [BATCH][G * HP] */
  float* hs = srs + {{BATCH}} * {{GHP}};         /* [BATCH][HP] */
{{#lstm}}
  float* cs = hs + {{BATCH}} * {{HP}};           /* [BATCH][HP] */
{{/lstm}}
{{#gru}}{{^lbr}}
  float* rhs = hs + {{BATCH}} * {{HP}}; /* [BATCH][HP] r * h: only without linear_before_reset */
{{/lbr}}{{/gru}}
  float* xb = hs + 2 * {{BATCH}} * {{HP}}; /* [G * HP]: where the projections start */
{{#lbr}}
  float* hb = xb + {{GHP}};  /* [HP]: where the third gate's chain over h starts */
{{/lbr}}
{{#has_lens}}
  for (int32_t b = 0; b < {{BATCH}}; ++b)
    if (lens[b] < 0 || lens[b] > {{T}}) return MLIP_ERR_INVALID_ARG;
{{/has_lens}}
  for (int32_t d = 0; d < {{DIRS}}; ++d) {
    const float* rd = rpk + d * {{GHP}} * {{H}};
{{#has_bias}}
    const float* wb = bias + d * 2 * {{GH}};
    const float* rb = wb + {{GH}};
{{/has_bias}}
{{#has_p}}
    const float* pd = p + d * 3 * {{H}};
{{/has_p}}
    const int32_t act = d * {{FUNCS}};
    const int32_t reversed = {{REVERSE}} || d == 1;
    for (int32_t g = 0; g < {{G}}; ++g)
      for (int32_t j = 0; j < {{HP}}; ++j) {
{{#has_bias}}
        const int32_t row = g * {{H}} + j;
        xb[g * {{HP}} + j] = j >= {{H}} ? 0.0f : {{#lbr}}g == 2 ? wb[row] : {{/lbr}}wb[row] + rb[row];
{{/has_bias}}
{{^has_bias}}
        xb[g * {{HP}} + j] = 0.0f;
{{/has_bias}}
      }
{{#lbr}}
    for (int32_t j = 0; j < {{HP}}; ++j) hb[j] = j < {{H}} ? {{#has_bias}}rb[2 * {{H}} + j]{{/has_bias}}{{^has_bias}}0.0f{{/has_bias}} : 0.0f;
{{/lbr}}
    {{fn}}_proj(x, wpk + d * {{GHP}} * {{I}}, xb, xw);
    for (int32_t b = 0; b < {{BATCH}}; ++b)
      for (int32_t j = 0; j < {{HP}}; ++j) {
        hs[b * {{HP}} + j] = j < {{H}} ? {{#has_h0}}h0[d * {{SD}} + b * {{SB}} + j]{{/has_h0}}{{^has_h0}}0.0f{{/has_h0}} : 0.0f;
{{#lstm}}
        cs[b * {{HP}} + j] = j < {{H}} ? {{#has_c0}}c0[d * {{SD}} + b * {{SB}} + j]{{/has_c0}}{{^has_c0}}0.0f{{/has_c0}} : 0.0f;
{{/lstm}}
      }
    /* The batch's sequences side by side, step by step: one GEMV over R
     * for the rows still running (each row's own chains, as before). */
    for (int32_t s = 0; s < {{T}}; ++s) {
      const float* hr[{{BATCH}}];
      const float* xr[{{BATCH}}];
      float* sr_[{{BATCH}}];
      int32_t br[{{BATCH}}], tr[{{BATCH}}], nr = 0, i;
      for (int32_t b = 0; b < {{BATCH}}; ++b) {
        const int32_t len = {{#has_lens}}lens[b]{{/has_lens}}{{^has_lens}}{{T}}{{/has_lens}};
        if (s >= len) continue;
        br[nr] = b;
        tr[nr] = reversed ? len - 1 - s : s;
        hr[nr] = hs + b * {{HP}};
        xr[nr] = xw + (tr[nr] * {{BATCH}} + b) * {{GHP}};
        sr_[nr] = srs + b * {{GHP}};
        ++nr;
      }
      if (nr == 0) break; /* no sequence runs past this step */
{{#rnn}}
      {{fn}}_gemv(hr, rd, 1, xr, sr_, nr, s & 1);
{{/rnn}}
{{#gru}}
{{^lbr}}
      {{fn}}_gemv(hr, rd, 2, xr, sr_, nr, s & 1);
{{/lbr}}
      {
        const float* ir3[{{BATCH}}];
        float* or3[{{BATCH}}];
        for (i = 0; i < nr; ++i) {
          or3[i] = sr_[i] + 2 * {{HP}};
{{#lbr}}
          ir3[i] = hb;
{{/lbr}}
{{^lbr}}
          ir3[i] = xr[i] + 2 * {{HP}};
{{/lbr}}
        }
{{#lbr}}
        /* The third gate's chains over h need no r: on the steps in
         * reverse order its R goes first, so that every step starts on
         * the rows the one before read last. */
        if (s & 1) {
          {{fn}}_gemv(hr, rd + 2 * {{HP}} * {{H}}, 1, ir3, or3, nr, 1);
          {{fn}}_gemv(hr, rd, 2, xr, sr_, nr, 1);
        } else {
          {{fn}}_gemv(hr, rd, 2, xr, sr_, nr, 0);
          {{fn}}_gemv(hr, rd + 2 * {{HP}} * {{H}}, 1, ir3, or3, nr, 0);
        }
{{/lbr}}
{{^lbr}}
        {
          const float* rr[{{BATCH}}];
          for (i = 0; i < nr; ++i) {
            float* sr = sr_[i];
            float* rg = sr + {{HP}};
            float* rh = rhs + br[i] * {{HP}};
            const float* h = hr[i];
            int32_t j;
            for (j = 0; j < {{HP}}; ++j) rg[j] = {{fn}}_clip(rg[j]);
            {{fn}}_act_n(act, rg, {{H}});
            for (j = 0; j < {{HP}}; ++j) rh[j] = rg[j] * h[j];
            rr[i] = rh;
          }
          {{fn}}_gemv(rr, rd + 2 * {{HP}} * {{H}}, 1, ir3, or3, nr, s & 1);
        }
{{/lbr}}
      }
{{/gru}}
{{#lstm}}
      {{fn}}_gemv(hr, rd, {{G}}, xr, sr_, nr, s & 1);
{{/lstm}}
      for (i = 0; i < nr; ++i) {
        const int32_t b = br[i];
        float* sr = sr_[i];
        float* h = hs + b * {{HP}};
{{#lstm}}
        float* c = cs + b * {{HP}};
{{/lstm}}
{{#lbr}}
        const float* xt = xr[i];
{{/lbr}}
        float* yt = y + tr[i] * {{YT}} + d * {{YD}} + b * {{YB}};
        int32_t j;
{{#rnn}}
        for (j = 0; j < {{H}}; ++j) sr[j] = {{fn}}_clip(sr[j]);
        {{fn}}_act_n(act, sr, {{H}});
        for (j = 0; j < {{H}}; ++j) h[j] = sr[j];
{{/rnn}}
{{#gru}}
        {
          float* z = sr;
          float* hg = sr + 2 * {{HP}};
{{#lbr}}
          float* rg = sr + {{HP}};
          for (j = 0; j < 2 * {{HP}}; ++j) sr[j] = {{fn}}_clip(sr[j]);
          {{fn}}_act_n(act, z, {{H}});
          {{fn}}_act_n(act, rg, {{H}});
          for (j = 0; j < {{H}}; ++j) hg[j] = {{fn}}_clip(xt[2 * {{HP}} + j] + rg[j] * hg[j]);
{{/lbr}}
{{^lbr}}
          for (j = 0; j < {{HP}}; ++j) z[j] = {{fn}}_clip(z[j]);
          {{fn}}_act_n(act, z, {{H}});
          for (j = 0; j < {{H}}; ++j) hg[j] = {{fn}}_clip(hg[j]);
{{/lbr}}
          {{fn}}_act_n(act + 1, hg, {{H}});
          for (j = 0; j < {{H}}; ++j) h[j] = (1.0f - z[j]) * hg[j] + z[j] * h[j];
        }
{{/gru}}
{{#lstm}}
        {
          /* ONNX gate order i, o, f, c */
          float* ig = sr;
          float* og = sr + {{HP}};
          float* fg = sr + 2 * {{HP}};
          float* cg = sr + 3 * {{HP}};
{{#has_p}}
          for (j = 0; j < {{H}}; ++j) ig[j] = ig[j] + pd[j] * c[j];
{{/has_p}}
          for (j = 0; j < {{H}}; ++j) ig[j] = {{fn}}_clip(ig[j]);
          {{fn}}_act_n(act, ig, {{H}});
{{#input_forget}}
          for (j = 0; j < {{H}}; ++j) fg[j] = 1.0f - ig[j];
{{/input_forget}}
{{^input_forget}}
{{#has_p}}
          for (j = 0; j < {{H}}; ++j) fg[j] = fg[j] + pd[2 * {{H}} + j] * c[j];
{{/has_p}}
          for (j = 0; j < {{H}}; ++j) fg[j] = {{fn}}_clip(fg[j]);
          {{fn}}_act_n(act, fg, {{H}});
{{/input_forget}}
          for (j = 0; j < {{H}}; ++j) cg[j] = {{fn}}_clip(cg[j]);
          {{fn}}_act_n(act + 1, cg, {{H}});
          for (j = 0; j < {{H}}; ++j) c[j] = fg[j] * c[j] + ig[j] * cg[j];
{{#has_p}}
          for (j = 0; j < {{H}}; ++j) og[j] = og[j] + pd[{{H}} + j] * c[j];
{{/has_p}}
          for (j = 0; j < {{H}}; ++j) og[j] = {{fn}}_clip(og[j]);
          {{fn}}_act_n(act, og, {{H}});
          for (j = 0; j < {{H}}; ++j) cg[j] = c[j];
          {{fn}}_act_n(act + 2, cg, {{H}});
          for (j = 0; j < {{H}}; ++j) h[j] = og[j] * cg[j];
        }
{{/lstm}}
        for (j = 0; j < {{H}}; ++j) yt[j] = h[j];
      }
    }
    for (int32_t b = 0; b < {{BATCH}}; ++b) {
      const int32_t len = {{#has_lens}}lens[b]{{/has_lens}}{{^has_lens}}{{T}}{{/has_lens}};
      for (int32_t t = len; t < {{T}}; ++t) {
        float* yt = y + t * {{YT}} + d * {{YD}} + b * {{YB}};
        for (int32_t j = 0; j < {{H}}; ++j) yt[j] = 0.0f;
      }
{{#has_yh}}
      for (int32_t j = 0; j < {{H}}; ++j) yh[d * {{SD}} + b * {{SB}} + j] = hs[b * {{HP}} + j];
{{/has_yh}}
{{#has_yc}}
      for (int32_t j = 0; j < {{H}}; ++j) yc[d * {{SD}} + b * {{SB}} + j] = cs[b * {{HP}} + j];
{{/has_yc}}
    }
  }
{{#has_lens}}
  return MLIP_OK;
{{/has_lens}}
}
