/* The variants harness (variants.c) as a bare-metal image for QEMU's
 * Cortex-M boards (mps3-an547 Cortex-M55, mps2-an386 Cortex-M4): vector
 * table, FPU and Helium enabled, .data copied, .bss zeroed, text and exit
 * through Arm semihosting. The case count and seed are compiled in
 * (VARIANTS_CASES, VARIANTS_SEED: run_variants.sh sets them). */
#include <stdint.h>

#ifndef VARIANTS_CASES
#define VARIANTS_CASES 200
#endif
#ifndef VARIANTS_SEED
#define VARIANTS_SEED 1
#endif

int variants_main(uint32_t cases, uint32_t seed);

extern uint32_t __data_start__[], __data_end__[], __data_load__[], __bss_start__[], __bss_end__[], __stack_top[];

static int semihost(int op, const void* arg) {
  register int r0 __asm__("r0") = op;
  register const void* r1 __asm__("r1") = arg;
  __asm__ volatile("bkpt 0xab" : "+r"(r0) : "r"(r1) : "memory");
  return r0;
}

void variants_put(const char* s) { (void)semihost(0x04, s); /* SYS_WRITE0 */ }

static void stop(uint32_t reason) {
  for (;;) (void)semihost(0x18, (const void*)(uintptr_t)reason); /* SYS_EXIT */
}

void reset_handler(void) {
  uint32_t *p, *q;
#if defined(__ARM_FP) || defined(__ARM_FEATURE_MVE)
  *(volatile uint32_t*)0xE000ED88u |= 0xFu << 20; /* CPACR: CP10, CP11 (FPU and MVE) full access */
  __asm__ volatile("dsb\n\tisb" ::: "memory");
#endif
  for (p = __data_start__, q = __data_load__; p < __data_end__; ++p, ++q) *(volatile uint32_t*)p = *q;
  for (p = __bss_start__; p < __bss_end__; ++p) *(volatile uint32_t*)p = 0;
  /* ADP_Stopped_ApplicationExit: QEMU exits 0; RunTimeErrorUnknown: 1. */
  stop(variants_main(VARIANTS_CASES, VARIANTS_SEED) ? 0x20023u : 0x20026u);
}

static void fault_handler(void) {
  variants_put("FAIL fault\n");
  stop(0x20023u);
}

__attribute__((section(".vectors"), used)) static void (*const vectors[16])(void) = {
    (void (*)(void))(uintptr_t)__stack_top, reset_handler, fault_handler, fault_handler,
    fault_handler, fault_handler, fault_handler, 0, 0, 0, 0, fault_handler, fault_handler, 0,
    fault_handler, fault_handler};
