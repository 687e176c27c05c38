/* Depthwise Conv between channels-last tensors (x [N, D, H, W, C], y [N,
 * OD, OH, OW, C] with C contiguous; 1-D and 2-D as size-1 leading axes),
 * the weights packed at compile time as conv_tiled.c's depthwise ones:
 * channel c's tap k at wp[(c / MB) * K * MB + k * MB + c % MB], the bias
 * bp[c]. Each pixel's channels are vectors of VW lanes (VW divides MB);
 * where VW does not divide C (C >= MB: the code generator takes this
 * kernel for a whole number of blocks of MB or C >= 16 = MB), the last
 * vector ends with the channels, overlapping the one before, and stores
 * only its lanes past that one's (their sums are the same either way; with
 * a residual in y's own bytes the overlapped lanes read outputs already
 * written, which those lanes then drop). Its weights, which may straddle
 * two blocks, come from one more block after the NB = ceil(C / MB) others:
 * channels C - MB to C - 1 in its lanes.
 *
 * An output row is NT register blocks of RW neighbouring positions (the
 * last one moved back to end with the row; its outputs before the previous
 * block's end are not stored again), each x one vector of channels. Per
 * kernel row (kd, kh inside the input: per output row, no test per
 * position) a block loads the row's KW tap weights once, then walks the
 * input columns its windows read left to right, each loaded once and added
 * into every position whose window holds it. The loops are unrolled, so
 * which position takes which column at which tap is folded at compile time;
 * the first and last blocks (constant starts) test each column against the
 * input's width at compile time too, the blocks between test nothing where
 * their windows are inside the input (columns [OWA, OWB) of the row).
 *
 * Every output sums x * w with one rounding (MLIP_VFMA) over its taps
 * inside the input in the reference's order (kd, kh, kw; ops::eval_Conv):
 * a position's taps come in with the input columns, so kw ascends. The sum
 * starts from 0, then the bias, the residual r (y's layout, possibly y's
 * own bytes: each element is read just before the same element is written)
 * and the activation. So the bits are the reference's at any vector width
 * (mlip/kvec.h). */
#ifndef MLIP__DWCL_UNROLL /* the blocks' loops must unroll for their tests to fold */
#if defined(__clang__)
#define MLIP__DWCL_UNROLL _Pragma("unroll")
#elif defined(__GNUC__) && (__GNUC__ >= 8)
#define MLIP__DWCL_UNROLL _Pragma("GCC unroll 64")
#else
#define MLIP__DWCL_UNROLL
#endif
#ifndef MLIP_DWCL_RMAX /* a cap on a block's positions (tests: 1, every kind of block on small rows) */
#define MLIP_DWCL_RMAX 64
#endif
#if defined(__GNUC__) || defined(__clang__)
#define MLIP__DWCL_INLINE __attribute__((always_inline))
#else
#define MLIP__DWCL_INLINE
#endif
#endif
/* R: the accumulators next to the KW weights and an input vector in the
 * registers (at most 8 scalar ones), the unrolled walk at most 64 columns;
 * RW: the row in NT blocks of about equal size. */
