/*
 * tvm/runtime/c_backend_api.h - the backend functions TVM-generated
 * operator code calls, as TVM v0.18 declares them. mlipc's generated code
 * calls none of them (its workspace is a static array); the TVM adapter
 * (runtime/src/runtime/crt/common/crt_backend_api.c) defines them for TVM
 * code linked into the same firmware.
 */
#ifndef TVM_RUNTIME_C_BACKEND_API_H_
#define TVM_RUNTIME_C_BACKEND_API_H_

#include "tvm/runtime/c_runtime_api.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef int (*TVMBackendPackedCFunc)(TVMValue* args, int* type_codes, int num_args, TVMValue* out_ret_value,
                                     int* out_ret_tcode, void* resource_handle);

/* Working memory of a TVM operator, through TVMPlatformMemoryAllocate. */
TVM_DLL void* TVMBackendAllocWorkspace(int device_type, int device_id, uint64_t nbytes, int dtype_code_hint,
                                       int dtype_bits_hint);
TVM_DLL int TVMBackendFreeWorkspace(int device_type, int device_id, void* ptr);

typedef struct {
  void* sync_handle;
  int32_t num_task;
} TVMParallelGroupEnv;

typedef int (*FTVMParallelLambda)(int task_id, TVMParallelGroupEnv* penv, void* cdata);

/* One task, run on the calling core (firmware has no thread pool). */
TVM_DLL int TVMBackendParallelLaunch(FTVMParallelLambda flambda, void* cdata, int num_task);
TVM_DLL int TVMBackendParallelBarrier(int task_id, TVMParallelGroupEnv* penv);

#ifdef __cplusplus
}
#endif

#endif /* TVM_RUNTIME_C_BACKEND_API_H_ */
