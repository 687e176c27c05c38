/* The platform hooks of TVM's bare-metal demos (apps/microtvm/cmsisnn and
 * ethosu include a tvm_runtime.h like this one), written for this test:
 * the firmware, not the runtime, defines TVMPlatformAbort, TVMLogf, the
 * memory hooks over TVM's stack allocator and TVMFuncRegisterGlobal. Output
 * goes through Arm semihosting (startup.c) instead of a UART. */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <tvm/runtime/c_runtime_api.h>
#include <tvm/runtime/crt/logging.h>
#include <tvm/runtime/crt/stack_allocator.h>

void demo_write(const char* s);
void demo_exit(int status);

#define WORKSPACE_SIZE (16 * 1024)
static uint8_t g_aot_memory[WORKSPACE_SIZE];
tvm_workspace_t app_workspace;

void TVMLogf(const char* msg, ...) {
  char line[256];
  va_list args;
  va_start(args, msg);
  vsnprintf(line, sizeof line, msg, args);
  va_end(args);
  demo_write(line);
}

void __attribute__((noreturn)) TVMPlatformAbort(tvm_crt_error_t error_code) {
  TVMLogf("TVMPlatformAbort: %d\n", (int)error_code);
  demo_exit(1);
  for (;;) {
  }
}

tvm_crt_error_t TVMPlatformMemoryAllocate(size_t num_bytes, DLDevice dev, void** out_ptr) {
  (void)dev;
  return StackMemoryManager_Allocate(&app_workspace, (int32_t)num_bytes, out_ptr);
}

tvm_crt_error_t TVMPlatformMemoryFree(void* ptr, DLDevice dev) {
  (void)dev;
  return StackMemoryManager_Free(&app_workspace, ptr);
}

TVM_DLL int TVMFuncRegisterGlobal(const char* name, TVMFunctionHandle f, int override) {
  (void)name;
  (void)f;
  (void)override;
  return 0;
}
