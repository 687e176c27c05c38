/* The counter's check (bench/cortex_m/run.sh): a loop of exactly two
 * instructions (SUBS, BNE) run `cases` times, on tests/variants' bare-metal
 * start (cortexm_start.c calls variants_main with VARIANTS_CASES). Two runs
 * with different counts must differ by exactly twice the difference. */
#include <stdint.h>

int variants_main(uint32_t cases, uint32_t seed);

__attribute__((noinline)) static void bench_loop(uint32_t n) {
  __asm__ volatile("1: subs %0, %0, #1\n\tbne 1b" : "+r"(n) : : "cc");
}

int variants_main(uint32_t cases, uint32_t seed) {
  (void)seed;
  bench_loop(cases);
  return 0;
}
