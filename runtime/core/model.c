/*
 * Checked entry point: validate DLPack tensors against the model's
 * descriptors, then call the generated run function. No heap, no recursion,
 * no global state.
 */
#include "mlip/strict_fp.h" /* first: no contraction, same bits everywhere */
#include "mlip/model.h"

#include <stddef.h>
#include <stdint.h>

static void mlip_set_axis(int32_t* bad_axis, int32_t axis) {
  if (bad_axis != NULL) {
    *bad_axis = axis;
  }
}

static void mlip_set_error(mlip_check_error* err, int32_t is_output, int32_t index, int32_t axis) {
  if (err != NULL) {
    err->is_output = is_output;
    err->index = index;
    err->axis = axis;
  }
}

/* Strides are compact row-major when, for every axis, the stride equals the
   product of the later extents. Axes of extent 1 never move the address, so
   any stride is accepted there (PyTorch and NumPy export arbitrary ones);
   a tensor with zero elements addresses nothing, so its strides are ignored. */
static mlip_status mlip_check_strides(const int64_t* shape, const int64_t* strides, int32_t ndim,
                                      int32_t* bad_axis) {
  int32_t i;
  for (i = 0; i < ndim; ++i) {
    if (shape[i] == 0) {
      return MLIP_OK;
    }
  }
  int64_t expected = 1;
  for (i = ndim - 1; i >= 0; --i) {
    if (shape[i] != 1 && strides[i] != expected) {
      mlip_set_axis(bad_axis, i);
      return MLIP_ERR_STRIDES;
    }
    expected *= shape[i];
  }
  return MLIP_OK;
}

mlip_status mlip_check_tensor(const mlip_tensor_desc* desc, const DLTensor* t, int32_t* bad_axis) {
  mlip_set_axis(bad_axis, -1);
  if (desc == NULL || t == NULL || t->data == NULL) {
    return MLIP_ERR_NULL;
  }
  /* A malformed descriptor is the model's fault, not the caller's: report
     it as such rather than as a mismatch. */
  if (desc->ndim < 0 || (desc->ndim > 0 && desc->shape == NULL)) {
    return MLIP_ERR_INVALID_ARG;
  }
  uint32_t align = desc->alignment == 0 ? 1u : desc->alignment;
  if ((align & (align - 1u)) != 0) {
    return MLIP_ERR_INVALID_ARG;
  }

  if (t->device.device_type != kDLCPU) {
    return MLIP_ERR_DEVICE;
  }
  if (t->dtype.code != desc->dtype_code || t->dtype.bits != desc->dtype_bits ||
      t->dtype.lanes != desc->dtype_lanes) {
    return MLIP_ERR_DTYPE;
  }
  if (t->ndim != desc->ndim) {
    return MLIP_ERR_NDIM;
  }
  if (desc->ndim > 0 && t->shape == NULL) {
    return MLIP_ERR_NULL;
  }
  int32_t i;
  for (i = 0; i < desc->ndim; ++i) {
    if (t->shape[i] != desc->shape[i]) {
      mlip_set_axis(bad_axis, i);
      return MLIP_ERR_SHAPE;
    }
  }
  if (t->strides != NULL) {
    mlip_status st = mlip_check_strides(desc->shape, t->strides, desc->ndim, bad_axis);
    if (st != MLIP_OK) {
      return st;
    }
  }

#if SIZE_MAX < UINT64_MAX
  /* On 32-bit targets an offset beyond the address space cannot be valid. */
  if (t->byte_offset > (uint64_t)SIZE_MAX) {
    return MLIP_ERR_INVALID_ARG;
  }
#endif
  /* Only the low bits matter, so the sum cannot overflow in a harmful way. */
  uintptr_t addr = (uintptr_t)t->data + (uintptr_t)t->byte_offset;
  if ((addr & (uintptr_t)(align - 1u)) != 0) {
    return MLIP_ERR_ALIGNMENT;
  }
  return MLIP_OK;
}

/* Validates one side (inputs or outputs) and stores each tensor's data
   pointer (data + byte_offset) in ptrs. */
static mlip_status mlip_check_side(const mlip_tensor_desc* descs, const DLTensor* tensors, int32_t n,
                                   int32_t is_output, void** ptrs, mlip_check_error* err) {
  int32_t k;
  for (k = 0; k < n; ++k) {
    int32_t axis = -1;
    mlip_status st = mlip_check_tensor(&descs[k], &tensors[k], &axis);
    if (st != MLIP_OK) {
      mlip_set_error(err, is_output, k, axis);
      return st;
    }
    ptrs[k] = (void*)((unsigned char*)tensors[k].data + (size_t)tensors[k].byte_offset);
  }
  return MLIP_OK;
}

mlip_status mlip_model_run_checked_ex(const mlip_model* model, const DLTensor* inputs, int32_t num_inputs,
                                      const DLTensor* outputs, int32_t num_outputs, mlip_check_error* err) {
  mlip_set_error(err, 0, -1, -1);
  if (model == NULL || model->run == NULL) {
    return MLIP_ERR_NULL;
  }
  if (model->num_inputs < 0 || model->num_outputs < 0 ||
      (model->num_inputs > 0 && model->inputs == NULL) ||
      (model->num_outputs > 0 && model->outputs == NULL)) {
    return MLIP_ERR_INVALID_ARG;
  }
  if (num_inputs != model->num_inputs) {
    return MLIP_ERR_COUNT;
  }
  if (num_outputs != model->num_outputs) {
    mlip_set_error(err, 1, -1, -1);
    return MLIP_ERR_COUNT;
  }
  if (num_inputs > 0 && inputs == NULL) {
    return MLIP_ERR_NULL;
  }
  if (num_outputs > 0 && outputs == NULL) {
    mlip_set_error(err, 1, -1, -1);
    return MLIP_ERR_NULL;
  }
  /* Both counts are non-negative here, so the sum cannot overflow int32. */
  if ((int64_t)num_inputs + (int64_t)num_outputs > (int64_t)MLIP_MAX_IO_TENSORS) {
    return MLIP_ERR_UNSUPPORTED;
  }

  /* One array for both sides: inputs at the front, outputs after them. The
     +1 keeps the array non-empty for a model without I/O. */
  void* ptrs[MLIP_MAX_IO_TENSORS + 1];
  void** in_ptrs = ptrs;
  void** out_ptrs = ptrs + num_inputs;
  mlip_status st = mlip_check_side(model->inputs, inputs, num_inputs, 0, in_ptrs, err);
  if (st != MLIP_OK) {
    return st;
  }
  st = mlip_check_side(model->outputs, outputs, num_outputs, 1, out_ptrs, err);
  if (st != MLIP_OK) {
    return st;
  }
  return (mlip_status)model->run(in_ptrs, out_ptrs);
}

mlip_status mlip_model_run_checked(const mlip_model* model, const DLTensor* inputs, int32_t num_inputs,
                                   const DLTensor* outputs, int32_t num_outputs) {
  return mlip_model_run_checked_ex(model, inputs, num_inputs, outputs, num_outputs, NULL);
}
