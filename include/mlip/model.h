/*
 * mlip/model.h - the descriptor mlipc writes for every compiled model, and a
 * checked entry point that validates DLPack tensors against it before
 * running the model. The plain generated entry (tvmgen_<m>_run) does not
 * depend on anything here.
 */
#ifndef MLIP_MODEL_H_
#define MLIP_MODEL_H_

#include <stddef.h>
#include <stdint.h>

#include <dlpack/dlpack.h>

#include "mlip/status.h"

#ifdef __cplusplus
extern "C" {
#endif

/* Upper bound on num_inputs + num_outputs for the checked entry, which keeps
   the tensors' data pointers in a stack array (the core has no heap). A
   model with more I/O gets MLIP_ERR_UNSUPPORTED; raise it with -D. */
#ifndef MLIP_MAX_IO_TENSORS
#define MLIP_MAX_IO_TENSORS 64
#endif

typedef struct mlip_tensor_desc {
  const char* name;        /* the model's tensor name (ONNX name) */
  uint8_t dtype_code;      /* DLDataTypeCode: kDLInt, kDLUInt, kDLFloat, kDLBfloat */
  uint8_t dtype_bits;
  uint16_t dtype_lanes;    /* always 1 */
  int32_t ndim;
  const int64_t* shape;    /* ndim entries (may be NULL when ndim == 0) */
  size_t size_bytes;
  uint32_t alignment;      /* required alignment of the data pointer in bytes
                              (power of two; 0 is taken as 1) */
} mlip_tensor_desc;

/* inputs[k] / outputs[k]: data pointers in model order. Returns 0 on success. */
typedef int32_t (*mlip_run_fn)(void* const* inputs, void* const* outputs);

typedef struct mlip_model {
  const char* module_name;
  int32_t num_inputs;
  int32_t num_outputs;
  const mlip_tensor_desc* inputs;
  const mlip_tensor_desc* outputs;
  size_t workspace_size;
  mlip_run_fn run;
} mlip_model;

/* Validates every tensor (count, non-NULL, device kDLCPU, dtype
   code/bits/lanes, ndim, shape, strides NULL or compact row-major,
   data+byte_offset aligned to desc.alignment), inputs first, then calls
   model->run with data + byte_offset of each tensor. Returns the first
   problem found; never runs on bad input. If the model's run returns
   non-zero, returns that value unchanged. */
mlip_status mlip_model_run_checked(const mlip_model* model, const DLTensor* inputs, int32_t num_inputs,
                                   const DLTensor* outputs, int32_t num_outputs);

/* Where a checked run failed. index and axis are -1 when the failure is not
   about one tensor or one axis (for example a NULL model, a wrong count, or
   a non-zero result of the model's run). */
typedef struct mlip_check_error {
  int32_t is_output; /* 1 if outputs[index] failed, 0 for inputs[index] */
  int32_t index;     /* tensor index, or -1 */
  int32_t axis;      /* axis for MLIP_ERR_SHAPE / MLIP_ERR_STRIDES, or -1 */
} mlip_check_error;

/* As mlip_model_run_checked; also fills *err (when err is not NULL) on every
   return, with index = axis = -1 on success. Keeps no global state, so it is
   safe to call from several threads on different tensors. */
mlip_status mlip_model_run_checked_ex(const mlip_model* model, const DLTensor* inputs, int32_t num_inputs,
                                      const DLTensor* outputs, int32_t num_outputs, mlip_check_error* err);

/* Checks one tensor against its descriptor (the per-tensor part of the
   checked run). *bad_axis (when bad_axis is not NULL) receives the failing
   axis for MLIP_ERR_SHAPE / MLIP_ERR_STRIDES, otherwise -1. */
mlip_status mlip_check_tensor(const mlip_tensor_desc* desc, const DLTensor* t, int32_t* bad_axis);

#ifdef __cplusplus
}
#endif

#endif /* MLIP_MODEL_H_ */
