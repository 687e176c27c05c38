/* The cycle model of docs/mlip-spec.md section 5, one case per opcode in
 * the order of the spec's table. The compiler links this file too, so its
 * estimates and the simulator's counts are the same function. */
#include "mlip/strict_fp.h" /* first: no contraction, same bits everywhere */
#include "mlip/cycle_model.h"

#include <string.h>

static uint64_t ceil_div_u64(uint64_t a, uint64_t b) {
  if (b == 0u) {
    return a; /* the validator rejects zero constants; stay defined anyway */
  }
  return a / b + (a % b != 0u ? 1u : 0u);
}

/* MACs per cycle of a CONV2D, FC or MATMUL of element type dt. */
static uint32_t mac_rate(const mlip_cycle_rates* rates, uint32_t dt) {
  if (dt == MLIP_DT_INT16) {
    return rates->macs_per_cycle * MLIP_INT16X8_MAC_FACTOR;
  }
  return dt != MLIP_DT_FP16 ? rates->macs_per_cycle * MLIP_INT8_MAC_FACTOR : rates->macs_per_cycle;
}

mlip_cycle_rates mlip_cycle_rates_of(const mlip_header* hdr) {
  mlip_cycle_rates r;
  r.macs_per_cycle = hdr->macs_per_cycle;
  r.dma_bytes_per_cycle = hdr->dma_bytes_per_cycle;
  r.eltwise_per_cycle = hdr->eltwise_per_cycle;
  r.cmd_overhead_cycles = hdr->cmd_overhead_cycles;
  return r;
}

