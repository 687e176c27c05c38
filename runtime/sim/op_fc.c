/* FC: a K chunk of a dense layer into an fp32 accumulator; the last chunk adds
 * the bias, applies the activation and rounds (fp16); or the int8/uint8
 * dense layer, its whole reduction in one command, requantized by one
 * record per output (operands: MLIP_FIELDS_fc, mlip/cmd_table.h).
 * Its validation rule (docs/command-buffer.md) and its executors for both
 * element types (docs/mlip-spec.md sections 4 and 4a); the opcode table
 * (opcodes.c) names both. */
#include "sim_internal.h"

mlip_status mlip_sim_check_fc(const mlip_sim_view* v, uint32_t section, const mlip_decoded_cmd* d) {
  const mlip_fc_args* a = &d->u.fc;
  /* fp16, or an 8-bit type (the element type's rule checked which): one-byte
     elements, a requantization record per output at bias, no accumulator
     (the whole reduction in one command: the per-field rules FLAG, ACC). */
  const int q8 = a->dtype != MLIP_DT_FP16;
  /* 16x8 (int16): two-byte activations, int8 weights, 16-byte records. */
  const int wide = a->dtype == MLIP_DT_INT16;
  const uint64_t eb = q8 && !wide ? 1u : 2u, wb = q8 ? 1u : 2u;
  const uint64_t bb = wide ? MLIP_REQUANT16_RECORD_BYTES : (q8 ? MLIP_REQUANT_RECORD_BYTES : 4u);
  const uint64_t n = a->n, k = a->k, oc = a->out_c;
  const int last = a->last != 0u;
  const int has_bias = last && a->bias != MLIP_NO_OFFSET;
  uint64_t in_len, w_len, acc_len, b_len, out_len;
  /* 8-bit: at most 33025 products of at most 255 * 128 per output, so the
     int32 sum cannot overflow (16x8: the int64 sum within 2^62 with its
     bias); the clamp ordered. */
  if (q8 && (k > MLIP_INT8_MAX_TAPS || a->clamp_lo > a->clamp_hi)) {
    return MLIP_ERR_INVALID_ARG;
  }
  /* 4-bit weights (w4_block, its rule: 8-bit only): a block inside a row,
     a packed row per output. */
  if (a->w4_block > k) {
    return MLIP_ERR_INVALID_ARG;
  }
  in_len = mlip_sim_mul3(n, k, eb);
  w_len = a->w4_block != 0u ? oc * mlip_sim_w4_row_bytes(k, a->w4_block) : mlip_sim_mul3(oc, k, wb);
  acc_len = q8 ? 0u : mlip_sim_mul3(n, oc, 4u);
  b_len = oc * bb;
  out_len = mlip_sim_mul3(n, oc, eb);
  MLIP_TRY(mlip_sim_check_ocm(v, a->in, in_len));
  MLIP_TRY(mlip_sim_check_ocm(v, a->weights, w_len));
  if (!q8) {
    MLIP_TRY(mlip_sim_check_ocm(v, a->acc, acc_len));
  }
  if (has_bias) {
    MLIP_TRY(mlip_sim_check_ocm(v, a->bias, b_len));
  }
  if (last) {
    MLIP_TRY(mlip_sim_check_ocm(v, a->out, out_len));
  }
  /* The accumulator (fp16) is written, and so is the output when LAST. */
  if (!q8 && (mlip_sim_overlaps(a->acc, acc_len, a->in, in_len) || mlip_sim_overlaps(a->acc, acc_len, a->weights, w_len) ||
              (has_bias && mlip_sim_overlaps(a->acc, acc_len, a->bias, b_len)))) {
    return MLIP_ERR_INVALID_ARG;
  }
  if (last && (mlip_sim_overlaps(a->out, out_len, a->in, in_len) || mlip_sim_overlaps(a->out, out_len, a->weights, w_len) ||
               (!q8 && mlip_sim_overlaps(a->out, out_len, a->acc, acc_len)) ||
               (has_bias && mlip_sim_overlaps(a->out, out_len, a->bias, b_len)))) {
    return MLIP_ERR_INVALID_ARG;
  }
  if (!q8) {
    MLIP_TRY(mlip_sim_check_write(v, section, a->acc, acc_len));
  }
  if (last) {
    MLIP_TRY(mlip_sim_check_write(v, section, a->out, out_len));
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

/* With F16C (MLIP_SIM_F16C, sim_internal.h: exact conversions), a block of
 * 16 outputs takes its weights 8 x 8 at a time: eight rows of 8 halves
 * converted and transposed in registers, so the lanes are outputs without
 * a scalar transpose; the products and sums are the same single operations
 * in the same order (no FMA: the runtime is built with -ffp-contract=off),
 * so the bits do not change. */
#ifdef MLIP_SIM_F16C

/* Columns k0..k0+7 of 8 weight rows (row q at wq + q * stride bytes):
 * c[k] holds W[0..7][k0 + k]. */
static void mlip_sim_fc_cols8(const uint8_t* wq, size_t stride, __m256 c[8]) {
  const __m256 r0 = mlip_sim_h2f_8(wq), r1 = mlip_sim_h2f_8(wq + stride);
  const __m256 r2 = mlip_sim_h2f_8(wq + 2u * stride), r3 = mlip_sim_h2f_8(wq + 3u * stride);
  const __m256 r4 = mlip_sim_h2f_8(wq + 4u * stride), r5 = mlip_sim_h2f_8(wq + 5u * stride);
  const __m256 r6 = mlip_sim_h2f_8(wq + 6u * stride), r7 = mlip_sim_h2f_8(wq + 7u * stride);
  /* pairs of rows interleaved, then columns k and k + 4 of rows 0-3 (and 4-7) */
  const __m256 t0 = _mm256_unpacklo_ps(r0, r1), t1 = _mm256_unpackhi_ps(r0, r1);
  const __m256 t2 = _mm256_unpacklo_ps(r2, r3), t3 = _mm256_unpackhi_ps(r2, r3);
  const __m256 t4 = _mm256_unpacklo_ps(r4, r5), t5 = _mm256_unpackhi_ps(r4, r5);
  const __m256 t6 = _mm256_unpacklo_ps(r6, r7), t7 = _mm256_unpackhi_ps(r6, r7);
  const __m256 s0 = _mm256_shuffle_ps(t0, t2, 0x44), s1 = _mm256_shuffle_ps(t0, t2, 0xEE);
  const __m256 s2 = _mm256_shuffle_ps(t1, t3, 0x44), s3 = _mm256_shuffle_ps(t1, t3, 0xEE);
  const __m256 s4 = _mm256_shuffle_ps(t4, t6, 0x44), s5 = _mm256_shuffle_ps(t4, t6, 0xEE);
  const __m256 s6 = _mm256_shuffle_ps(t5, t7, 0x44), s7 = _mm256_shuffle_ps(t5, t7, 0xEE);
  c[0] = _mm256_permute2f128_ps(s0, s4, 0x20);
  c[1] = _mm256_permute2f128_ps(s1, s5, 0x20);
  c[2] = _mm256_permute2f128_ps(s2, s6, 0x20);
  c[3] = _mm256_permute2f128_ps(s3, s7, 0x20);
  c[4] = _mm256_permute2f128_ps(s0, s4, 0x31);
  c[5] = _mm256_permute2f128_ps(s1, s5, 0x31);
  c[6] = _mm256_permute2f128_ps(s2, s6, 0x31);
  c[7] = _mm256_permute2f128_ps(s3, s7, 0x31);
}

/* acc[q] (16 outputs, rows of k_n halves at wp) plus x[k] * W[q][k] for
 * k = 0..k_n-1 in order. */
static void mlip_sim_fc_block16_f16c(const uint8_t* xp, const uint8_t* wp, size_t k_n, float acc[16]) {
  const size_t stride = k_n * 2u;
  __m256 a0 = _mm256_loadu_ps(acc), a1 = _mm256_loadu_ps(acc + 8);
  size_t k0, k, q;
  for (k0 = 0; k0 + 8u <= k_n; k0 += 8u) {
    __m256 c0[8], c1[8];
    float x[8];
    mlip_sim_h2f_row(xp + k0 * 2u, x, 8u);
    mlip_sim_fc_cols8(wp + k0 * 2u, stride, c0);
    mlip_sim_fc_cols8(wp + 8u * stride + k0 * 2u, stride, c1);
    for (k = 0; k < 8u; ++k) {
      const __m256 xv = _mm256_set1_ps(x[k]);
      a0 = _mm256_add_ps(a0, _mm256_mul_ps(xv, c0[k]));
      a1 = _mm256_add_ps(a1, _mm256_mul_ps(xv, c1[k]));
    }
  }
  _mm256_storeu_ps(acc, a0);
  _mm256_storeu_ps(acc + 8, a1);
  for (; k0 < k_n; ++k0) { /* the last k_n % 8 steps */
    const float x = mlip_sim_h2f(mlip_sim_ld16(xp + k0 * 2u));
    for (q = 0; q < 16u; ++q) {
      acc[q] = acc[q] + x * mlip_sim_h2f(mlip_sim_ld16(wp + q * stride + k0 * 2u));
    }
  }
}
#endif

/* 8-bit (docs/mlip-spec.md 4a): each output the dot product of its row
   and its weights, then its record's bias and requantization. */
static mlip_status fc_q8(const mlip_fc_args* a, uint8_t* ocm) {
  const uint32_t dt = a->dtype;
  const uint8_t* in = ocm + a->in;
  const uint8_t* wt = ocm + a->weights;
  const uint8_t* rec = ocm + a->bias;
  uint8_t* out = ocm + a->out;
  const size_t n_n = a->n, k_n = a->k, oc_n = a->out_c;
  size_t n, o;
  if (!mlip_sim_q8_records_ok(rec, oc_n, a->requant)) {
    return MLIP_ERR_INVALID_ARG;
  }
  for (n = 0; n < n_n; ++n) {
    for (o = 0; o < oc_n; ++o) {
      const uint8_t* xp = in + n * k_n;
      const uint8_t* wp = wt + o * k_n;
      /* at most 33025 products of at most 255 * 128: no overflow */
      mlip_sim_q8_store_requantized(out + n * oc_n + o, mlip_sim_q8_dot(dt, xp, wp, k_n, a->x_zp), rec, o, a->y_zp,
                                    a->clamp_lo, a->clamp_hi);
    }
  }
  return MLIP_OK;
}

/* 16x8 (docs/mlip-spec.md 4a): int16 rows, int8 weights, the int64 dot
   product plus the record's int64 bias, mlip_requantize64 into the clamp
   (zero points 0). */
static mlip_status fc_q16(const mlip_fc_args* a, uint8_t* ocm) {
  const uint8_t* in = ocm + a->in;
  const uint8_t* wt = ocm + a->weights;
  const uint8_t* rec = ocm + a->bias;
  uint8_t* out = ocm + a->out;
  const size_t n_n = a->n, k_n = a->k, oc_n = a->out_c;
  size_t n, o;
  if (!mlip_sim_q16_records_ok(rec, oc_n, a->requant)) {
    return MLIP_ERR_INVALID_ARG;
  }
  for (n = 0; n < n_n; ++n) {
    for (o = 0; o < oc_n; ++o) {
      mlip_sim_q16_store_requantized(out + (n * oc_n + o) * 2u, mlip_sim_q16_dot(in + n * k_n * 2u, wt + o * k_n, k_n),
                                     rec, o, a->clamp_lo, a->clamp_hi);
    }
  }
  return MLIP_OK;
}

/* 8-bit with 4-bit weights (w4_block n > 0): fc_q8 one output at a time,
   its packed row (mlip/kq4_format.h) unpacked in pieces of at most
   MLIP_SIM_W4_ROW weights, each piece's sum added (integers: the same
   value). */
static mlip_status fc_q4(const mlip_fc_args* a, uint8_t* ocm) {
  const uint8_t* wt = ocm + a->weights;
  const uint8_t* rec = ocm + a->bias;
  const size_t n_n = a->n, k_n = a->k, oc_n = a->out_c;
  const uint64_t rb = mlip_sim_w4_row_bytes(a->k, a->w4_block);
  int8_t row[MLIP_SIM_W4_ROW];
  size_t n, o, k0;
  if (!mlip_sim_q8_records_ok(rec, oc_n, a->requant) || !mlip_sim_w4_ok(wt, oc_n, a->k, a->w4_block)) {
    return MLIP_ERR_INVALID_ARG;
  }
  for (n = 0; n < n_n; ++n) {
    for (o = 0; o < oc_n; ++o) {
      int32_t acc = 0; /* at most 33025 products of at most 255 * 128: no overflow */
      for (k0 = 0; k0 < k_n; k0 += MLIP_SIM_W4_ROW) {
        const size_t kc = k_n - k0 < MLIP_SIM_W4_ROW ? k_n - k0 : MLIP_SIM_W4_ROW;
        mlip_kq4_unpack(wt + o * rb, 1, (int32_t)k_n, (int32_t)a->w4_block, 0, (int32_t)k0, (int32_t)kc, row);
        acc += mlip_sim_q8_dot(a->dtype, ocm + a->in + n * k_n + k0, (const uint8_t*)row, kc, a->x_zp);
      }
      mlip_sim_q8_store_requantized(ocm + a->out + n * oc_n + o, acc, rec, o, a->y_zp, a->clamp_lo, a->clamp_hi);
    }
  }
  return MLIP_OK;
}

/* The integer forms: 8-bit (int8 or 4-bit weights), or 16x8. */
static mlip_status fc_integer(const mlip_fc_args* a, uint8_t* ocm) {
  if (a->dtype == MLIP_DT_INT16) {
    return fc_q16(a, ocm);
  }
  return a->w4_block != 0u ? fc_q4(a, ocm) : fc_q8(a, ocm);
}

mlip_status mlip_sim_exec_fc(const mlip_sim_env* env, uint8_t* ocm, const mlip_decoded_cmd* d) {
  const mlip_fc_args* a = &d->u.fc;
  const uint8_t* in = ocm + a->in;
  const uint8_t* wt = ocm + a->weights;
  uint8_t* accm = ocm + a->acc;
  const int first = a->first != 0u;
  const int last = a->last != 0u;
  const uint8_t* bias = (last && a->bias != MLIP_NO_OFFSET) ? ocm + a->bias : NULL;
  uint8_t* out = last ? ocm + a->out : NULL;
  const size_t n_n = a->n, k_n = a->k, oc_n = a->out_c;
#if MLIP_SIM_COMPACT
  /* the reference: one output at a time, the spec's loop */
  size_t n, o, k;
  (void)env; /* works in the tile's OCM only */
  if (a->dtype != MLIP_DT_FP16) {
    return fc_integer(a, ocm);
  }
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
        r = mlip_sim_apply_act(r, a->act, a->act_lo, a->act_hi);
        mlip_sim_st16(out + (n * oc_n + o) * 2u, mlip_sim_round_result(r));
      }
    }
  }
