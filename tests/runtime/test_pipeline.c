/* runtime.pipeline: the pipeline API (mlip/pipeline.h) on a two-stage
   pipeline of hand-written modules: the manifest's own checks, every way a
   manifest can disagree with its stages (each rejected with its status and
   where), and steps through an in-memory transport. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <string.h>

#include "mlip/pipeline.h"

/* stage 0: mid = 2 x; stage 1: y = mid + 1; float32 [1, 4] each. */
static const int64_t shape4[2] = {1, 4};
static int32_t double_run(void* const* in, void* const* out) {
  int i;
  for (i = 0; i < 4; ++i) ((float*)out[0])[i] = 2.0f * ((const float*)in[0])[i];
  return 0;
}
static int32_t inc_run(void* const* in, void* const* out) {
  int i;
  for (i = 0; i < 4; ++i) ((float*)out[0])[i] = ((const float*)in[0])[i] + 1.0f;
  return 0;
}
static const mlip_tensor_desc x_desc = {"x", kDLFloat, 32, 1, 2, shape4, 16, 4};
static const mlip_tensor_desc mid_desc = {"mid", kDLFloat, 32, 1, 2, shape4, 16, 4};
static const mlip_tensor_desc y_desc = {"y", kDLFloat, 32, 1, 2, shape4, 16, 4};
static const mlip_model stage0 = {"net_stage0", 1, 1, &x_desc, &mid_desc, 0, double_run};
static const mlip_model stage1 = {"net_stage1", 1, 1, &mid_desc, &y_desc, 0, inc_run};

/* The manifest, rebuilt before each test so a test may break it. */
static int64_t mid_shape[2];
static int32_t x_consumers[1], mid_consumers[1], y_consumers[1];
static int32_t s0_in[1], s0_out[1], s1_in[1], s1_out[1], model_in[1], model_out[1];
static mlip_pipe_tensor tensors[3];
static mlip_pipe_stage stages[2];
static mlip_pipeline pipe;

static int setup(void** state) {
  (void)state;
  mid_shape[0] = 1;
  mid_shape[1] = 4;
  x_consumers[0] = 0;
  mid_consumers[0] = 1;
  y_consumers[0] = MLIP_PIPE_HOST;
  tensors[0] = (mlip_pipe_tensor){"x", kDLFloat, 32, 2, shape4, 16, MLIP_PIPE_HOST, 1, x_consumers};
  tensors[1] = (mlip_pipe_tensor){"mid", kDLFloat, 32, 2, mid_shape, 16, 0, 1, mid_consumers};
  tensors[2] = (mlip_pipe_tensor){"y", kDLFloat, 32, 2, shape4, 16, 1, 1, y_consumers};
  s0_in[0] = 0;
  s0_out[0] = 1;
  s1_in[0] = 1;
  s1_out[0] = 2;
  stages[0] = (mlip_pipe_stage){"net_stage0", 0, 1, s0_in, 1, s0_out};
  stages[1] = (mlip_pipe_stage){"net_stage1", 1, 1, s1_in, 1, s1_out};
  model_in[0] = 0;
  model_out[0] = 2;
  pipe = (mlip_pipeline){MLIP_PIPELINE_VERSION, 2, stages, 3, tensors, 1, model_in, 1, model_out};
  return 0;
}

static void expect_stage(int32_t stage, const mlip_model* m, mlip_status want, int32_t at_stage, int32_t at_tensor) {
  mlip_pipe_error e = {99, 99, NULL};
  assert_int_equal(mlip_pipeline_check_stage(&pipe, stage, m, &e), want);
  assert_int_equal(e.stage, at_stage);
  assert_int_equal(e.tensor, at_tensor);
}

static void valid_manifest_matches_its_stages(void** state) {
  (void)state;
  assert_int_equal(mlip_pipeline_check(&pipe, NULL), MLIP_OK);
  expect_stage(0, &stage0, MLIP_OK, -1, -1);
  expect_stage(1, &stage1, MLIP_OK, -1, -1);
}

