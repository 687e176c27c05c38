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

/* A command of `opcode` on `tile`, every operand 0 (typed: mlip/cmd_args.h). */
static mlip_decoded_cmd cmd(uint32_t opcode, uint32_t tile) {
  mlip_decoded_cmd c;
  memset(&c, 0, sizeof c);
  c.opcode = opcode;
  c.tile = tile;
  return c;
}

static void expect_cost(const mlip_cycle_rates* r, const mlip_decoded_cmd* c, int counted, uint64_t compute,
                        uint64_t dma) {
  uint64_t got_compute = 99, got_dma = 99;
  assert_int_equal(mlip_cmd_cycles(r, c, &got_compute, &got_dma), counted);
  assert_int_equal(got_compute, compute);
  assert_int_equal(got_dma, dma);
}

static void test_dma_rounds_rows_to_bursts(void** state) {
  mlip_decoded_cmd c = cmd(MLIP_OP_DMA_IN, 0);
  (void)state;
  c.u.dma.rows = 3;
  c.u.dma.row_bytes = 129; /* 2 bursts per row: 3 x 256 = 768 bytes */
  expect_cost(&cn10ka, &c, 1, 0, 24);  /* 768 / 32 */
  expect_cost(&cnf10kb, &c, 1, 0, 48); /* 768 / 16 */
  c.opcode = MLIP_OP_DMA_OUT;
  c.u.dma.rows = 1;
  c.u.dma.row_bytes = 1; /* one burst */
  expect_cost(&cn10ka, &c, 1, 0, 4);
}

static void test_converting_dma_counts_the_fp32_side(void** state) {
  mlip_decoded_cmd c = cmd(MLIP_OP_DMA_IN, 0);
  (void)state;
  c.u.dma.rows = 3;
  c.u.dma.row_bytes = 100; /* 50 halves in OCM, 200 bytes of fp32 in DDR: 2 bursts per row, 768 bytes */
  expect_cost(&cn10ka, &c, 1, 0, 12); /* unconverted: 1 burst per row, 384 / 32 */
  c.u.dma.convert = MLIP_CVT_F32_TO_F16;
  expect_cost(&cn10ka, &c, 1, 0, 24);
  c.opcode = MLIP_OP_DMA_OUT;
  c.u.dma.convert = MLIP_CVT_F16_TO_F32;
  expect_cost(&cnf10kb, &c, 1, 0, 48);
}

static void test_conv_and_fc_count_macs(void** state) {
  mlip_decoded_cmd c = cmd(MLIP_OP_CONV2D, 0);
  (void)state;
  c.u.conv2d.out_h = 4;
  c.u.conv2d.out_w = 5;
  c.u.conv2d.out_c = 6;
  c.u.conv2d.kh = 3;
  c.u.conv2d.kw = 3;
  c.u.conv2d.ic_per_group = 7; /* 4*5*6*3*3*7 = 7560 MACs */
  c.u.conv2d.in_c = 1000;      /* not part of the work */
  expect_cost(&cn10ka, &c, 1, 30, 0);  /* ceil(7560 / 256) = 29.53 -> 30 */
  expect_cost(&cnf10kb, &c, 1, 60, 0); /* ceil(7560 / 128) = 59.06 -> 60 */
  c = cmd(MLIP_OP_FC, 0);
  c.u.fc.n = 2;
  c.u.fc.k = 300;
  c.u.fc.out_c = 64; /* 38400 MACs */
  expect_cost(&cn10ka, &c, 1, 150, 0);
  expect_cost(&cnf10kb, &c, 1, 300, 0);
}

static void test_rnn_counts_each_step(void** state) {
  mlip_decoded_cmd c = cmd(MLIP_OP_RNN, 0);
  (void)state;
  c.u.rnn.steps = 12;
  c.u.rnn.batch = 2;
  c.u.rnn.hidden = 24;
  c.u.rnn.cell = MLIP_RNN_LSTM; /* per step 2*4*24*24 = 4608 MACs and 2*5*24 = 240 elements */
  expect_cost(&cn10ka, &c, 1, 12 * (18 + 4), 0);  /* 4608 / 256 = 18, ceil(240 / 64) = 4 */
  expect_cost(&cnf10kb, &c, 1, 12 * (36 + 8), 0); /* 4608 / 128 = 36, ceil(240 / 32) = 8 */
  c.u.rnn.cell = MLIP_RNN_GRU; /* per step 2*3*24*24 = 3456 MACs and 2*4*24 = 192 elements */
  expect_cost(&cn10ka, &c, 1, 12 * (14 + 3), 0); /* ceil(13.5) = 14, 192 / 64 = 3 */
  /* Small steps are not pooled: 100 steps of 3*5*5 = 75 MACs and 20 elements
     take 100 * (1 + 1) cycles, not ceil(7500 / 256) + ceil(2000 / 64). */
  c.u.rnn.steps = 100;
  c.u.rnn.batch = 1;
  c.u.rnn.hidden = 5;
  expect_cost(&cn10ka, &c, 1, 200, 0);
}

