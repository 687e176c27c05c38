// mlipc run's host program (templates/host): main.c, the same for every
// model, and model.c, its model-specific half rendered from metadata.json;
// and what the program prints, read back.
#pragma once

#include <string>

#include "host/host_model.h"
#include "mlf/metadata.h"

namespace mlipc::host::steps {

// templates/host/model.c for the module: its descriptor and the stats
// arrays of every MLIP region, found through metadata.json (the layer table
// names each region's C function). Every name that reaches the C source is
// checked to be an identifier.
std::string render_model_c(const mlf::Metadata& md);

// The timing lines of the program's output (templates/host/main.c:
// mlipc-total-ns, mlipc-layer, mlipc-mlip-layer, mlipc-mlip-region) into
// `result`; per-run figures are means over the runs, total_ns the median.
void read_timings(const std::string& out, RunResult& result);

}  // namespace mlipc::host::steps
