/* The cycle model (mlip/cycle_model.h, docs/mlip-spec.md section 5) against
 * figures computed by hand from the spec's table: every opcode, the
 * rounding up of DMA bursts and of cycles, both targets' constants, the
 * overlap of DMA and compute, the per-command overhead, BARRIER, and the
 * slowest tile. The compiler and the simulator both use this model, so it
 * is checked here rather than against a second implementation. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include <cmocka.h>

#include "mlip/cycle_model.h"

static const mlip_cycle_rates cn10ka = {256u, 32u, 64u, 40u};
static const mlip_cycle_rates cnf10kb = {128u, 16u, 32u, 40u};

static mlip_cmd cmd(uint32_t opcode, uint32_t tile) {
  mlip_cmd c;
  memset(&c, 0, sizeof c);
  c.opcode = (uint8_t)opcode;
  c.tile = (uint8_t)tile;
  return c;
}

static const mlip_decoded_cmd* decoded(const mlip_cmd* c) {
  static mlip_decoded_cmd d;
  (void)mlip_cmd_decode(c, &d);
  return &d;
}

static void expect_cost(const mlip_cycle_rates* r, const mlip_cmd* c, int counted, uint64_t compute, uint64_t dma) {
  uint64_t got_compute = 99, got_dma = 99;
  assert_int_equal(mlip_cmd_cycles(r, decoded(c), &got_compute, &got_dma), counted);
  assert_int_equal(got_compute, compute);
  assert_int_equal(got_dma, dma);
}

static void test_dma_rounds_rows_to_bursts(void** state) {
  mlip_cmd c = cmd(MLIP_OP_DMA_IN, 0);
  (void)state;
  c.w[MLIP_DMA_ROWS] = 3;
  c.w[MLIP_DMA_ROW_BYTES] = 129; /* 2 bursts per row: 3 x 256 = 768 bytes */
  expect_cost(&cn10ka, &c, 1, 0, 24);  /* 768 / 32 */
  expect_cost(&cnf10kb, &c, 1, 0, 48); /* 768 / 16 */
  c.opcode = MLIP_OP_DMA_OUT;
  c.w[MLIP_DMA_ROWS] = 1;
  c.w[MLIP_DMA_ROW_BYTES] = 1; /* one burst */
  expect_cost(&cn10ka, &c, 1, 0, 4);
}

static void test_conv_and_fc_count_macs(void** state) {
  mlip_cmd c = cmd(MLIP_OP_CONV2D, 0);
  (void)state;
  c.w[MLIP_CONV_OUT_H] = 4;
  c.w[MLIP_CONV_OUT_W] = 5;
  c.w[MLIP_CONV_OUT_C] = 6;
  c.w[MLIP_CONV_KH] = 3;
  c.w[MLIP_CONV_KW] = 3;
  c.w[MLIP_CONV_IC_PER_GROUP] = 7; /* 4*5*6*3*3*7 = 7560 MACs */
  c.w[MLIP_CONV_IN_C] = 1000;      /* not part of the work */
  expect_cost(&cn10ka, &c, 1, 30, 0);  /* ceil(7560 / 256) = 29.53 -> 30 */
  expect_cost(&cnf10kb, &c, 1, 60, 0); /* ceil(7560 / 128) = 59.06 -> 60 */
  c = cmd(MLIP_OP_FC, 0);
  c.w[MLIP_FC_N] = 2;
  c.w[MLIP_FC_K] = 300;
  c.w[MLIP_FC_OUT_C] = 64; /* 38400 MACs */
  expect_cost(&cn10ka, &c, 1, 150, 0);
  expect_cost(&cnf10kb, &c, 1, 300, 0);
}

