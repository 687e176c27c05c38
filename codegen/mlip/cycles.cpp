#include "mlip/cycles.h"

namespace mlipc::mlip {

mlip_cycle_rates cycle_rates(const TargetInfo& t) {
  return {t.macs_per_cycle, t.dma_bytes_per_cycle, t.eltwise_per_cycle, t.cmd_overhead_cycles};
}

uint64_t layer_cycles(const std::vector<RCommand>& commands, const TargetInfo& t) {
  const mlip_cycle_rates rates = cycle_rates(t);
  mlip_cycle_run run;
  mlip_cycle_run_reset(&run);
  for (const RCommand& c : commands) {
    mlip_decoded_cmd d;
    mlip_cmd_decode(&c.cmd, &d);
    mlip_cycle_run_add(&run, &rates, &d);
  }
  return mlip_cycle_run_total(&run, &rates);
}

}  // namespace mlipc::mlip
