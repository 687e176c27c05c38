/*
 * tvm/runtime/crt/logging.h - TVMLogf, the message hook firmware defines
 * for TVM's standalone CRT, and TVM's LOG macros (their level from
 * crt_config.h's TVM_CRT_LOG_LEVEL). The TVM adapter
 * (runtime/src/runtime/crt/common/crt_backend_api.c) reports a failed run
 * through it.
 */
#ifndef TVM_RUNTIME_CRT_LOGGING_H_
#define TVM_RUNTIME_CRT_LOGGING_H_

#include "crt_config.h"
#include "tvm/runtime/crt/platform.h"

#define TVM_CRT_LOG_LEVEL_DEBUG 3
#define TVM_CRT_LOG_LEVEL_INFO 2
#define TVM_CRT_LOG_LEVEL_WARN 1
#define TVM_CRT_LOG_LEVEL_ERROR 0

#ifndef TVM_CRT_LOG_LEVEL
#define TVM_CRT_LOG_LEVEL TVM_CRT_LOG_LEVEL_ERROR
#endif

#ifdef __cplusplus
extern "C" {
#endif

#if defined(__GNUC__) || defined(__clang__)
void TVMLogf(const char* fmt, ...) __attribute__((format(printf, 1, 2)));
#else
void TVMLogf(const char* fmt, ...);
#endif

/* Each takes a format and at least one argument (C99 has no empty
   __VA_ARGS__). */
#define LOG(level, ...)                 \
  do {                                  \
    if (TVM_CRT_LOG_LEVEL >= (level)) { \
      TVMLogf(__VA_ARGS__);             \
    }                                   \
  } while (0)
#define LOG_ERROR(...) LOG(TVM_CRT_LOG_LEVEL_ERROR, __VA_ARGS__)
#define LOG_WARN(...) LOG(TVM_CRT_LOG_LEVEL_WARN, __VA_ARGS__)
#define LOG_INFO(...) LOG(TVM_CRT_LOG_LEVEL_INFO, __VA_ARGS__)
#define LOG_DEBUG(...) LOG(TVM_CRT_LOG_LEVEL_DEBUG, __VA_ARGS__)

#ifndef CHECK
#define CHECK(x)                                                            \
  do {                                                                      \
    if (!(x)) {                                                             \
      TVMLogf("%s:%d: Check failed: %s\n", __FILE__, __LINE__, #x);         \
      TVMPlatformAbort(kTvmErrorPlatformCheckFailure);                      \
    }                                                                       \
  } while (0)
#endif

#ifdef __cplusplus
}
#endif

#endif /* TVM_RUNTIME_CRT_LOGGING_H_ */