#else
  float wf[MLIP_SIM_FC_KC][MLIP_SIM_FC_OB];
  float row[MLIP_SIM_FC_KC];
  size_t n, o0, q, k0, k;
  (void)env; /* works in the tile's OCM only */
  if (a->dtype != MLIP_DT_FP16) {
    return fc_integer(a, ocm);
  }
  for (n = 0; n < n_n; ++n) {
    const uint8_t* xp = in + n * k_n * 2u;
    for (o0 = 0; o0 < oc_n; o0 += MLIP_SIM_FC_OB) {
      const size_t no = oc_n - o0 < MLIP_SIM_FC_OB ? oc_n - o0 : MLIP_SIM_FC_OB;
      const uint8_t* wp = wt + o0 * k_n * 2u;
      float acc[MLIP_SIM_FC_OB];
      for (q = 0; q < MLIP_SIM_FC_OB; ++q) {
        acc[q] = first || q >= no ? 0.0f : mlip_sim_ldf(accm + (n * oc_n + o0 + q) * 4u);
      }
      k0 = 0;
#ifdef MLIP_SIM_F16C
      if (no == 16u && MLIP_SIM_FC_OB == 16u) {
        mlip_sim_fc_block16_f16c(xp, wp, k_n, acc);
        k0 = k_n; /* done: the portable loop below runs no chunk */
      }
#endif
      for (; k0 < k_n; k0 += MLIP_SIM_FC_KC) {
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
        mlip_sim_act_row(acc, no, a->act, a->act_lo, a->act_hi);
        mlip_sim_round_row(acc, out + (n * oc_n + o0) * 2u, no);
      }
    }
  }
#endif
  return MLIP_OK;
}
