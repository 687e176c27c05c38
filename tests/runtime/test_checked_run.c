/* runtime.checked_run: mlip_model_run_checked(_ex) and mlip_check_tensor
   against tiny hand-written models. Every rejection is checked for its
   status, for where it is reported, and for the model not having run. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <string.h>

#include "mlip/compiler.h"
#include "mlip/model.h"

/* ---- model "add1": y = x + 1, float32 [2,1,3,4], 16-byte alignment ---- */

#define N_ELEM 24
static const int64_t add1_shape[4] = {2, 1, 3, 4};
static int run_calls;
static int32_t run_result;

static int32_t add1_run(void* const* inputs, void* const* outputs) {
  const float* x = (const float*)inputs[0];
  float* y = (float*)outputs[0];
  int i;
  ++run_calls;
  for (i = 0; i < N_ELEM; ++i) {
    y[i] = x[i] + 1.0f;
  }
  return run_result;
}

static const mlip_tensor_desc add1_in[1] = {
  {"x", kDLFloat, 32, 1, 4, add1_shape, N_ELEM * sizeof(float), 16},
};
static const mlip_tensor_desc add1_out[1] = {
  {"y", kDLFloat, 32, 1, 4, add1_shape, N_ELEM * sizeof(float), 16},
};
static const mlip_model add1_model = {"add1", 1, 1, add1_in, add1_out, 0, add1_run};

/* Room for an offset of up to 16 floats past the tensor. */
MLIP_ALIGNED(64) static float xbuf[N_ELEM + 16];
MLIP_ALIGNED(64) static float ybuf[N_ELEM + 16];
static int64_t x_shape[4];
static int64_t y_shape[4];
static DLTensor x_t;
static DLTensor y_t;

static DLTensor make_tensor(void* data, int64_t* shape) {
  DLTensor t;
  memset(&t, 0, sizeof t);
  t.data = data;
  t.device.device_type = kDLCPU;
  t.device.device_id = 0;
  t.ndim = 4;
  t.dtype.code = kDLFloat;
  t.dtype.bits = 32;
  t.dtype.lanes = 1;
  t.shape = shape;
  t.strides = NULL;
  t.byte_offset = 0;
  return t;
}

static int setup(void** state) {
  int i;
  (void)state;
  run_calls = 0;
  run_result = 0;
  for (i = 0; i < N_ELEM + 16; ++i) {
    xbuf[i] = (float)i;
    ybuf[i] = -100.0f;
  }
  memcpy(x_shape, add1_shape, sizeof x_shape);
  memcpy(y_shape, add1_shape, sizeof y_shape);
  x_t = make_tensor(xbuf, x_shape);
  y_t = make_tensor(ybuf, y_shape);
  return 0;
}

static mlip_check_error run_add1(mlip_status* st) {
  mlip_check_error err = {99, 99, 99};
  *st = mlip_model_run_checked_ex(&add1_model, &x_t, 1, &y_t, 1, &err);
  return err;
}

/* Rejected with `want`, reported at (is_output, index, axis), model not run,
   output untouched; the plain entry agrees. */
static void expect_reject(mlip_status want, int32_t is_output, int32_t index, int32_t axis) {
  mlip_status st;
  mlip_check_error err = run_add1(&st);
  assert_int_equal(st, want);
  assert_int_equal(err.is_output, is_output);
  assert_int_equal(err.index, index);
  assert_int_equal(err.axis, axis);
  assert_int_equal(mlip_model_run_checked(&add1_model, &x_t, 1, &y_t, 1), want);
  assert_int_equal(run_calls, 0);
  assert_true(ybuf[0] == -100.0f);
}

static void expect_ok(void) {
  mlip_status st;
  mlip_check_error err = run_add1(&st);
  assert_int_equal(st, MLIP_OK);
  assert_int_equal(err.index, -1);
  assert_int_equal(err.axis, -1);
  assert_int_equal(run_calls, 1);
}

static void test_good_call(void** state) {
  int i;
  (void)state;
  expect_ok();
  for (i = 0; i < N_ELEM; ++i) {
    assert_true(ybuf[i] == (float)i + 1.0f);
  }
  assert_true(ybuf[N_ELEM] == -100.0f);
  assert_int_equal(mlip_model_run_checked(&add1_model, &x_t, 1, &y_t, 1), MLIP_OK);
  assert_int_equal(run_calls, 2);
}

static void test_null_model(void** state) {
  (void)state;
  mlip_check_error err;
  assert_int_equal(mlip_model_run_checked_ex(NULL, &x_t, 1, &y_t, 1, &err), MLIP_ERR_NULL);
  assert_int_equal(err.index, -1);
  assert_int_equal(mlip_model_run_checked(NULL, &x_t, 1, &y_t, 1), MLIP_ERR_NULL);
  mlip_model no_run = add1_model;
  no_run.run = NULL;
  assert_int_equal(mlip_model_run_checked(&no_run, &x_t, 1, &y_t, 1), MLIP_ERR_NULL);
  assert_int_equal(run_calls, 0);
}