int mlip_cmd_cycles(const mlip_cycle_rates* rates, const mlip_decoded_cmd* c, uint64_t* compute, uint64_t* dma) {
  const mlip_args* a = &c->u;
  uint64_t work = 0;                        /* MACs or elements */
  uint32_t rate = rates->eltwise_per_cycle; /* of work per cycle */
  *compute = 0;
  *dma = 0;
  switch (c->opcode) {
    case MLIP_OP_DMA_IN:
    case MLIP_OP_DMA_OUT: {
      /* 128-byte bursts of DDR: every row is rounded up to whole bursts; a
         converting DMA's DDR row is fp32, twice its OCM row. */
      uint64_t row = a->dma.convert != 0u ? 2u * (uint64_t)a->dma.row_bytes : (uint64_t)a->dma.row_bytes;
      uint64_t bytes = (uint64_t)a->dma.rows * (ceil_div_u64(row, MLIP_OCM_ALIGN) * MLIP_OCM_ALIGN);
      *dma = ceil_div_u64(bytes, rates->dma_bytes_per_cycle);
      return 1;
    }
    case MLIP_OP_CONV2D:
      work = (uint64_t)a->conv2d.out_h * a->conv2d.out_w * a->conv2d.out_c * a->conv2d.kh * a->conv2d.kw *
             a->conv2d.ic_per_group;
      rate = mac_rate(rates, a->conv2d.dtype);
      break;
    case MLIP_OP_FC:
      work = (uint64_t)a->fc.n * a->fc.k * a->fc.out_c;
      rate = mac_rate(rates, a->fc.dtype);
      break;
    case MLIP_OP_MAXPOOL:
    case MLIP_OP_AVGPOOL:
      work = (uint64_t)a->pool.out_h * a->pool.out_w * a->pool.c * a->pool.kh * a->pool.kw;
      break;
    case MLIP_OP_GLOBAL_AVGPOOL:
    case MLIP_OP_GLOBAL_MAXPOOL: work = (uint64_t)a->global_pool.hw * a->global_pool.c; break;
    case MLIP_OP_ADD: work = a->add.count; break;
    case MLIP_OP_ACTIVATION: work = a->activation.count; break;
    case MLIP_OP_TABLE: work = a->table.count; break;
    case MLIP_OP_ELTWISE: work = a->eltwise.count; break;
    case MLIP_OP_RESIZE: /* one element read per tap of each output element */
      work = (uint64_t)a->resize.out_h * a->resize.out_w * a->resize.c * a->resize.row_taps * a->resize.col_taps;
      break;
    case MLIP_OP_CONVERT: work = a->convert.count; break;
    case MLIP_OP_LAYOUT: work = (uint64_t)a->layout.outer * a->layout.a * a->layout.b; break;
    case MLIP_OP_MATMUL:
      work = (uint64_t)a->matmul.batch * a->matmul.m * a->matmul.k * a->matmul.n;
      rate = mac_rate(rates, a->matmul.dtype);
      if (a->matmul.dtype == MLIP_DT_INT16 && a->matmul.b_int16) {
        rate = rates->macs_per_cycle * MLIP_INT16X16_MAC_FACTOR; /* int16 by int16 */
      }
      break;
    case MLIP_OP_PERMUTE: /* d4 and d5 of 0: no such dimension */
      work = (uint64_t)a->permute.d0 * a->permute.d1 * a->permute.d2 * a->permute.d3 *
             (a->permute.d4 ? a->permute.d4 : 1u) * (a->permute.d5 ? a->permute.d5 : 1u);
      break;
    case MLIP_OP_SOFTMAX: /* three passes over a row: max, sum, result */
      work = 3u * (uint64_t)a->softmax.rows * a->softmax.len;
      break;
    case MLIP_OP_NORM: /* three passes: mean, variance, result (both 8-bit modes too) */
      work = 3u * (uint64_t)a->norm.rows * a->norm.len;
      break;
    case MLIP_OP_REDUCE: work = (uint64_t)a->reduce.outer * a->reduce.len * a->reduce.inner; break;
    case MLIP_OP_RNN: {
      /* Serial over time: a step's recurrent products R h read the state the
         step before wrote, so steps do not overlap. Per step, the products
         (batch * G * hidden * hidden MACs), then the gates and the state
         update (batch * (G + 1) * hidden elements: G activations and the
         update per unit), each rounded up to whole cycles. The 8-bit form
         computes its input projections too (batch * G * hidden * input
         MACs more per step; the fp16 form reads a MATMUL's). */
      uint64_t g = a->rnn.cell == MLIP_RNN_LSTM ? 4u : 3u;
      uint64_t per_seq = (uint64_t)a->rnn.batch * a->rnn.hidden;
      uint64_t k = (uint64_t)a->rnn.hidden + (a->rnn.dtype != MLIP_DT_FP16 ? a->rnn.input : 0u);
      uint64_t step = ceil_div_u64(per_seq * g * k, rates->macs_per_cycle) +
                      ceil_div_u64(per_seq * (g + 1u), rates->eltwise_per_cycle);
      *compute = (uint64_t)a->rnn.steps * step;
      return 1;
    }
    case MLIP_OP_BARRIER: return 0; /* no work, and not counted as a command */
    default: return 0;
  }
  *compute = ceil_div_u64(work, rate);
  return 1;
}

void mlip_cycle_run_reset(mlip_cycle_run* run) {
  memset(run, 0, sizeof *run);
}

void mlip_cycle_run_add(mlip_cycle_run* run, const mlip_cycle_rates* rates, const mlip_decoded_cmd* c) {
  uint64_t compute, dma;
  uint32_t t = c->tile < MLIP_MAX_TILES ? c->tile : MLIP_MAX_TILES - 1u;
  int counted = mlip_cmd_cycles(rates, c, &compute, &dma);
  run->compute[t] += compute;
  run->dma[t] += dma;
  run->cmds[t] += counted ? 1u : 0u;
}

uint64_t mlip_cycle_run_total(const mlip_cycle_run* run, const mlip_cycle_rates* rates) {
  uint64_t worst = 0;
  uint32_t t;
  for (t = 0; t < MLIP_MAX_TILES; ++t) {
    uint64_t busy = run->compute[t] > run->dma[t] ? run->compute[t] : run->dma[t];
    uint64_t cycles = busy + (uint64_t)rates->cmd_overhead_cycles * run->cmds[t];
    if (cycles > worst) {
      worst = cycles;
    }
  }
  return worst;
}
