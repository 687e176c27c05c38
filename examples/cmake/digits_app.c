/* examples/cmake: the model's call and the output's text; no printf, no
 * heap, so that the firmware links the same code as the host program. */
#include "digits_app.h"

#include <string.h>

#include "mlip/compiler.h"
#include "tvmgen_default.h"

extern const uint32_t digit_input_size;
extern const uint8_t digit_input[];

/* The I/O buffers, aligned as the arena. */
static uint8_t input3[TVMGEN_DEFAULT_INPUT3_SIZE] MLIP_ALIGNED(16);
static uint8_t output0[TVMGEN_DEFAULT_PLUS214_OUTPUT_0_SIZE] MLIP_ALIGNED(16);

static void write_hex(void (*write)(const char*), uint32_t v) {
  char text[9];
  int k;
  for (k = 7; k >= 0; --k, v >>= 4) text[k] = "0123456789abcdef"[v & 15u];
  text[8] = '\0';
  write(text);
}

static void write_words(void (*write)(const char*), const uint8_t* p, uint32_t n) {
  uint32_t at;
  for (at = 0; at + 4u <= n; at += 4u) {
    write_hex(write, (uint32_t)p[at] | (uint32_t)p[at + 1] << 8 | (uint32_t)p[at + 2] << 16 |
                         (uint32_t)p[at + 3] << 24);
    write((at / 4u) % 8u == 7u || at + 4u == n ? "\n" : " ");
  }
}

int32_t digits_app_run(void (*write)(const char* text)) {
  struct tvmgen_default_inputs in;
  struct tvmgen_default_outputs out;
  const float* scores = (const float*)(const void*)output0;
  char top[2] = {'?', '\0'};
  int32_t status, i, best = 0;
  if (digit_input_size != sizeof input3) {
    write("the input's size is not the model's Input3 size\n");
    return 1;
  }
  memcpy(input3, digit_input, sizeof input3);
  in.Input3 = input3;
  out.Plus214_Output_0 = output0;
  status = tvmgen_default_run(&in, &out);
  if (status != 0) {
    write("tvmgen_default_run failed\n");
    return status;
  }
  write("output 0 Plus214_Output_0 float32 40\n");
  write_words(write, output0, sizeof output0);
  for (i = 1; i < 10; ++i)
    if (scores[i] > scores[best]) best = i;
  top[0] = (char)('0' + best);
  write("top class ");
  write(top);
  write("\n");
  return 0;
}