static void manifest_that_does_not_match_is_rejected(void** state) {
  (void)state;
  expect_stage(0, &stage1, MLIP_ERR_INVALID_ARG, 0, -1); /* another module */
  expect_stage(2, &stage1, MLIP_ERR_INVALID_ARG, 2, -1); /* no such stage */
  mid_shape[1] = 2;                                      /* the tensor between them, half as wide */
  tensors[1].size_bytes = 8;
  expect_stage(0, &stage0, MLIP_ERR_SHAPE, 0, 1);
  expect_stage(1, &stage1, MLIP_ERR_SHAPE, 1, 1);
  setup(NULL);
  tensors[1].dtype_bits = 16; /* float16 */
  tensors[1].size_bytes = 8;
  expect_stage(0, &stage0, MLIP_ERR_DTYPE, 0, 1);
  setup(NULL);
  tensors[1].ndim = 1;
  tensors[1].shape = &mid_shape[1];
  expect_stage(0, &stage0, MLIP_ERR_NDIM, 0, 1);
  setup(NULL);
  tensors[1].name = "middle";
  expect_stage(1, &stage1, MLIP_ERR_INVALID_ARG, 1, 1);
  setup(NULL);
  stages[0].num_outputs = 0; /* a stage with no output */
  expect_stage(0, &stage0, MLIP_ERR_INVALID_ARG, 0, -1);
  setup(NULL);
  pipe.version = 2;
  expect_stage(0, &stage0, MLIP_ERR_VERSION, -1, -1);
}

static void manifest_must_be_consistent(void** state) {
  mlip_pipe_error e;
  (void)state;
  assert_int_equal(mlip_pipeline_check(NULL, &e), MLIP_ERR_NULL);
  tensors[1].size_bytes = 12; /* not 1 x 4 x 4 bytes */
  assert_int_equal(mlip_pipeline_check(&pipe, &e), MLIP_ERR_INVALID_ARG);
  assert_int_equal(e.tensor, 1);
  setup(NULL);
  mid_consumers[0] = 0; /* data flowing back to its producer */
  assert_int_equal(mlip_pipeline_check(&pipe, &e), MLIP_ERR_INVALID_ARG);
  setup(NULL);
  s1_in[0] = 0; /* stage 1 reads x, which does not list it */
  assert_int_equal(mlip_pipeline_check(&pipe, &e), MLIP_ERR_INVALID_ARG);
  assert_int_equal(e.stage, 1);
  setup(NULL);
  y_consumers[0] = 0; /* a model output that does not reach the host */
  assert_int_equal(mlip_pipeline_check(&pipe, &e), MLIP_ERR_INVALID_ARG);
  setup(NULL);
  s0_out[0] = 7; /* out of range */
  assert_int_equal(mlip_pipeline_check(&pipe, &e), MLIP_ERR_INVALID_ARG);
  assert_int_equal(e.stage, 0);
}

/* Each refusal names the manifest's field (issue 26, item 10), and the
   rules that pipeline.json's tamperings broke: a list naming an index
   twice, a NULL list with entries, a negative PE, a tensor nothing reads. */
static void expect_field(mlip_status want, int32_t at_stage, int32_t at_tensor, const char* field) {
  mlip_pipe_error e = {99, 99, NULL};
  assert_int_equal(mlip_pipeline_check(&pipe, &e), want);
  assert_int_equal(e.stage, at_stage);
  assert_int_equal(e.tensor, at_tensor);
  assert_non_null(e.field);
  assert_string_equal(e.field, field);
  setup(NULL);
}

