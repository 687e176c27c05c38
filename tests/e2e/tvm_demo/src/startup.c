/* A minimal start for the SSE-300 (Cortex-M55) in QEMU's mps3-an547, in the
 * place of the CMSIS startup TVM's demo links: vectors, the FPU on, .data
 * copied from __etext and .bss zeroed as the linker script places them,
 * then main(); semihosting for output and exit (QEMU has no FVP UART
 * shutdown tag). */
#include <stdint.h>

int main(int argc, char** argv);

extern uint32_t __etext[], __data_start__[], __data_end__[], __bss_start__[], __bss_end__[], __StackTop[];

static int semihost(int op, const void* arg) {
  int r;
  __asm__ volatile("mov r0, %1\n\tmov r1, %2\n\tbkpt 0xab\n\tmov %0, r0" : "=r"(r) : "r"(op), "r"(arg) : "r0", "r1", "memory");
  return r;
}

void demo_write(const char* s) { (void)semihost(0x04, s); }

void demo_exit(int status) {
  for (;;) (void)semihost(0x18, (const void*)(uintptr_t)(status == 0 ? 0x20026u : 0x20023u));
}

void Reset_Handler(void) {
  uintptr_t a, src = (uintptr_t)__etext;
  *(volatile uint32_t*)0xE000ED88u |= 0xFu << 20; /* CPACR: the FPU */
  __asm__ volatile("dsb\n\tisb" ::: "memory");
  for (a = (uintptr_t)__data_start__; a < (uintptr_t)__data_end__; a += 4u, src += 4u)
    *(volatile uint32_t*)a = *(const volatile uint32_t*)src;
  for (a = (uintptr_t)__bss_start__; a < (uintptr_t)__bss_end__; a += 4u) *(volatile uint32_t*)a = 0u;
  demo_exit(main(0, 0));
}

static void Fault_Handler(void) {
  demo_write("fault\n");
  demo_exit(1);
}

__attribute__((section(".vectors"), used)) static void (*const vectors[16])(void) = {
    (void (*)(void))(uintptr_t)__StackTop, Reset_Handler, Fault_Handler, Fault_Handler, Fault_Handler, Fault_Handler,
    Fault_Handler, 0, 0, 0, 0, Fault_Handler, Fault_Handler, 0, Fault_Handler, Fault_Handler};
