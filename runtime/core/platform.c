/*
 * Weak default platform hooks. A port overrides any of them by defining a
 * function with the same name; the linker then prefers the strong symbol.
 */
#include "mlip/strict_fp.h" /* first: no contraction, same bits everywhere */
#include "mlip/platform.h"

#include "mlip/compiler.h"

/* The TVM adapter (runtime/src/runtime/crt/common/crt_backend_api.c)
   carries a copy of this file without these two: its own abort and error
   hooks, bound to TVM's TVMPlatformAbort and TVMLogf, replace them (and
   win over these weak ones in an image that compiles both). */
#ifndef MLIP_PLATFORM_TVM_REPORTS
MLIP_WEAK void mlip_platform_abort(mlip_status s) {
  /* Bare metal has nowhere to return to. Spin on a volatile read so the loop
     cannot be optimized away and s stays visible to a debugger. */
  volatile mlip_status why = s;
  for (;;) {
    (void)why;
  }
}

MLIP_WEAK void mlip_platform_error(mlip_status s, const char* where) {
  (void)s; /* the caller returns s */
  (void)where;
}
#endif

MLIP_WEAK uint64_t mlip_platform_time_ns(void) {
  return 0; /* no clock known */
}

MLIP_WEAK void mlip_platform_layer_begin(int32_t layer) {
  (void)layer;
}

MLIP_WEAK void mlip_platform_layer_end(int32_t layer) {
  (void)layer;
}
