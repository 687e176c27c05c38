/* The model-specific half of `mlipc run`'s host program (main.c is the
 * other): which module to run, and the counters of its MLIP regions (one
 * per layer, then the region's), NULL-terminated, with their layer counts. */
#include "mlip/model.h"
#include "mlip/region.h"
#include "tvmgen_{{module}}.h"

{{#regions}}
extern mlip_layer_stats {{symbol}}[{{num_layers}} + 1];
{{/regions}}

const mlip_model* const mlipc_host_model = &tvmgen_{{module}}_model;
mlip_layer_stats* const mlipc_host_region_stats[] = {
{{#regions}}
    {{symbol}},
{{/regions}}
    NULL};
const int32_t mlipc_host_region_layers[] = {
{{#regions}}
    {{num_layers}},
{{/regions}}
    0};
