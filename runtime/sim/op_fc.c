/* FC: a K chunk of a dense layer into an fp32 accumulator; the last chunk adds
 * the bias, applies the activation and rounds.
 * Its validation rule (docs/command-buffer.md) and its executor
 * (docs/mlip-spec.md); the opcode table (opcodes.c) names both. */
#include "sim_internal.h"

mlip_status mlip_sim_check_fc(const mlip_sim_view* v, uint32_t section, const mlip_cmd* c) {
  const uint32_t* w = c->w;
  /* fp16, or an 8-bit type (mlip_sim_check_dtype checked which): one-byte
     elements, a requantization record per output at BIAS, no accumulator
     (the whole reduction in one command). */
  const int q8 = w[MLIP_DTYPE] != MLIP_DT_FP16;
  const uint64_t eb = q8 ? 1u : 2u, bb = q8 ? MLIP_REQUANT_RECORD_BYTES : 4u;
  uint64_t n = w[MLIP_FC_N], k = w[MLIP_FC_K], oc = w[MLIP_FC_OUT_C];
  uint64_t in_len, w_len, acc_len, b_len, out_len;
  int last = w[MLIP_FC_LAST] != 0u;
  int has_bias = last && w[MLIP_FC_BIAS] != MLIP_NO_OFFSET;
  if (n < 1u || k < 1u || oc < 1u || w[MLIP_FC_FIRST] > 1u || w[MLIP_FC_LAST] > 1u ||
      (q8 ? !mlip_sim_fc_q8_words_ok(c) : !mlip_sim_act_ok(w[MLIP_FC_ACT]))) {
    return MLIP_ERR_INVALID_ARG;
  }
  in_len = mlip_sim_mul3(n, k, eb);
  w_len = mlip_sim_mul3(oc, k, eb);
  acc_len = q8 ? 0u : mlip_sim_mul3(n, oc, 4u);
  b_len = oc * bb;
  out_len = mlip_sim_mul3(n, oc, eb);
  MLIP_TRY(mlip_sim_check_ocm(v, w[MLIP_FC_IN], in_len));
  MLIP_TRY(mlip_sim_check_ocm(v, w[MLIP_FC_WEIGHTS], w_len));
  if (!q8) {
    MLIP_TRY(mlip_sim_check_ocm(v, w[MLIP_FC_ACC], acc_len));
  }
  if (has_bias) {
    MLIP_TRY(mlip_sim_check_ocm(v, w[MLIP_FC_BIAS], b_len));
  }
  if (last) {
    MLIP_TRY(mlip_sim_check_ocm(v, w[MLIP_FC_OUT], out_len));
  }
  /* The accumulator (fp16) is written, and so is the output when LAST. */
  if (!q8 && (mlip_sim_overlaps(w[MLIP_FC_ACC], acc_len, w[MLIP_FC_IN], in_len) ||
              mlip_sim_overlaps(w[MLIP_FC_ACC], acc_len, w[MLIP_FC_WEIGHTS], w_len) ||
              (has_bias && mlip_sim_overlaps(w[MLIP_FC_ACC], acc_len, w[MLIP_FC_BIAS], b_len)))) {
    return MLIP_ERR_INVALID_ARG;
  }
  if (last && (mlip_sim_overlaps(w[MLIP_FC_OUT], out_len, w[MLIP_FC_IN], in_len) ||
               mlip_sim_overlaps(w[MLIP_FC_OUT], out_len, w[MLIP_FC_WEIGHTS], w_len) ||
               (!q8 && mlip_sim_overlaps(w[MLIP_FC_OUT], out_len, w[MLIP_FC_ACC], acc_len)) ||
               (has_bias && mlip_sim_overlaps(w[MLIP_FC_OUT], out_len, w[MLIP_FC_BIAS], b_len)))) {
    return MLIP_ERR_INVALID_ARG;
  }
  if (!q8) {
    MLIP_TRY(mlip_sim_check_write(v, section, w[MLIP_FC_ACC], acc_len));
  }
  if (last) {
    MLIP_TRY(mlip_sim_check_write(v, section, w[MLIP_FC_OUT], out_len));
  }
  return MLIP_OK;
}

/* Each output is the spec's sum over k in order (continuing the partial sum
 * in ACC unless FIRST), then at LAST bias, activation and one rounding. For
 * speed a block of outputs is summed side by side in the lanes of a small
 * array (the compiler vectorizes across the lanes), over chunks of k whose
 * weights are converted to fp32 first; no sum changes (built for size,
 * MLIP_SIM_COMPACT in sim_internal.h, the reference loop runs). The
 * sizes bound the stack (about 2.3 KiB with these). */
#ifndef MLIP_SIM_FC_OB
#define MLIP_SIM_FC_OB 16u /* outputs per block (lanes) */
#endif
#ifndef MLIP_SIM_FC_KC
#define MLIP_SIM_FC_KC 32u /* reduction steps per converted chunk */
#endif

