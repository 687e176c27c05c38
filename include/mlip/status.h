/*
 * mlip/status.h - status codes shared by the runtime, the generated code and
 * the compiler. Values are part of the ABI: never renumber, only append.
 */
#ifndef MLIP_STATUS_H_
#define MLIP_STATUS_H_

#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

typedef int32_t mlip_status;

enum {
  MLIP_OK = 0,
  MLIP_ERR_NULL = 1,        /* a required pointer is NULL */
  MLIP_ERR_COUNT = 2,       /* wrong number of inputs/outputs */
  MLIP_ERR_DEVICE = 3,      /* tensor not on kDLCPU */
  MLIP_ERR_DTYPE = 4,       /* dtype code, bits or lanes differ from the model */
  MLIP_ERR_NDIM = 5,        /* number of dimensions differs from the model */
  MLIP_ERR_SHAPE = 6,       /* an extent differs from the model */
  MLIP_ERR_STRIDES = 7,     /* non-compact strides */
  MLIP_ERR_ALIGNMENT = 8,   /* data + byte_offset not aligned as the model needs */
  MLIP_ERR_INVALID_ARG = 9, /* an argument or a model descriptor is malformed */
  /* 10..: MLIP command-buffer validator and simulator. */
  MLIP_ERR_BAD_MAGIC = 10,
  MLIP_ERR_VERSION = 11,
  MLIP_ERR_TARGET = 12,
  MLIP_ERR_CRC = 13,
  MLIP_ERR_BOUNDS = 14,     /* a reference points outside its buffer */
  MLIP_ERR_OPCODE = 15,
  MLIP_ERR_TILE = 16,
  MLIP_ERR_TRUNCATED = 17,
  MLIP_ERR_NO_DEVICE = 18,
  MLIP_ERR_UNSUPPORTED = 19,
  MLIP_ERR_INTERNAL = 20,
  MLIP_ERR_STATE = 21       /* a region's state holds neither a fresh nor a running value:
                               it was never initialized (MLIP_REGION_STATE_INIT) */
};

/* The last status code; codes above it have no string. */
#define MLIP_STATUS_LAST MLIP_ERR_STATE

/* A short lower-case description of s. Never NULL: codes without a
   description (including a model's own non-zero run results) give
   "unknown status". */
const char* mlip_status_str(mlip_status s);

#ifdef __cplusplus
}
#endif

#endif /* MLIP_STATUS_H_ */