static void refusals_name_the_field(void** state) {
  static int32_t twice[2] = {1, 1};
  mlip_pipe_error e = {99, 99, "x"};
  (void)state;
  assert_int_equal(mlip_pipeline_check(&pipe, &e), MLIP_OK);
  assert_null(e.field);
  pipe.version = 7;
  expect_field(MLIP_ERR_VERSION, -1, -1, "version");
  pipe.num_outputs = 0;
  expect_field(MLIP_ERR_INVALID_ARG, -1, -1, "outputs");
  model_out[0] = 0; /* the model's output is x, which does not reach the host */
  expect_field(MLIP_ERR_INVALID_ARG, -1, 0, "outputs");
  tensors[1].size_bytes = 12;
  expect_field(MLIP_ERR_INVALID_ARG, -1, 1, "tensors[].bytes");
  tensors[1].dtype_bits = 12;
  expect_field(MLIP_ERR_INVALID_ARG, -1, 1, "tensors[].dtype");
  mid_shape[1] = -4;
  expect_field(MLIP_ERR_INVALID_ARG, -1, 1, "tensors[].shape");
  tensors[1].name = NULL;
  expect_field(MLIP_ERR_INVALID_ARG, -1, 1, "tensors[].name");
  tensors[1].producer = 2;
  expect_field(MLIP_ERR_INVALID_ARG, -1, 1, "tensors[].producer");
  tensors[1].consumers = twice; /* stage 1 named twice */
  tensors[1].num_consumers = 2;
  expect_field(MLIP_ERR_INVALID_ARG, 0, 1, "tensors[].consumers");
  tensors[1].consumers = NULL; /* a list of one entry that is not there */
  expect_field(MLIP_ERR_INVALID_ARG, 0, 1, "tensors[].consumers");
  tensors[1].num_consumers = 0; /* nothing reads mid */
  expect_field(MLIP_ERR_INVALID_ARG, 0, 1, "tensors[].consumers");
  mid_consumers[0] = 0; /* back to its producer: a cycle */
  expect_field(MLIP_ERR_INVALID_ARG, 0, 1, "tensors[].consumers");
  y_consumers[0] = 1; /* y's producer is stage 1 */
  expect_field(MLIP_ERR_INVALID_ARG, 1, 2, "tensors[].consumers");
  stages[1].pe = -1;
  expect_field(MLIP_ERR_INVALID_ARG, 1, -1, "stages[].pe");
  stages[1].module_name = NULL;
  expect_field(MLIP_ERR_INVALID_ARG, 1, -1, "stages[].module");
  stages[0].inputs = twice; /* two inputs, both tensor 1 */
  stages[0].num_inputs = 2;
  expect_field(MLIP_ERR_INVALID_ARG, 0, -1, "stages[].inputs");
  stages[0].outputs = NULL;
  expect_field(MLIP_ERR_INVALID_ARG, 0, -1, "stages[].outputs");
  s1_in[0] = 0; /* x does not list stage 1 */
  expect_field(MLIP_ERR_INVALID_ARG, 1, 0, "stages[].inputs");
  s1_out[0] = 1; /* mid is stage 0's */
  expect_field(MLIP_ERR_INVALID_ARG, 1, 1, "stages[].outputs");
  model_in[0] = 2;
  expect_field(MLIP_ERR_INVALID_ARG, -1, 2, "inputs");
  pipe.inputs = twice;
  pipe.num_inputs = 2;
  expect_field(MLIP_ERR_INVALID_ARG, -1, -1, "inputs");
  /* Against a module: the field the mismatch is about. */
  {
    mlip_pipe_error f = {99, 99, NULL};
    assert_int_equal(mlip_pipeline_check_stage(&pipe, 0, &stage1, &f), MLIP_ERR_INVALID_ARG);
    assert_string_equal(f.field, "stages[].module");
    mid_shape[1] = 2;
    tensors[1].size_bytes = 8;
    assert_int_equal(mlip_pipeline_check_stage(&pipe, 0, &stage0, &f), MLIP_ERR_SHAPE);
    assert_string_equal(f.field, "tensors[].shape");
  }
}

/* An in-memory transport: a one-slot mailbox per tensor, the host's
   arrays of three samples. */
