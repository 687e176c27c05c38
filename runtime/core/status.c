/*
 * Status strings. The table is indexed by code with designated initializers,
 * so a code added to status.h without a string here shows up as
 * "unknown status" (and fails runtime.status) instead of a wrong string.
 */
#include "mlip/strict_fp.h" /* first: no contraction, same bits everywhere */
#include "mlip/status.h"

#include <stddef.h>

#define MLIP_STATUS_TABLE_SIZE (MLIP_STATUS_LAST + 1)

static const char* const mlip_status_strings[MLIP_STATUS_TABLE_SIZE] = {
  [MLIP_OK] = "ok",
  [MLIP_ERR_NULL] = "null pointer",
  [MLIP_ERR_COUNT] = "wrong number of inputs or outputs",
  [MLIP_ERR_DEVICE] = "tensor not on the CPU device",
  [MLIP_ERR_DTYPE] = "dtype mismatch",
  [MLIP_ERR_NDIM] = "number of dimensions mismatch",
  [MLIP_ERR_SHAPE] = "shape mismatch",
  [MLIP_ERR_STRIDES] = "non-compact strides",
  [MLIP_ERR_ALIGNMENT] = "misaligned data pointer",
  [MLIP_ERR_INVALID_ARG] = "invalid argument",
  [MLIP_ERR_BAD_MAGIC] = "bad magic",
  [MLIP_ERR_VERSION] = "unsupported version",
  [MLIP_ERR_TARGET] = "wrong target",
  [MLIP_ERR_CRC] = "CRC mismatch",
  [MLIP_ERR_BOUNDS] = "reference out of bounds",
  [MLIP_ERR_OPCODE] = "unknown opcode",
  [MLIP_ERR_TILE] = "bad tile",
  [MLIP_ERR_TRUNCATED] = "truncated buffer",
  [MLIP_ERR_NO_DEVICE] = "no device",
  [MLIP_ERR_UNSUPPORTED] = "unsupported",
  [MLIP_ERR_INTERNAL] = "internal error",
  [MLIP_ERR_STATE] = "region state not initialized",
};

const char* mlip_status_str(mlip_status s) {
  /* Negative and too-large codes (e.g. a model's own run result) have no entry. */
  if (s < 0 || s >= MLIP_STATUS_TABLE_SIZE || mlip_status_strings[s] == NULL) {
    return "unknown status";
  }
  return mlip_status_strings[s];
}
