/* The example's one call, the same on the host and on the Cortex-M55. */
#ifndef DIGITS_APP_H_
#define DIGITS_APP_H_

#include <stdint.h>

/* Runs the digits model on the input the build took from the .npz
 * (digit_input.c) and writes, through `write`, its output as the tarball's
 * firmware template prints it: a line naming it, its bytes as 32-bit
 * little-endian hex words 8 to a line (a float32's bits), the top class.
 * Returns tvmgen_default_run's status, or 1 when the input's size is not
 * the model's. */
int32_t digits_app_run(void (*write)(const char* text));

#endif /* DIGITS_APP_H_ */
