/*
 * tvm/runtime/crt/platform.h - the hooks firmware written for TVM's
 * standalone CRT defines (TVM v0.18's declarations). In an mlipc tarball the
 * TVM adapter (runtime/src/runtime/crt/common/crt_backend_api.c) calls
 * TVMPlatformAbort, and TVMPlatformMemoryAllocate/Free when a TVM operator
 * asks for workspace; the others are declared for firmware that defines
 * them, and nothing calls them.
 */
#ifndef TVM_RUNTIME_CRT_PLATFORM_H_
#define TVM_RUNTIME_CRT_PLATFORM_H_

#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <dlpack/dlpack.h>

#include "tvm/runtime/crt/error_codes.h"

#ifdef __cplusplus
extern "C" {
#endif

#if defined(__GNUC__) || defined(__clang__)
#define TVM_CRT_NORETURN __attribute__((noreturn))
#else
#define TVM_CRT_NORETURN
#endif

/* An error execution cannot continue after; must not return. */
void TVM_CRT_NORETURN TVMPlatformAbort(tvm_crt_error_t code);

size_t TVMPlatformFormatMessage(char* out_buf, size_t out_buf_size_bytes, const char* fmt, va_list args);
tvm_crt_error_t TVMPlatformMemoryAllocate(size_t num_bytes, DLDevice dev, void** out_ptr);
tvm_crt_error_t TVMPlatformMemoryFree(void* ptr, DLDevice dev);
tvm_crt_error_t TVMPlatformTimerStart(void);
tvm_crt_error_t TVMPlatformTimerStop(double* elapsed_time_seconds);
tvm_crt_error_t TVMPlatformBeforeMeasurement(void);
tvm_crt_error_t TVMPlatformAfterMeasurement(void);
tvm_crt_error_t TVMPlatformGenerateRandom(uint8_t* buffer, size_t num_bytes);
tvm_crt_error_t TVMPlatformInitialize(void);

#ifdef __cplusplus
}
#endif

#endif /* TVM_RUNTIME_CRT_PLATFORM_H_ */