static void test_null_arrays(void** state) {
  (void)state;
  mlip_check_error err;
  assert_int_equal(mlip_model_run_checked_ex(&add1_model, NULL, 1, &y_t, 1, &err), MLIP_ERR_NULL);
  assert_int_equal(err.is_output, 0);
  assert_int_equal(mlip_model_run_checked_ex(&add1_model, &x_t, 1, NULL, 1, &err), MLIP_ERR_NULL);
  assert_int_equal(err.is_output, 1);
  assert_int_equal(run_calls, 0);
}

static void test_null_input_data(void** state) {
  (void)state;
  x_t.data = NULL;
  expect_reject(MLIP_ERR_NULL, 0, 0, -1);
}

static void test_null_output_data(void** state) {
  (void)state;
  y_t.data = NULL;
  expect_reject(MLIP_ERR_NULL, 1, 0, -1);
}

static void test_null_shape(void** state) {
  (void)state;
  x_t.shape = NULL;
  expect_reject(MLIP_ERR_NULL, 0, 0, -1);
}

static void test_wrong_count(void** state) {
  (void)state;
  DLTensor two[2];
  two[0] = x_t;
  two[1] = x_t;
  mlip_check_error err;
  assert_int_equal(mlip_model_run_checked_ex(&add1_model, two, 2, &y_t, 1, &err), MLIP_ERR_COUNT);
  assert_int_equal(err.is_output, 0);
  assert_int_equal(mlip_model_run_checked_ex(&add1_model, two, 0, &y_t, 1, &err), MLIP_ERR_COUNT);
  assert_int_equal(mlip_model_run_checked_ex(&add1_model, &x_t, 1, two, 2, &err), MLIP_ERR_COUNT);
  assert_int_equal(err.is_output, 1);
  assert_int_equal(mlip_model_run_checked_ex(&add1_model, &x_t, 1, &y_t, 0, &err), MLIP_ERR_COUNT);
  assert_int_equal(mlip_model_run_checked(&add1_model, &x_t, -1, &y_t, 1), MLIP_ERR_COUNT);
  assert_int_equal(run_calls, 0);
}

static void test_wrong_device(void** state) {
  (void)state;
  x_t.device.device_type = kDLCUDA;
  expect_reject(MLIP_ERR_DEVICE, 0, 0, -1);
  x_t.device.device_type = kDLCPU;
  y_t.device.device_type = kDLCUDAHost;
  expect_reject(MLIP_ERR_DEVICE, 1, 0, -1);
}

static void test_wrong_dtype_code(void** state) {
  (void)state;
  x_t.dtype.code = kDLInt;
  expect_reject(MLIP_ERR_DTYPE, 0, 0, -1);
  x_t.dtype.code = kDLBfloat;
  expect_reject(MLIP_ERR_DTYPE, 0, 0, -1);
}

static void test_wrong_dtype_bits(void** state) {
  (void)state;
  y_t.dtype.bits = 16;
  expect_reject(MLIP_ERR_DTYPE, 1, 0, -1);
}

static void test_wrong_dtype_lanes(void** state) {
  (void)state;
  x_t.dtype.lanes = 4;
  expect_reject(MLIP_ERR_DTYPE, 0, 0, -1);
}

static void test_wrong_ndim(void** state) {
  (void)state;
  x_t.ndim = 3;
  expect_reject(MLIP_ERR_NDIM, 0, 0, -1);
  x_t.ndim = 0;
  expect_reject(MLIP_ERR_NDIM, 0, 0, -1);
  x_t.ndim = 4;
  y_t.ndim = 5;
  expect_reject(MLIP_ERR_NDIM, 1, 0, -1);
}

static void test_each_shape_axis(void** state) {
  int32_t axis;
  (void)state;
  for (axis = 0; axis < 4; ++axis) {
    x_shape[axis] += 1;
    expect_reject(MLIP_ERR_SHAPE, 0, 0, axis);
    int32_t bad = 99;
    assert_int_equal(mlip_check_tensor(&add1_in[0], &x_t, &bad), MLIP_ERR_SHAPE);
    assert_int_equal(bad, axis);
    x_shape[axis] -= 1;

    y_shape[axis] = 0;
    expect_reject(MLIP_ERR_SHAPE, 1, 0, axis);
    y_shape[axis] = add1_shape[axis];
  }
  expect_ok();
}

static void test_compact_strides_accepted(void** state) {
  (void)state;
  int64_t strides[4] = {12, 12, 4, 1};
  x_t.strides = strides;
  y_t.strides = strides;
  expect_ok();
  assert_true(ybuf[5] == 6.0f);
}