static void test_elementwise_commands_count_elements(void** state) {
  mlip_cmd c = cmd(MLIP_OP_MAXPOOL, 0);
  (void)state;
  c.w[MLIP_POOL_OUT_H] = 2;
  c.w[MLIP_POOL_OUT_W] = 3;
  c.w[MLIP_POOL_C] = 5;
  c.w[MLIP_POOL_KH] = 2;
  c.w[MLIP_POOL_KW] = 2; /* 120 window elements */
  expect_cost(&cn10ka, &c, 1, 2, 0);
  c.opcode = MLIP_OP_AVGPOOL;
  expect_cost(&cnf10kb, &c, 1, 4, 0); /* ceil(120 / 32) */
  c = cmd(MLIP_OP_GLOBAL_AVGPOOL, 0);
  c.w[MLIP_GPOOL_HW] = 49;
  c.w[MLIP_GPOOL_C] = 10; /* 490 */
  expect_cost(&cn10ka, &c, 1, 8, 0);
  c.opcode = MLIP_OP_GLOBAL_MAXPOOL;
  expect_cost(&cn10ka, &c, 1, 8, 0);
  c = cmd(MLIP_OP_ADD, 0);
  c.w[MLIP_ADD_COUNT] = 64;
  expect_cost(&cn10ka, &c, 1, 1, 0);
  c.w[MLIP_ADD_COUNT] = 65;
  expect_cost(&cn10ka, &c, 1, 2, 0);
  c = cmd(MLIP_OP_ACTIVATION, 0);
  c.w[MLIP_ACTV_COUNT] = 129; /* any activation: elements, ceil(129 / 64) */
  c.w[MLIP_ACTV_ACT] = MLIP_ACT_SIGMOID;
  expect_cost(&cn10ka, &c, 1, 3, 0);
  expect_cost(&cnf10kb, &c, 1, 5, 0);
  c = cmd(MLIP_OP_ELTWISE, 0);
  c.w[MLIP_ELT_COUNT] = 640;
  c.w[MLIP_ELT_B_LEN] = 32; /* the cycled operand costs nothing more */
  expect_cost(&cn10ka, &c, 1, 10, 0);
  c = cmd(MLIP_OP_RESIZE, 0);
  c.w[MLIP_RESIZE_OUT_H] = 4;
  c.w[MLIP_RESIZE_OUT_W] = 8;
  c.w[MLIP_RESIZE_C] = 3;
  c.w[MLIP_RESIZE_ROW_TAPS] = 1;
  c.w[MLIP_RESIZE_COL_TAPS] = 1; /* nearest: one element per output, 96 */
  expect_cost(&cn10ka, &c, 1, 2, 0);
  c.w[MLIP_RESIZE_ROW_TAPS] = 2;
  c.w[MLIP_RESIZE_COL_TAPS] = 2; /* bilinear: four taps, 384 */
  expect_cost(&cn10ka, &c, 1, 6, 0);
  c.w[MLIP_RESIZE_IN_H] = 100; /* the input block's size does not matter */
  expect_cost(&cn10ka, &c, 1, 6, 0);
  c = cmd(MLIP_OP_CONVERT, 0);
  c.w[MLIP_CVT_COUNT] = 1000;
  expect_cost(&cn10ka, &c, 1, 16, 0);
  c = cmd(MLIP_OP_LAYOUT, 0);
  c.w[MLIP_LAY_OUTER] = 2;
  c.w[MLIP_LAY_A] = 3;
  c.w[MLIP_LAY_B] = 11;
  c.w[MLIP_LAY_ELEM] = 4; /* bytes per element do not matter: 66 elements */
  expect_cost(&cn10ka, &c, 1, 2, 0);
}

static void test_barrier_is_free_and_not_a_command(void** state) {
  mlip_cmd c = cmd(MLIP_OP_BARRIER, 0);
  (void)state;
  expect_cost(&cn10ka, &c, 0, 0, 0);
}

static void test_run_overlaps_dma_and_compute_and_takes_the_slowest_tile(void** state) {
  mlip_cycle_run run;
  mlip_cmd c;
  (void)state;
  mlip_cycle_run_reset(&run);
  assert_int_equal(mlip_cycle_run_total(&run, &cn10ka), 0);
  /* tile 0: DMA 640 bytes = 20 cycles, ADD 1280 = 20 cycles, barrier: max(20, 20) + 2 * 40 = 100 */
  c = cmd(MLIP_OP_DMA_IN, 0);
  c.w[MLIP_DMA_ROWS] = 5;
  c.w[MLIP_DMA_ROW_BYTES] = 128;
  mlip_cycle_run_add(&run, &cn10ka, decoded(&c));
  c = cmd(MLIP_OP_ADD, 0);
  c.w[MLIP_ADD_COUNT] = 1280;
  mlip_cycle_run_add(&run, &cn10ka, decoded(&c));
  c = cmd(MLIP_OP_BARRIER, 0);
  mlip_cycle_run_add(&run, &cn10ka, decoded(&c));
  assert_int_equal(mlip_cycle_run_total(&run, &cn10ka), 100);
  /* tile 3: one FC of 25600 MACs = 100 cycles + 40 = 140: the slowest */
  c = cmd(MLIP_OP_FC, 3);
  c.w[MLIP_FC_N] = 1;
  c.w[MLIP_FC_K] = 256;
  c.w[MLIP_FC_OUT_C] = 100;
  mlip_cycle_run_add(&run, &cn10ka, decoded(&c));
  assert_int_equal(mlip_cycle_run_total(&run, &cn10ka), 140);
  /* A tile number past the last counts as the last tile (7): two FCs there, 200 + 2 * 40 = 280. */
  c.tile = 200;
  mlip_cycle_run_add(&run, &cn10ka, decoded(&c));
  c.tile = 7;
  mlip_cycle_run_add(&run, &cn10ka, decoded(&c));
  assert_int_equal(run.cmds[7], 2);
  assert_int_equal(mlip_cycle_run_total(&run, &cn10ka), 280);
  mlip_cycle_run_reset(&run);
  assert_int_equal(mlip_cycle_run_total(&run, &cn10ka), 0);
}

static void test_rates_come_from_the_header(void** state) {
  mlip_header h;
  mlip_cycle_rates r;
  (void)state;
  memset(&h, 0, sizeof h);
  h.macs_per_cycle = 1;
  h.dma_bytes_per_cycle = 2;
  h.eltwise_per_cycle = 3;
  h.cmd_overhead_cycles = 4;
  h.clock_mhz = 5;
  r = mlip_cycle_rates_of(&h);
  assert_int_equal(r.macs_per_cycle, 1);
  assert_int_equal(r.dma_bytes_per_cycle, 2);
  assert_int_equal(r.eltwise_per_cycle, 3);
  assert_int_equal(r.cmd_overhead_cycles, 4);
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_dma_rounds_rows_to_bursts),
      cmocka_unit_test(test_conv_and_fc_count_macs),
      cmocka_unit_test(test_elementwise_commands_count_elements),
      cmocka_unit_test(test_barrier_is_free_and_not_a_command),
      cmocka_unit_test(test_run_overlaps_dma_and_compute_and_takes_the_slowest_tile),
      cmocka_unit_test(test_rates_come_from_the_header),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
