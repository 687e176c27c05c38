/* One tile of 4 KB OCM and a command buffer being built, for the simulator
   tests that run one hand-written layer at a time on integer data
   (test_sim_int8.c, test_sim_q16.c): include once, after cmocka.h. */
#ifndef MLIPC_TESTS_SIM_TILE_FIXTURE_H
#define MLIPC_TESTS_SIM_TILE_FIXTURE_H

#include <string.h>

#include "cmdbuf_builder.h"
#include "mlip/platform.h"

uint64_t mlip_platform_time_ns(void) {
  return 0u;
}

#define TILE_OCM 4096u
static cb_builder b;
static uint8_t ocm[TILE_OCM];
static uint32_t layer0;

/* A fresh int8 buffer with one layer of `kind`, and a zeroed OCM. */
static void fresh(uint32_t kind) {
  cb_init(&b, MLIP_MCPU_CN10KA, 1, TILE_OCM);
  b.hdr.quantize = MLIP_QUANT_INT8;
  layer0 = cb_layer(&b, kind, "layer");
  memset(ocm, 0, sizeof ocm);
}

static mlip_status run(void) {
  return cb_run(&b, ocm, sizeof ocm, NULL, 0, NULL, 0, NULL, 0, NULL, 0);
}

static mlip_status validate(void) {
  static uint8_t cmdbuf[64u * 1024u];
  size_t n = cb_build(&b, cmdbuf, sizeof cmdbuf);
  assert_true(n > 0u);
  return mlip_cmdbuf_validate(cmdbuf, n);
}

static void set8(uint32_t off, int32_t v) {
  ocm[off] = (uint8_t)(v < 0 ? v + 256 : v);
}

#endif
