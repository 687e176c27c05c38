#include "mlip/cycles.h"

#include <algorithm>

namespace mlipc::mlip {

namespace {
uint64_t ceil_div(uint64_t a, uint64_t b) { return (a + b - 1) / b; }
}  // namespace

CommandCost command_cost(const mlip_cmd& c, const TargetInfo& t) {
  CommandCost k;
  const uint32_t* w = c.w;
  switch (c.opcode) {
    case MLIP_OP_DMA_IN:
    case MLIP_OP_DMA_OUT: {
      uint64_t bytes = uint64_t{w[MLIP_DMA_ROWS]} * ceil_div(w[MLIP_DMA_ROW_BYTES], 128) * 128;
      k.dma = ceil_div(bytes, t.dma_bytes_per_cycle);
      break;
    }
    case MLIP_OP_CONV2D: {
      uint64_t macs = uint64_t{w[MLIP_CONV_OUT_H]} * w[MLIP_CONV_OUT_W] * w[MLIP_CONV_OUT_C] * w[MLIP_CONV_KH] *
                      w[MLIP_CONV_KW] * w[MLIP_CONV_IC_PER_GROUP];
      k.compute = ceil_div(macs, t.macs_per_cycle);
      break;
    }
    case MLIP_OP_FC:
      k.compute = ceil_div(uint64_t{w[MLIP_FC_N]} * w[MLIP_FC_K] * w[MLIP_FC_OUT_C], t.macs_per_cycle);
      break;
    case MLIP_OP_MAXPOOL:
    case MLIP_OP_AVGPOOL:
      k.compute = ceil_div(uint64_t{w[MLIP_POOL_OUT_H]} * w[MLIP_POOL_OUT_W] * w[MLIP_POOL_C] * w[MLIP_POOL_KH] *
                               w[MLIP_POOL_KW],
                           t.eltwise_per_cycle);
      break;
    case MLIP_OP_GLOBAL_AVGPOOL:
    case MLIP_OP_GLOBAL_MAXPOOL:
      k.compute = ceil_div(uint64_t{w[MLIP_GPOOL_HW]} * w[MLIP_GPOOL_C], t.eltwise_per_cycle);
      break;
    case MLIP_OP_ADD: k.compute = ceil_div(w[MLIP_ADD_COUNT], t.eltwise_per_cycle); break;
    case MLIP_OP_CONVERT: k.compute = ceil_div(w[MLIP_CVT_COUNT], t.eltwise_per_cycle); break;
    case MLIP_OP_LAYOUT:
      k.compute = ceil_div(uint64_t{w[MLIP_LAY_OUTER]} * w[MLIP_LAY_A] * w[MLIP_LAY_B], t.eltwise_per_cycle);
      break;
    default: k.counted = false; break;  // BARRIER
  }
  return k;
}

uint64_t layer_cycles(const std::vector<RCommand>& commands, const TargetInfo& t) {
  uint64_t compute[MLIP_MAX_TILES] = {}, dma[MLIP_MAX_TILES] = {}, count[MLIP_MAX_TILES] = {};
  for (const RCommand& rc : commands) {
    CommandCost k = command_cost(rc.cmd, t);
    if (!k.counted) continue;
    compute[rc.cmd.tile] += k.compute;
    dma[rc.cmd.tile] += k.dma;
    count[rc.cmd.tile] += 1;
  }
  uint64_t worst = 0;
  for (unsigned i = 0; i < MLIP_MAX_TILES; ++i)
    worst = std::max(worst, std::max(compute[i], dma[i]) + uint64_t{t.cmd_overhead_cycles} * count[i]);
  return worst;
}

}  // namespace mlipc::mlip