enum {
  {{fn}}_R0 = MLIP_VREGS - {{KW}} - 2 < 1 ? 1 : MLIP_VREGS - {{KW}} - 2,
  {{fn}}_R1 = MLIP_VW_{{MB}} == 1 && {{fn}}_R0 > 8 ? 8 : {{fn}}_R0 > 16 ? 16 : {{fn}}_R0,
  {{fn}}_R2 = (64 - ({{KW}} - 1) * {{DW}} - 1) / {{SW}} + 1,
  {{fn}}_R3 = {{fn}}_R1 < {{fn}}_R2 ? {{fn}}_R1 : {{fn}}_R2,
  {{fn}}_R = {{fn}}_R3 < MLIP_DWCL_RMAX ? {{fn}}_R3 : MLIP_DWCL_RMAX,
  {{fn}}_NT = ({{OW}} + {{fn}}_R - 1) / {{fn}}_R,
  {{fn}}_RW = ({{OW}} + {{fn}}_NT - 1) / {{fn}}_NT,
  {{fn}}_SPAN = ({{fn}}_RW - 1) * {{SW}} + ({{KW}} - 1) * {{DW}} + 1
};
{{#act_lanes}}#if MLIP_VW_{{MB}} > 1 && !defined(__ARM_FEATURE_MVE) && !defined(MLIP__CT_SIGMOID_{{MB}})
#define MLIP__CT_SIGMOID_{{MB}}
#define MLIP_VSIG_VT MLIP_VT_{{MB}}
#define MLIP_VSIG_FN mlip__ct_sigmoid_{{MB}}
#include "mlip/kvec_sigmoid.h"
#endif
{{/act_lanes}}/* The output vector v of channels co at y: bias, residual, activation;
 * its lanes from `keep` on stored (a constant at each call). */
static inline void {{fn}}_put(MLIP_VT_{{MB}} v, {{#has_bias}}const float* b, {{/has_bias}}{{#has_res}}const float* r, {{/has_res}}float* y, int32_t keep) {
{{#has_act_vector}}#if MLIP_VW_{{MB}} > 1 && !defined(__ARM_FEATURE_MVE)
  typedef MLIP_VT_{{MB}} vt;
  typedef int32_t vm __attribute__((vector_size(sizeof(vt))));
#endif
{{/has_act_vector}}{{#has_bias}}  v = v + MLIP_VLOAD_{{MB}}(b);
{{/has_bias}}{{#has_res}}  v = v + MLIP_VLOAD_{{MB}}(r);
{{/has_res}}{{#has_act_vector}}#if MLIP_VW_{{MB}} > 1 && !defined(__ARM_FEATURE_MVE)
  {{act_vector}}
#endif
{{/has_act_vector}}  if (keep == 0) {
    MLIP_VSTORE_{{MB}}(y, v);
  } else {
    float t[MLIP_VW_{{MB}}];
    memcpy(t, &v, sizeof t);
    memcpy(y + keep, t + keep, (size_t)(MLIP_VW_{{MB}} - keep) * sizeof(float));
  }
}
{{#act_lanes}}#if MLIP_VW_{{MB}} > 1 && !defined(__ARM_FEATURE_MVE)
/* A sigmoid or SiLU on a finished output row of OW * C floats, in place:
 * mlip__ct_sigmoid_{{MB}} on MLIP__CT_G vectors at a time, the last group
 * filled with zeros, and the row's last OW * C % VW floats through a
 * vector of lanes (a function of each lane alone, so the zeros change no
 * float stored). On the row (in L1) rather than on each block's
 * accumulators: the blocks then hold no sigmoid's registers and no padding
 * vectors, and only the row's last group pads (docs/benchmarks.md, stop 48). */
static void {{fn}}_act_row(float* t) {
  typedef MLIP_VT_{{MB}} vt;
  enum { VW = MLIP_VW_{{MB}}, NV = {{OW}} * {{C}} / MLIP_VW_{{MB}}, G = MLIP__CT_G, REM = {{OW}} * {{C}} % MLIP_VW_{{MB}} };
  vt v[MLIP__CT_G];
  int32_t i, g;
  for (i = 0; i + G <= NV; i += G) {
    MLIP_VUNROLL for (g = 0; g < G; ++g) v[g] = MLIP_VLOAD_{{MB}}(t + (i + g) * VW);
    mlip__ct_sigmoid_{{MB}}(v, {{act_silu}});
    MLIP_VUNROLL for (g = 0; g < G; ++g) MLIP_VSTORE_{{MB}}(t + (i + g) * VW, v[g]);
  }
  if (i < NV) {
    for (g = 0; g < G; ++g) v[g] = (vt){0};
    for (g = 0; i + g < NV; ++g) v[g] = MLIP_VLOAD_{{MB}}(t + (i + g) * VW);
    mlip__ct_sigmoid_{{MB}}(v, {{act_silu}});
    for (g = 0; i + g < NV; ++g) MLIP_VSTORE_{{MB}}(t + (i + g) * VW, v[g]);
  }
  if (REM > 0) {
    float lane[MLIP_VW_{{MB}}] = {0};
    for (g = 0; g < G; ++g) v[g] = (vt){0};
    memcpy(lane, t + NV * VW, (size_t)REM * sizeof(float));
    v[0] = MLIP_VLOAD_{{MB}}(lane);
    mlip__ct_sigmoid_{{MB}}(v, {{act_silu}});
    MLIP_VSTORE_{{MB}}(lane, v[0]);
    memcpy(t + NV * VW, lane, (size_t)REM * sizeof(float));
  }
}
#endif
{{/act_lanes}}/* One block: the RW positions from s of the output row whose input at kd =
 * kh = 0, column 0 is at offset xo, for the channels of the vector whose
 * tap 0 is at wc; y and r the row's at those channels; the positions from
 * `from` on stored, each vector's lanes from `keep` on. With edge, the columns outside the input are skipped
 * (the reference's taps inside it only). */
static inline MLIP__DWCL_INLINE void {{fn}}_block(const float* restrict x, int32_t xo, const float* restrict wc, int32_t kd0,
                                                  int32_t kd1, int32_t kh0, int32_t kh1, int32_t s, int32_t from, int edge, int32_t keep,
                                                  {{#has_bias}}const float* b, {{/has_bias}}{{#has_res}}const float* r, {{/has_res}}float* y) {
  typedef MLIP_VT_{{MB}} vt;
  enum { RW = {{fn}}_RW };
  vt acc[RW];
  int32_t p, kd, kh;
  MLIP__DWCL_UNROLL for (p = 0; p < RW; ++p) acc[p] = (vt){0};
  for (kd = kd0; kd < kd1; ++kd) {
    for (kh = kh0; kh < kh1; ++kh) {
      const int32_t xk = xo + kd * {{DD}} * {{XD}} + kh * {{DH}} * {{XH}} + (s * {{SW}} - {{PW}}) * {{XW}};
      const float* const wk = wc + (kd * {{KH}} + kh) * {{KW}} * {{MB}};
      vt w[{{KW}}];
      int32_t i, kw;
      MLIP__DWCL_UNROLL for (kw = 0; kw < {{KW}}; ++kw) w[kw] = MLIP_VLOAD_{{MB}}(wk + kw * {{MB}});
      MLIP__DWCL_UNROLL for (i = 0; i < {{fn}}_SPAN; ++i) {
        const int32_t c = s * {{SW}} - {{PW}} + i;  /* the input column */
        vt xv;
        if (edge && (c < 0 || c >= {{IW}})) continue;
        xv = MLIP_VLOAD_{{MB}}(x + (xk + i * {{XW}}));
        MLIP_VKEEP(xv); /* one load for the taps that read it (mlip/kvec.h) */
        MLIP__DWCL_UNROLL for (kw = 0; kw < {{KW}}; ++kw) {
          const int32_t q = i - kw * {{DW}};  /* position q / SW reads it at tap kw */
          if (q >= 0 && q % {{SW}} == 0 && q / {{SW}} < RW) acc[q / {{SW}}] = MLIP_VFMA_{{MB}}(xv, w[kw], acc[q / {{SW}}]);
        }
      }
    }
  }
  for (p = 0; p < RW; ++p) {
    if (s + p < from) continue;  /* stored by the previous block */
    {{fn}}_put(acc[p], {{#has_bias}}b, {{/has_bias}}{{#has_res}}r + (s + p) * {{YW}}, {{/has_res}}y + (s + p) * {{YW}}, keep);
  }
}
{{#noinline}}MLIP_VNOINLINE {{/noinline}}static void {{fn}}(const float* restrict x, {{#has_res}}const float* r, {{/has_res}}const float* restrict wp, {{#has_bias}}const float* restrict bp, {{/has_bias}}float* {{y_restrict}}y) {
  enum { VW = MLIP_VW_{{MB}}, K = {{KD}} * {{KH}} * {{KW}}, NB = ({{C}} + {{MB}} - 1) / {{MB}}, NT = {{fn}}_NT, RW = {{fn}}_RW };
  for (int32_t n = 0; n < {{N}}; ++n) {
    for (int32_t od = 0; od < {{OD}}; ++od) {
      int32_t kd0 = 0, kd1 = 0, kd;
      for (kd = {{KD}} - 1; kd >= 0; --kd)
        if (od * {{SD}} - {{PD}} + kd * {{DD}} >= 0 && od * {{SD}} - {{PD}} + kd * {{DD}} < {{ID}}) {
          if (kd1 == 0) kd1 = kd + 1;
          kd0 = kd;
        }
      for (int32_t oh = 0; oh < {{OH}}; ++oh) {
        int32_t kh0 = 0, kh1 = 0, kh;
        const int32_t yr = n * {{YN}} + od * {{YD}} + oh * {{YH}};
        /* the input's offset at kd = kh = 0, column 0 (outside it where those taps are) */
        const int32_t xr = n * {{XN}} + (od * {{SD}} - {{PD}}) * {{XD}} + (oh * {{SH}} - {{PH}}) * {{XH}};
        for (kh = {{KH}} - 1; kh >= 0; --kh)
          if (oh * {{SH}} - {{PH}} + kh * {{DH}} >= 0 && oh * {{SH}} - {{PH}} + kh * {{DH}} < {{IH}}) {
            if (kh1 == 0) kh1 = kh + 1;
            kh0 = kh;
          }
        for (int32_t t = 0; t < NT; ++t) {
          const int32_t s = t * RW;
          int32_t co;
#define {{fn}}_BLOCK(S, EDGE, CO, KEEP) {{fn}}_block(x, xr + (CO), (KEEP) ? wp + NB * K * {{MB}} + {{MB}} - VW : wp + (CO) / {{MB}} * K * {{MB}} + (CO) % {{MB}}, kd0, kd1, kh0, kh1, S, s, EDGE, KEEP, {{#has_bias}}bp + (CO), {{/has_bias}}{{#has_res}}r + yr + (CO), {{/has_res}}y + yr + (CO))
#define {{fn}}_VECTOR(CO, KEEP)                   \
  if (t == 0)                                     \
    {{fn}}_BLOCK(0, 1, CO, KEEP);                 \
  else if (t == NT - 1)                           \
    {{fn}}_BLOCK({{OW}} - RW, 1, CO, KEEP);       \
  else if (s >= {{OWA}} && s + RW <= {{OWB}})     \
    {{fn}}_BLOCK(s, 0, CO, KEEP);                 \
  else                                            \
    {{fn}}_BLOCK(s, 1, CO, KEEP);
          for (co = 0; co + VW <= {{C}}; co += VW) {
            {{fn}}_VECTOR(co, 0)
          }
          if ({{C}} % VW != 0) { /* the last vector, ending with the channels */
            {{fn}}_VECTOR({{C}} - VW, VW - {{C}} % VW)
          }
#undef {{fn}}_VECTOR
#undef {{fn}}_BLOCK
        }
{{#has_act_block}}{{#has_act_vector}}#if MLIP_VW_{{MB}} == 1 || defined(__ARM_FEATURE_MVE)
{{/has_act_vector}}{{#act_lanes}}#if MLIP_VW_{{MB}} == 1 || defined(__ARM_FEATURE_MVE)
{{/act_lanes}}        {
          /* the activation on the finished row, in place */
          float* const t = y + yr;
          const int32_t nt = {{OW}} * {{C}};
          {{act_block}}
        }
{{#has_act_vector}}#endif
{{/has_act_vector}}{{#act_lanes}}#endif
{{/act_lanes}}{{/has_act_block}}{{#act_lanes}}#if MLIP_VW_{{MB}} > 1 && !defined(__ARM_FEATURE_MVE)
        {{fn}}_act_row(y + yr);
#endif
{{/act_lanes}}      }
    }
  }
}
