/*
 * tvm/runtime/c_runtime_api.h - the part of TVM's C runtime API that
 * firmware written for TVM's standalone CRT includes (TVM_DLL, the handle
 * types, TVMValue, TVMFuncRegisterGlobal), written for mlipc so that an mlipc
 * tarball's runtime/ works as TVM's STANDALONE_CRT_PATH (docs/runtime.md,
 * "Firmware built the TVM way"). Names and values follow TVM v0.18's
 * header; mlipc's generated code needs none of it.
 */
#ifndef TVM_RUNTIME_C_RUNTIME_API_H_
#define TVM_RUNTIME_C_RUNTIME_API_H_

#if defined(__GNUC__) || defined(__clang__)
#define TVM_WEAK __attribute__((weak))
#else
#define TVM_WEAK
#endif

#ifndef TVM_DLL
#if defined(__GNUC__) || defined(__clang__)
#define TVM_DLL __attribute__((visibility("default")))
#else
#define TVM_DLL
#endif
#endif

/* The TVM release whose interface this follows. */
#define TVM_VERSION "0.18.0"

/* The one DLPack header of the tarball (runtime/include/dlpack). */
#include <dlpack/dlpack.h>

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

typedef int64_t tvm_index_t;

/* Device types TVM adds to DLPack's. */
typedef enum {
  kDLAOCL = 5,
  kDLSDAccel = 6,
  kOpenGL = 11,
  kDLMicroDev = 13,
  kDLHexagon = 14,
  kDLWebGPU = 15
} TVMDeviceExtType;

/* Type codes of packed-function arguments. */
typedef enum {
  kTVMArgInt = kDLInt,
  kTVMArgFloat = kDLFloat,
  kTVMOpaqueHandle = 3U,
  kTVMNullptr = 4U,
  kTVMDataType = 5U,
  kDLDevice = 6U,
  kTVMDLTensorHandle = 7U,
  kTVMObjectHandle = 8U,
  kTVMModuleHandle = 9U,
  kTVMPackedFuncHandle = 10U,
  kTVMStr = 11U,
  kTVMBytes = 12U,
  kTVMNDArrayHandle = 13U,
  kTVMObjectRValueRefArg = 14U,
  kTVMExtBegin = 15U,
  kTVMNNVMFirst = 16U,
  kTVMNNVMLast = 20U,
  kTVMExtReserveEnd = 64U,
  kTVMExtEnd = 128U
} TVMArgTypeCode;

typedef DLTensor* TVMArrayHandle;

typedef union {
  int64_t v_int64;
  double v_float64;
  void* v_handle;
  const char* v_str;
  DLDataType v_type;
  DLDevice v_device;
} TVMValue;

typedef struct {
  const char* data;
  size_t size;
} TVMByteArray;

typedef void* TVMModuleHandle;
typedef void* TVMFunctionHandle;
typedef void* TVMRetValueHandle;
typedef void* TVMStreamHandle;
typedef void* TVMObjectHandle;

/* Declared for firmware that defines them (TVM's demos define
   TVMFuncRegisterGlobal as a stub); nothing in an mlipc tarball calls them. */
TVM_DLL int TVMFuncRegisterGlobal(const char* name, TVMFunctionHandle f, int override);
TVM_DLL void TVMAPISetLastError(const char* msg);
TVM_DLL const char* TVMGetLastError(void);

#ifdef __cplusplus
}
#endif

#endif /* TVM_RUNTIME_C_RUNTIME_API_H_ */