typedef struct mem_transport {
  float host_in[3][4], host_out[3][4];
  float box[3][4];
  int full[3];
  int flushes, fail_send;
  uint64_t last_sample;
} mem_transport;

static mlip_status mem_recv(void* ctx, uint64_t sample, int32_t peer, int32_t tensor, void* data, size_t size) {
  mem_transport* t = (mem_transport*)ctx;
  t->last_sample = sample;
  if (peer == MLIP_PIPE_HOST) {
    memcpy(data, t->host_in[sample], size);
    return MLIP_OK;
  }
  if (!t->full[tensor]) return MLIP_ERR_INTERNAL;
  memcpy(data, t->box[tensor], size);
  t->full[tensor] = 0;
  return MLIP_OK;
}

static mlip_status mem_send(void* ctx, uint64_t sample, int32_t peer, int32_t tensor, const void* data, size_t size) {
  mem_transport* t = (mem_transport*)ctx;
  if (t->fail_send) return MLIP_ERR_BOUNDS;
  if (peer == MLIP_PIPE_HOST) {
    memcpy(t->host_out[sample], data, size);
    return MLIP_OK;
  }
  memcpy(t->box[tensor], data, size);
  t->full[tensor] = 1;
  return MLIP_OK;
}

static mlip_status mem_flush(void* ctx) {
  ((mem_transport*)ctx)->flushes++;
  return MLIP_OK;
}

static void steps_move_samples_through_the_stages(void** state) {
  static mem_transport mt;
  float in0[4], out0[4], in1[4], out1[4];
  void* i0[1] = {in0};
  void* o0[1] = {out0};
  void* i1[1] = {in1};
  void* o1[1] = {out1};
  mlip_transport tr = {&mt, mem_recv, mem_send, mem_flush};
  mlip_pipe_runner r0, r1;
  int s, k;
  (void)state;
  memset(&mt, 0, sizeof mt);
  for (s = 0; s < 3; ++s)
    for (k = 0; k < 4; ++k) mt.host_in[s][k] = (float)(10 * s + k);
  assert_int_equal(mlip_pipe_runner_init(&r0, &pipe, 0, &stage0, i0, o0, &tr, NULL), MLIP_OK);
  assert_int_equal(mlip_pipe_runner_init(&r1, &pipe, 1, &stage1, i1, o1, &tr, NULL), MLIP_OK);
  for (s = 0; s < 3; ++s) {
    assert_int_equal(mlip_pipe_step(&r0), MLIP_OK);
    assert_int_equal(mlip_pipe_step(&r1), MLIP_OK);
    assert_int_equal((int)mt.last_sample, s);
  }
  for (s = 0; s < 3; ++s)
    for (k = 0; k < 4; ++k) assert_true(mt.host_out[s][k] == 2.0f * (float)(10 * s + k) + 1.0f);
  assert_int_equal(mt.flushes, 6);
  /* A transport's failure stops the step and is returned. */
  mt.fail_send = 1;
  assert_int_equal(mlip_pipe_step(&r0), MLIP_ERR_BOUNDS);
  /* A missing buffer or transport is refused before anything runs. */
  i0[0] = NULL;
  assert_int_equal(mlip_pipe_runner_init(&r0, &pipe, 0, &stage0, i0, o0, &tr, NULL), MLIP_ERR_NULL);
  assert_int_equal(mlip_pipe_runner_init(&r0, &pipe, 0, &stage0, i1, o0, NULL, NULL), MLIP_ERR_NULL);
  assert_int_equal(mlip_pipe_step(NULL), MLIP_ERR_NULL);
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test_setup(valid_manifest_matches_its_stages, setup),
      cmocka_unit_test_setup(manifest_that_does_not_match_is_rejected, setup),
      cmocka_unit_test_setup(manifest_must_be_consistent, setup),
      cmocka_unit_test_setup(refusals_name_the_field, setup),
      cmocka_unit_test_setup(steps_move_samples_through_the_stages, setup),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
