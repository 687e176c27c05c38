/* PERMUTE: a strided copy in OCM of up to MLIP_PERMUTE_RANK (6) dimensions,
 * dst[i5][i4][i0][i1][i2][i3] = src[i5 * s5 + i4 * s4 + i0 * s0 + i1 * s1
 * + i2 * s2 + i3 * s3], any element size (operands: MLIP_FIELDS_permute,
 * mlip/cmd_table.h; d4 and d5 of 0 count as 1): a transpose of any
 * permutation, a slice with steps, the gather of one index, a broadcast.
 * Bits are moved, nothing is computed. One loop for every rank (an
 * odometer over the dimensions, outermost first), so a larger rank costs
 * no second copy of the loop in the simulator's code. Its validation rule
 * (docs/command-buffer.md) and its executor (docs/mlip-spec.md); the
 * opcode table (opcodes.c) names both. */
#include "sim_internal.h"

/* The command's dimensions and strides, outermost first (d5, d4, d0 .. d3). */
static void permute_shape(const mlip_permute_args* a, uint32_t n[MLIP_PERMUTE_RANK], uint32_t s[MLIP_PERMUTE_RANK]) {
  n[0] = a->d5 ? a->d5 : 1u;
  n[1] = a->d4 ? a->d4 : 1u;
  n[2] = a->d0;
  n[3] = a->d1;
  n[4] = a->d2;
  n[5] = a->d3;
  s[0] = a->s5;
  s[1] = a->s4;
  s[2] = a->s0;
  s[3] = a->s1;
  s[4] = a->s2;
  s[5] = a->s3;
}

static uint64_t permute_elems(const mlip_permute_args* a) {
  uint32_t n[MLIP_PERMUTE_RANK], s[MLIP_PERMUTE_RANK];
  uint64_t elems = 1;
  int k;
  permute_shape(a, n, s);
  for (k = 0; k < MLIP_PERMUTE_RANK; ++k) elems = mlip_sim_sat_mul(elems, n[k]);
  return elems;
}

mlip_status mlip_sim_check_permute(const mlip_sim_view* v, uint32_t section, const mlip_decoded_cmd* d) {
  const mlip_permute_args* a = &d->u.permute;
  const uint64_t e = a->elem_bytes;
  const uint64_t out_len = mlip_sim_sat_mul(permute_elems(a), e);
  uint32_t n[MLIP_PERMUTE_RANK], s[MLIP_PERMUTE_RANK];
  uint64_t last = 0, src_len; /* the source extent: the largest element read, plus one */
  int k;
  permute_shape(a, n, s);
  for (k = 0; k < MLIP_PERMUTE_RANK; ++k) last = mlip_sim_sat_add(last, mlip_sim_sat_mul((uint64_t)n[k] - 1u, s[k]));
  src_len = mlip_sim_sat_mul(mlip_sim_sat_add(last, 1u), e);
  MLIP_TRY(mlip_sim_check_ocm(v, a->src, src_len));
  MLIP_TRY(mlip_sim_check_ocm(v, a->dst, out_len));
  if (mlip_sim_overlaps(a->src, src_len, a->dst, out_len)) {
    return MLIP_ERR_INVALID_ARG;
  }
  return mlip_sim_check_write(v, section, a->dst, out_len);
}

mlip_status mlip_sim_exec_permute(const mlip_sim_env* env, uint8_t* ocm, const mlip_decoded_cmd* d) {
  const mlip_permute_args* a = &d->u.permute;
  const uint8_t* src = ocm + a->src;
  uint8_t* dst = ocm + a->dst;
  const size_t e = a->elem_bytes;
  uint32_t n[MLIP_PERMUTE_RANK], s[MLIP_PERMUTE_RANK], idx[MLIP_PERMUTE_RANK] = {0};
  size_t off = 0; /* source element of idx; the validator bounds every one inside OCM */
  uint64_t i, elems;
  int k;
  (void)env; /* works in the tile's OCM only */
  permute_shape(a, n, s);
  elems = permute_elems(a);
  for (i = 0; i < elems; ++i) {
    memcpy(dst, src + off * e, e);
    dst += e;
    /* the next index, innermost first; a dimension that wraps takes back its steps (unsigned, exact modulo) */
    for (k = MLIP_PERMUTE_RANK - 1; k >= 0; --k) {
      off += s[k];
      if (++idx[k] < n[k]) break;
      off -= (size_t)n[k] * s[k];
      idx[k] = 0;
    }
  }
  return MLIP_OK;
}
