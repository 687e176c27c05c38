/* The TVM adapter: TVM's backend API (tvm/runtime/c_backend_api.h) for
 * firmware built the way TVM's demos build it: an mlipc tarball's runtime/
 * as STANDALONE_CRT_PATH, a Makefile that compiles the .c files of
 * codegen/host/src, this file and memory/stack_allocator.c, and nothing
 * else of runtime/src. So this translation unit also carries the runtime
 * the generated code calls: mlip_runtime_copy.h, which mlipc writes for the
 * tarball, includes the runtime core and, for a module with MLIP regions,
 * the simulator, every definition weak, so that a build that compiles
 * runtime/src/core and runtime/src/sim as well (every .c of the tarball)
 * links those once and this copy yields. And it binds mlipc's report hooks
 * to the hooks such firmware defines: a failed run reaches TVMLogf and,
 * unless crt_config.h sets MLIP_TVM_ABORT_ON_ERROR to 0, TVMPlatformAbort
 * (docs/runtime.md, "Firmware built the TVM way"). */
#include "mlip/strict_fp.h" /* first: no contraction, same bits everywhere */

#include <stddef.h>
#include <stdint.h>

#include "crt_config.h"
#include "mlip/compiler.h"
#include "mlip/platform.h"
#include "mlip/status.h"
#include "tvm/runtime/c_backend_api.h"
#include "tvm/runtime/crt/logging.h"
#include "tvm/runtime/crt/platform.h"

/* The runtime, with the abort and error hooks left to this file. */
#define MLIP_PLATFORM_TVM_REPORTS 1
#include "mlip_runtime_copy.h"

#ifndef MLIP_TVM_ABORT_ON_ERROR
#define MLIP_TVM_ABORT_ON_ERROR 1
#endif

/* A failed tvmgen_<m>_run: TVM's firmware often ignores the status. Not
   weak: in an image that also compiles runtime/src/core, these win over
   its weak defaults. */
void mlip_platform_error(mlip_status s, const char* where) {
  TVMLogf("mlip: %s failed: %s (status %d)\n", where, mlip_status_str(s), (int)s);
#if MLIP_TVM_ABORT_ON_ERROR
  TVMPlatformAbort(kTvmErrorPlatformCheckFailure);
#endif
}

void mlip_platform_abort(mlip_status s) {
  TVMLogf("mlip: fatal: %s (status %d)\n", mlip_status_str(s), (int)s);
  TVMPlatformAbort(kTvmErrorPlatformCheckFailure);
}

/* Workspace for TVM-generated operators linked into the same image (mlipc's
 * own code never asks). TVMPlatformMemoryAllocate/Free are the firmware's;
 * a firmware without them links, and such a request aborts. */
#if MLIP_HAVE_GNU_ATTRIBUTES
#pragma weak TVMPlatformMemoryAllocate
#pragma weak TVMPlatformMemoryFree
#define MLIP_TVM_HOOK_MISSING(f) ((f) == NULL)
#else
#define MLIP_TVM_HOOK_MISSING(f) 0
#endif

void* TVMBackendAllocWorkspace(int device_type, int device_id, uint64_t nbytes, int dtype_code_hint,
                               int dtype_bits_hint) {
  void* ptr = NULL;
  DLDevice dev;
  (void)dtype_code_hint;
  (void)dtype_bits_hint;
  dev.device_type = (DLDeviceType)device_type;
  dev.device_id = device_id;
  if (MLIP_TVM_HOOK_MISSING(TVMPlatformMemoryAllocate) || (uint64_t)(size_t)nbytes != nbytes ||
      TVMPlatformMemoryAllocate((size_t)nbytes, dev, &ptr) != kTvmErrorNoError || ptr == NULL) {
    TVMLogf("TVMBackendAllocWorkspace: %lu bytes not available\n", (unsigned long)nbytes);
    TVMPlatformAbort(kTvmErrorPlatformNoMemory);
  }
  return ptr;
}

int TVMBackendFreeWorkspace(int device_type, int device_id, void* ptr) {
  DLDevice dev;
  dev.device_type = (DLDeviceType)device_type;
  dev.device_id = device_id;
  if (MLIP_TVM_HOOK_MISSING(TVMPlatformMemoryFree)) {
    return -1;
  }
  return TVMPlatformMemoryFree(ptr, dev) == kTvmErrorNoError ? 0 : -1;
}

int TVMBackendParallelLaunch(FTVMParallelLambda flambda, void* cdata, int num_task) {
  TVMParallelGroupEnv env;
  (void)num_task; /* one task does all the work */
  env.sync_handle = NULL;
  env.num_task = 1;
  return flambda(0, &env, cdata);
}

int TVMBackendParallelBarrier(int task_id, TVMParallelGroupEnv* penv) {
  (void)task_id;
  (void)penv;
  return 0;
}
