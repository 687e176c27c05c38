/* Counters of region {{region}}, read by profilers (mlipc run --profile):
 * one per layer (estimated MLIP cycles, host time), then the whole
 * region's (the device's cycles on the hardware backend). */
mlip_layer_stats {{fn}}_stats[{{stats_entries}}];
/* Initialized (.data): the runtime refuses a state it did not write. */
static mlip_region_state {{fn}}_state = MLIP_REGION_STATE_INIT;
{{^hw}}
/* The simulator's on-chip memory: every tile's OCM, sized by the compiler,
 * in a section of its own that needs no zeroing. */
static uint8_t {{fn}}_ocm[{{ocm_bytes}}] MLIP_SECTION(MLIP_OCM_SECTION) MLIP_ALIGNED(16);
{{/hw}}

static int32_t {{fn}}(const uint8_t* cmdbuf, {{#ins}}const {{t}}* {{var}}, {{/ins}}{{#outs}}{{t}}* {{var}}, {{/outs}}uint8_t* scratch) {
  void* inputs[{{num_inputs}}];
  void* outputs[{{num_outputs}}];
  /* The bytes of each array: the runtime checks every binding against them. */
  static const uint32_t input_sizes[{{num_inputs}}] = { {{#ins}}{{bytes}}u, {{/ins}}};
  static const uint32_t output_sizes[{{num_outputs}}] = { {{#outs}}{{bytes}}u, {{/outs}}};
  mlip_region region;
{{#ins}}
  inputs[{{index}}] = (void*){{var}};
{{/ins}}
{{#outs}}
  outputs[{{index}}] = (void*){{var}};
{{/outs}}
  region.name = "{{region}}";
  region.cmdbuf = cmdbuf;
  region.cmdbuf_size = {{cmdbuf_bytes}}u;
{{#hw}}
  region.ocm = 0;
  region.ocm_capacity = 0;
{{/hw}}
{{^hw}}
  region.ocm = {{fn}}_ocm;
  region.ocm_capacity = {{ocm_bytes}}u;
{{/hw}}
  region.stats = {{fn}}_stats;
  region.stats_capacity = {{stats_entries}}u;
  region.state = &{{fn}}_state;
  return mlip_region_run(&region, inputs, input_sizes, {{num_inputs}}u, outputs, output_sizes, {{num_outputs}}u, scratch,
                         {{scratch_bytes}}u);
}