static void test_elementwise_commands_count_elements(void** state) {
  mlip_decoded_cmd c = cmd(MLIP_OP_MAXPOOL, 0);
  (void)state;
  c.u.pool.out_h = 2;
  c.u.pool.out_w = 3;
  c.u.pool.c = 5;
  c.u.pool.kh = 2;
  c.u.pool.kw = 2; /* 120 window elements */
  expect_cost(&cn10ka, &c, 1, 2, 0);
  c.opcode = MLIP_OP_AVGPOOL;
  expect_cost(&cnf10kb, &c, 1, 4, 0); /* ceil(120 / 32) */
  c = cmd(MLIP_OP_GLOBAL_AVGPOOL, 0);
  c.u.global_pool.hw = 49;
  c.u.global_pool.c = 10; /* 490 */
  expect_cost(&cn10ka, &c, 1, 8, 0);
  c.opcode = MLIP_OP_GLOBAL_MAXPOOL;
  expect_cost(&cn10ka, &c, 1, 8, 0);
  c = cmd(MLIP_OP_ADD, 0);
  c.u.add.count = 64;
  expect_cost(&cn10ka, &c, 1, 1, 0);
  c.u.add.count = 65;
  expect_cost(&cn10ka, &c, 1, 2, 0);
  c = cmd(MLIP_OP_ACTIVATION, 0);
  c.u.activation.count = 129; /* any activation: elements, ceil(129 / 64) */
  c.u.activation.act = MLIP_ACT_SIGMOID;
  expect_cost(&cn10ka, &c, 1, 3, 0);
  expect_cost(&cnf10kb, &c, 1, 5, 0);
  c = cmd(MLIP_OP_ELTWISE, 0);
  c.u.eltwise.count = 640;
  c.u.eltwise.b_len = 32; /* the cycled operand costs nothing more */
  expect_cost(&cn10ka, &c, 1, 10, 0);
  c = cmd(MLIP_OP_RESIZE, 0);
  c.u.resize.out_h = 4;
  c.u.resize.out_w = 8;
  c.u.resize.c = 3;
  c.u.resize.row_taps = 1;
  c.u.resize.col_taps = 1; /* nearest: one element per output, 96 */
  expect_cost(&cn10ka, &c, 1, 2, 0);
  c.u.resize.row_taps = 2;
  c.u.resize.col_taps = 2; /* bilinear: four taps, 384 */
  expect_cost(&cn10ka, &c, 1, 6, 0);
  c.u.resize.in_h = 100; /* the input block's size does not matter */
  expect_cost(&cn10ka, &c, 1, 6, 0);
  c = cmd(MLIP_OP_CONVERT, 0);
  c.u.convert.count = 1000;
  expect_cost(&cn10ka, &c, 1, 16, 0);
  c = cmd(MLIP_OP_LAYOUT, 0);
  c.u.layout.outer = 2;
  c.u.layout.a = 3;
  c.u.layout.b = 11;
  c.u.layout.elem_bytes = 4; /* bytes per element do not matter: 66 elements */
  expect_cost(&cn10ka, &c, 1, 2, 0);
}

static void test_barrier_is_free_and_not_a_command(void** state) {
  mlip_decoded_cmd c = cmd(MLIP_OP_BARRIER, 0);
  (void)state;
  expect_cost(&cn10ka, &c, 0, 0, 0);
}

static void test_run_overlaps_dma_and_compute_and_takes_the_slowest_tile(void** state) {
  mlip_cycle_run run;
  mlip_decoded_cmd c;
  (void)state;
  mlip_cycle_run_reset(&run);
  assert_int_equal(mlip_cycle_run_total(&run, &cn10ka), 0);
  /* tile 0: DMA 640 bytes = 20 cycles, ADD 1280 = 20 cycles, barrier: max(20, 20) + 2 * 40 = 100 */
  c = cmd(MLIP_OP_DMA_IN, 0);
  c.u.dma.rows = 5;
  c.u.dma.row_bytes = 128;
  mlip_cycle_run_add(&run, &cn10ka, &c);
  c = cmd(MLIP_OP_ADD, 0);
  c.u.add.count = 1280;
  mlip_cycle_run_add(&run, &cn10ka, &c);
  c = cmd(MLIP_OP_BARRIER, 0);
  mlip_cycle_run_add(&run, &cn10ka, &c);
  assert_int_equal(mlip_cycle_run_total(&run, &cn10ka), 100);
  /* tile 3: one FC of 25600 MACs = 100 cycles + 40 = 140: the slowest */
  c = cmd(MLIP_OP_FC, 3);
  c.u.fc.n = 1;
  c.u.fc.k = 256;
  c.u.fc.out_c = 100;
  mlip_cycle_run_add(&run, &cn10ka, &c);
  assert_int_equal(mlip_cycle_run_total(&run, &cn10ka), 140);
  /* A tile number past the last counts as the last tile (7): two FCs there, 200 + 2 * 40 = 280. */
  c.tile = 200;
  mlip_cycle_run_add(&run, &cn10ka, &c);
  c.tile = 7;
  mlip_cycle_run_add(&run, &cn10ka, &c);
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
      cmocka_unit_test(test_converting_dma_counts_the_fp32_side),
      cmocka_unit_test(test_conv_and_fc_count_macs),
      cmocka_unit_test(test_rnn_counts_each_step),
      cmocka_unit_test(test_elementwise_commands_count_elements),
      cmocka_unit_test(test_barrier_is_free_and_not_a_command),
      cmocka_unit_test(test_run_overlaps_dma_and_compute_and_takes_the_slowest_tile),
      cmocka_unit_test(test_rates_come_from_the_header),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