mlip_status mlip_sim_exec_fc(const mlip_sim_env* env, uint8_t* ocm, const mlip_cmd* c) {
  const uint32_t* w = c->w;
  if (w[MLIP_DTYPE] != MLIP_DT_FP16) {
    return mlip_sim_exec_fc_q8(env, ocm, c); /* op_int8.c */
  }
  const uint8_t* in = ocm + w[MLIP_FC_IN];
  const uint8_t* wt = ocm + w[MLIP_FC_WEIGHTS];
  uint8_t* accm = ocm + w[MLIP_FC_ACC];
  const int first = w[MLIP_FC_FIRST] != 0u;
  const int last = w[MLIP_FC_LAST] != 0u;
  const uint8_t* bias = (last && w[MLIP_FC_BIAS] != MLIP_NO_OFFSET) ? ocm + w[MLIP_FC_BIAS] : NULL;
  uint8_t* out = last ? ocm + w[MLIP_FC_OUT] : NULL;
  const size_t n_n = w[MLIP_FC_N], k_n = w[MLIP_FC_K], oc_n = w[MLIP_FC_OUT_C];
#if MLIP_SIM_COMPACT
  /* the reference: one output at a time, the spec's loop */
  size_t n, o, k;
  (void)env; /* works in the tile's OCM only */
  for (n = 0; n < n_n; ++n) {
    for (o = 0; o < oc_n; ++o) {
      uint8_t* ap = accm + (n * oc_n + o) * 4u;
      float acc = first ? 0.0f : mlip_sim_ldf(ap);
      for (k = 0; k < k_n; ++k) {
        const float p =
            mlip_sim_h2f(mlip_sim_ld16(in + (n * k_n + k) * 2u)) * mlip_sim_h2f(mlip_sim_ld16(wt + (o * k_n + k) * 2u));
        acc = acc + p;
      }
      /* a NaN's sign and payload depend on the host: store the quiet NaN */
      mlip_sim_stf(ap, acc != acc ? mlip_sim_bits_to_float(0x7FC00000u) : acc);
      if (out != NULL) {
        float r = bias != NULL ? acc + mlip_sim_ldf(bias + o * 4u) : acc;
        r = mlip_sim_apply_act(r, w[MLIP_FC_ACT], w[MLIP_FC_ACT_LO], w[MLIP_FC_ACT_HI]);
        mlip_sim_st16(out + (n * oc_n + o) * 2u, mlip_sim_round_result(r));
      }
    }
  }
#else
  float wf[MLIP_SIM_FC_KC][MLIP_SIM_FC_OB];
  float row[MLIP_SIM_FC_KC];
  size_t n, o0, q, k0, k;
  (void)env; /* works in the tile's OCM only */
  for (n = 0; n < n_n; ++n) {
    const uint8_t* xp = in + n * k_n * 2u;
    for (o0 = 0; o0 < oc_n; o0 += MLIP_SIM_FC_OB) {
      const size_t no = oc_n - o0 < MLIP_SIM_FC_OB ? oc_n - o0 : MLIP_SIM_FC_OB;
      const uint8_t* wp = wt + o0 * k_n * 2u;
      float acc[MLIP_SIM_FC_OB];
      for (q = 0; q < MLIP_SIM_FC_OB; ++q) {
        acc[q] = first || q >= no ? 0.0f : mlip_sim_ldf(accm + (n * oc_n + o0 + q) * 4u);
      }
      for (k0 = 0; k0 < k_n; k0 += MLIP_SIM_FC_KC) {
        const size_t kc = k_n - k0 < MLIP_SIM_FC_KC ? k_n - k0 : MLIP_SIM_FC_KC;
        /* Lanes past no hold zeros; their sums are never stored. */
        for (q = 0; q < MLIP_SIM_FC_OB; ++q) {
          if (q < no) {
            mlip_sim_h2f_row(wp + (q * k_n + k0) * 2u, row, kc);
          } else {
            memset(row, 0, sizeof row);
          }
          for (k = 0; k < kc; ++k) {
            wf[k][q] = row[k];
          }
        }
        for (k = 0; k < kc; ++k) {
          /* converted here, not from a row: the lanes, not k, are what
             the compiler should vectorize */
          const float x = mlip_sim_h2f(mlip_sim_ld16(xp + (k0 + k) * 2u));
          for (q = 0; q < MLIP_SIM_FC_OB; ++q) {
            acc[q] = acc[q] + x * wf[k][q];
          }
        }
      }
      for (q = 0; q < no; ++q) {
        /* a NaN's sign and payload depend on the host: store the quiet NaN */
        mlip_sim_stf(accm + (n * oc_n + o0 + q) * 4u,
                     acc[q] != acc[q] ? mlip_sim_bits_to_float(0x7FC00000u) : acc[q]);
      }
      if (out != NULL) {
        for (q = 0; q < no; ++q) {
          acc[q] = bias != NULL ? acc[q] + mlip_sim_ldf(bias + (o0 + q) * 4u) : acc[q];
        }
        mlip_sim_act_row(acc, no, w[MLIP_FC_ACT], w[MLIP_FC_ACT_LO], w[MLIP_FC_ACT_HI]);
        mlip_sim_round_row(acc, out + (n * oc_n + o0) * 2u, no);
      }
    }
  }
#endif
  return MLIP_OK;
}
