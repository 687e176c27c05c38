/* The variants harness (variants.c) as a hosted program: x86-64, and
 * AArch64 under qemu-aarch64. Usage: variants [cases [seed]]. */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

int variants_main(uint32_t cases, uint32_t seed);

void variants_put(const char* s) { fputs(s, stdout); }

int main(int argc, char** argv) {
  const uint32_t cases = argc > 1 ? (uint32_t)strtoul(argv[1], NULL, 10) : 200u;
  const uint32_t seed = argc > 2 ? (uint32_t)strtoul(argv[2], NULL, 10) : 1u;
  return variants_main(cases, seed) ? 1 : 0;
}