static void test_unit_axis_stride_ignored(void** state) {
  (void)state;
  /* Axis 1 has extent 1: its stride never moves the address. */
  int64_t strides[4] = {12, 999, 4, 1};
  x_t.strides = strides;
  expect_ok();
}

static void test_noncompact_strides(void** state) {
  (void)state;
  int64_t transposed[4] = {12, 12, 1, 3};
  x_t.strides = transposed;
  expect_reject(MLIP_ERR_STRIDES, 0, 0, 3);
  int32_t bad = 99;
  assert_int_equal(mlip_check_tensor(&add1_in[0], &x_t, &bad), MLIP_ERR_STRIDES);
  assert_int_equal(bad, 3);

  int64_t padded[4] = {24, 12, 4, 1};
  x_t.strides = NULL;
  y_t.strides = padded;
  expect_reject(MLIP_ERR_STRIDES, 1, 0, 0);

  int64_t row_padded[4] = {15, 15, 5, 1};
  y_t.strides = row_padded;
  expect_reject(MLIP_ERR_STRIDES, 1, 0, 2);
}

static void test_misaligned_data(void** state) {
  (void)state;
  x_t.data = xbuf + 1; /* 4-byte aligned, model wants 16 */
  expect_reject(MLIP_ERR_ALIGNMENT, 0, 0, -1);
  x_t.data = xbuf;
  y_t.data = (unsigned char*)ybuf + 8;
  expect_reject(MLIP_ERR_ALIGNMENT, 1, 0, -1);
}

static void test_misaligning_byte_offset(void** state) {
  (void)state;
  x_t.byte_offset = 4;
  expect_reject(MLIP_ERR_ALIGNMENT, 0, 0, -1);
  /* data misaligned by 8, offset 8 more: aligned again, so accepted. */
  x_t.data = (unsigned char*)xbuf + 8;
  x_t.byte_offset = 8;
  expect_ok();
  assert_true(ybuf[0] == 5.0f); /* read from xbuf[4] */
}

static void test_aligned_byte_offset_applied(void** state) {
  int i;
  (void)state;
  x_t.byte_offset = 16 * sizeof(float);
  y_t.byte_offset = 4 * sizeof(float);
  expect_ok();
  assert_true(ybuf[0] == -100.0f);
  for (i = 0; i < N_ELEM; ++i) {
    assert_true(ybuf[4 + i] == (float)(16 + i) + 1.0f);
  }
}

static void test_run_result_propagated(void** state) {
  (void)state;
  run_result = 7;
  mlip_status st;
  mlip_check_error err = run_add1(&st);
  assert_int_equal(st, 7);
  assert_int_equal(err.index, -1);
  assert_int_equal(run_calls, 1);
  assert_int_equal(mlip_model_run_checked(&add1_model, &x_t, 1, &y_t, 1), 7);
  run_result = -3;
  assert_int_equal(mlip_model_run_checked(&add1_model, &x_t, 1, &y_t, 1), -3);
}

/* ---- model "pair": two inputs, two outputs; index reporting ---- */

static const int64_t vec4[1] = {4};
static int32_t pair_run(void* const* inputs, void* const* outputs) {
  const float* a = (const float*)inputs[0];
  const int32_t* b = (const int32_t*)inputs[1];
  float* c = (float*)outputs[0];
  int32_t* d = (int32_t*)outputs[1];
  int i;
  ++run_calls;
  for (i = 0; i < 4; ++i) {
    c[i] = a[i] + 1.0f;
    d[i] = b[i] + 1;
  }
  return 0;
}
static const mlip_tensor_desc pair_in[2] = {
  {"a", kDLFloat, 32, 1, 1, vec4, 16, 4},
  {"b", kDLInt, 32, 1, 1, vec4, 16, 4},
};
static const mlip_tensor_desc pair_out[2] = {
  {"c", kDLFloat, 32, 1, 1, vec4, 16, 4},
  {"d", kDLInt, 32, 1, 1, vec4, 16, 0}, /* 0: no alignment requirement beyond 1 */
};
static const mlip_model pair_model = {"pair", 2, 2, pair_in, pair_out, 0, pair_run};

