/* The demo's main, as TVM's bare-metal demos write it for their model
 * (apps/microtvm/cmsisnn/src/demo_bare_metal.c), here for the digits CNN:
 * TVM's hooks (tvm_runtime.h), the generated header, the input and output
 * arrays the test writes (inputs.h, outputs.h, as the demo's
 * convert_image.py does), one call of the entry point, its status ignored
 * as the demo ignores it. Then the output bytes, in hex, for the test. */
#include <tvm_runtime.h>
#include <tvmgen_default.h>

#include "inputs.h"
#include "outputs.h"

int main(int argc, char** argv) {
  struct tvmgen_default_outputs outputs = {
      .Plus214_Output_0 = output,
  };
  struct tvmgen_default_inputs inputs = {
      .Input3 = input,
  };
  unsigned i;
  (void)argc;
  (void)argv;
  StackMemoryManager_Init(&app_workspace, g_aot_memory, WORKSPACE_SIZE);
  demo_write("Running inference\n");
  tvmgen_default_run(&inputs, &outputs);
  demo_write("output");
  for (i = 0; i < sizeof output; ++i) {
    char hex[4] = {' ', "0123456789abcdef"[((const unsigned char*)output)[i] >> 4],
                   "0123456789abcdef"[((const unsigned char*)output)[i] & 15], 0};
    demo_write(hex);
  }
  demo_write("\nEXITTHESIM\n");
  demo_exit(0);
  return 0;
}
