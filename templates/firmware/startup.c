/* templates/firmware: the start of a bare-metal Cortex-M image (QEMU's
 * mps3-an547 and mps2-an386, or a board whose debugger serves semihosting):
 * the vector table, the FPU enabled, .data copied, .bss zeroed, main(), and
 * output and exit through Arm semihosting (SYS_WRITE0, SYS_EXIT). No C
 * library I/O, no heap. The symbols come from the board's linker script
 * (sections.ld). */
#include <stdint.h>

int main(void);
void fw_write(const char* s);
void fw_exit(int status);

extern uint32_t _fw_data_start[], _fw_data_end[], _fw_data_load[];
extern uint32_t _fw_bss_start[], _fw_bss_end[], _fw_noinit_start[], _fw_noinit_end[], _fw_stack_top[];

static int semihost(int op, const void* arg) {
  int r;
  __asm__ volatile("mov r0, %1\n\tmov r1, %2\n\tbkpt 0xab\n\tmov %0, r0"
                   : "=r"(r)
                   : "r"(op), "r"(arg)
                   : "r0", "r1", "memory");
  return r;
}

void fw_write(const char* s) { (void)semihost(0x04, s); /* SYS_WRITE0 */ }

void fw_exit(int status) {
  /* ADP_Stopped_ApplicationExit (QEMU exits with 0), else RunTimeErrorUnknown (1). */
  const uint32_t reason = status == 0 ? 0x20026u : 0x20023u;
  for (;;) {
    (void)semihost(0x18, (const void*)(uintptr_t)reason); /* SYS_EXIT */
  }
}

/* Word by word through volatile pointers, so the compiler cannot turn the
   loops into library calls before .data exists. */
static void fill(uint32_t* from, uint32_t* to, uint32_t value) {
  uintptr_t a;
  for (a = (uintptr_t)from; a < (uintptr_t)to; a += 4u) *(volatile uint32_t*)a = value;
}

void fw_reset(void) {
  uintptr_t a, src = (uintptr_t)_fw_data_load;
#if defined(__ARM_FP)
  *(volatile uint32_t*)0xE000ED88u |= 0xFu << 20; /* CPACR: CP10, CP11 full access */
  __asm__ volatile("dsb\n\tisb" ::: "memory");
#endif
  for (a = (uintptr_t)_fw_data_start; a < (uintptr_t)_fw_data_end; a += 4u, src += 4u)
    *(volatile uint32_t*)a = *(const volatile uint32_t*)src;
#ifdef FW_DIRTY_RAM
  /* A test aid: .bss not zeroed (a warm reset, a loader that skips it) and
     garbage in the sections nothing initializes. The generated code and the
     runtime must give the same outputs (docs/runtime.md, "Memory"). */
  fill(_fw_bss_start, _fw_bss_end, 0xA5A5A5A5u);
  fill(_fw_noinit_start, _fw_noinit_end, 0xA5A5A5A5u);
#else
  fill(_fw_bss_start, _fw_bss_end, 0u);
#endif
  fw_exit(main());
}

static void fw_fault(void) {
  fw_write("fault\n");
  fw_exit(1);
}

__attribute__((section(".vectors"), used)) static void (*const fw_vectors[16])(void) = {
    (void (*)(void))(uintptr_t)_fw_stack_top, fw_reset, fw_fault, fw_fault, fw_fault, fw_fault, fw_fault, 0, 0, 0, 0,
    fw_fault, fw_fault, 0, fw_fault, fw_fault};