static void test_index_reported(void** state) {
  (void)state;
  float a[4] = {1, 2, 3, 4};
  int32_t b[4] = {10, 20, 30, 40};
  float c[4];
  int32_t d[4];
  int64_t shape[1] = {4};
  DLTensor in[2];
  DLTensor out[2];
  in[0] = make_tensor(a, shape);
  in[1] = make_tensor(b, shape);
  out[0] = make_tensor(c, shape);
  out[1] = make_tensor(d, shape);
  in[0].ndim = in[1].ndim = out[0].ndim = out[1].ndim = 1;
  in[1].dtype.code = kDLInt;
  out[1].dtype.code = kDLInt;

  mlip_check_error err;
  assert_int_equal(mlip_model_run_checked_ex(&pair_model, in, 2, out, 2, &err), MLIP_OK);
  assert_int_equal(run_calls, 1);
  assert_true(c[3] == 5.0f);
  assert_int_equal(d[2], 31);

  out[1].dtype.code = kDLUInt;
  assert_int_equal(mlip_model_run_checked_ex(&pair_model, in, 2, out, 2, &err), MLIP_ERR_DTYPE);
  assert_int_equal(err.is_output, 1);
  assert_int_equal(err.index, 1);
  out[1].dtype.code = kDLInt;

  /* Inputs are checked before outputs, and the first failure wins. */
  in[1].device.device_type = kDLOpenCL;
  out[0].data = NULL;
  assert_int_equal(mlip_model_run_checked_ex(&pair_model, in, 2, out, 2, &err), MLIP_ERR_DEVICE);
  assert_int_equal(err.is_output, 0);
  assert_int_equal(err.index, 1);
  assert_int_equal(run_calls, 1);
}

/* ---- descriptor-level checks ---- */

static void test_malformed_descriptors(void** state) {
  (void)state;
  mlip_tensor_desc d = add1_in[0];
  d.alignment = 12;
  assert_int_equal(mlip_check_tensor(&d, &x_t, NULL), MLIP_ERR_INVALID_ARG);
  d = add1_in[0];
  d.shape = NULL;
  assert_int_equal(mlip_check_tensor(&d, &x_t, NULL), MLIP_ERR_INVALID_ARG);
  d = add1_in[0];
  d.ndim = -1;
  assert_int_equal(mlip_check_tensor(&d, &x_t, NULL), MLIP_ERR_INVALID_ARG);

  mlip_model m = add1_model;
  m.inputs = NULL;
  assert_int_equal(mlip_model_run_checked(&m, &x_t, 1, &y_t, 1), MLIP_ERR_INVALID_ARG);
  m = add1_model;
  m.num_outputs = -1;
  assert_int_equal(mlip_model_run_checked(&m, &x_t, 1, &y_t, 1), MLIP_ERR_INVALID_ARG);
  assert_int_equal(mlip_check_tensor(NULL, &x_t, NULL), MLIP_ERR_NULL);
  assert_int_equal(mlip_check_tensor(&add1_in[0], NULL, NULL), MLIP_ERR_NULL);
  assert_int_equal(run_calls, 0);
}

static void test_too_many_tensors(void** state) {
  (void)state;
  mlip_model m = add1_model;
  m.num_inputs = MLIP_MAX_IO_TENSORS;
  /* The limit is checked before any tensor is read. */
  assert_int_equal(mlip_model_run_checked(&m, &x_t, MLIP_MAX_IO_TENSORS, &y_t, 1), MLIP_ERR_UNSUPPORTED);
  assert_int_equal(run_calls, 0);
}

static void test_scalar_and_empty(void** state) {
  (void)state;
  float v = 1.0f;
  mlip_tensor_desc scalar = {"s", kDLFloat, 32, 1, 0, NULL, 4, 4};
  DLTensor t = make_tensor(&v, NULL);
  t.ndim = 0;
  int32_t bad = 99;
  assert_int_equal(mlip_check_tensor(&scalar, &t, &bad), MLIP_OK);
  assert_int_equal(bad, -1);

  /* Zero elements address nothing: any strides are fine. */
  static const int64_t empty_shape[2] = {0, 3};
  int64_t shape[2] = {0, 3};
  int64_t strides[2] = {7, 7};
  mlip_tensor_desc empty = {"e", kDLFloat, 32, 1, 2, empty_shape, 0, 4};
  t = make_tensor(&v, shape);
  t.ndim = 2;
  t.strides = strides;
  assert_int_equal(mlip_check_tensor(&empty, &t, &bad), MLIP_OK);
}

#define T(f) cmocka_unit_test_setup(f, setup)

int main(void) {
  const struct CMUnitTest tests[] = {
    T(test_good_call),
    T(test_null_model),
    T(test_null_arrays),
    T(test_null_input_data),
    T(test_null_output_data),
    T(test_null_shape),
    T(test_wrong_count),
    T(test_wrong_device),
    T(test_wrong_dtype_code),
    T(test_wrong_dtype_bits),
    T(test_wrong_dtype_lanes),
    T(test_wrong_ndim),
    T(test_each_shape_axis),
    T(test_compact_strides_accepted),
    T(test_unit_axis_stride_ignored),
    T(test_noncompact_strides),
    T(test_misaligned_data),
    T(test_misaligning_byte_offset),
    T(test_aligned_byte_offset_applied),
    T(test_run_result_propagated),
    T(test_index_reported),
    T(test_malformed_descriptors),
    T(test_too_many_tensors),
    T(test_scalar_and_empty),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
