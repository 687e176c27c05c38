/*
 * mlip/platform.h - hooks a port may override. runtime/core/platform.c gives
 * weak defaults (MLIP_WEAK); define a function of the same name in your own
 * code to replace one. On compilers without weak symbols, leave platform.c
 * out of the build and provide all five.
 */
#ifndef MLIP_PLATFORM_H_
#define MLIP_PLATFORM_H_

#include <stdint.h>

#include "mlip/status.h"

#ifdef __cplusplus
extern "C" {
#endif

/* Called on an unrecoverable error. Must not return. The default spins
   forever (bare metal has no exit); a debugger can see s in the frame. A
   hosted port would typically print mlip_status_str(s) and call abort(). */
void mlip_platform_abort(mlip_status s);

/* Called when a run of the model fails, just before the entry point
   (tvmgen_<m>_run, and the checked entry through it) returns the status s
   to its caller; `where` names the entry point. The default does nothing
   (the status is returned); a firmware built the TVM way
   (runtime/src/runtime/crt, docs/runtime.md) gets it through TVMLogf and
   TVMPlatformAbort. */
void mlip_platform_error(mlip_status s, const char* where);

/* A monotonic clock in nanoseconds. The default returns 0 (no clock known). */
uint64_t mlip_platform_time_ns(void);

/* Profiling hooks around each layer; default no-ops. Generated code calls
   them only when compiled with -DMLIP_PROFILE. */
void mlip_platform_layer_begin(int32_t layer);
void mlip_platform_layer_end(int32_t layer);

#ifdef __cplusplus
}
#endif

#endif /* MLIP_PLATFORM_H_ */
