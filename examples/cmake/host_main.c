/* examples/cmake, on the host: the digits model through the package's
 * static library, its output on stdout. */
#include <stdio.h>

#include "digits_app.h"

static void write_stdout(const char* text) { fputs(text, stdout); }

int main(void) { return digits_app_run(write_stdout) == 0 ? 0 : 1; }
