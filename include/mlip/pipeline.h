/*
 * mlip/pipeline.h - one model pipelined across processing elements (PEs):
 * the manifest (pipeline.json in C form, docs/mesh.md), the check of a
 * manifest against the compiled stages, and one step of a stage (receive
 * its inputs, run its module's tvmgen_<m>_run, send its outputs) through a
 * transport the user's coordinator implements. No heap, no stdio: the
 * caller owns every buffer; every function returns a status.
 */
#ifndef MLIP_PIPELINE_H_
#define MLIP_PIPELINE_H_

#include <stddef.h>
#include <stdint.h>

#include "mlip/model.h"
#include "mlip/status.h"

#ifdef __cplusplus
extern "C" {
#endif

/* The manifest version this runtime reads (pipeline.json "version"). */
#define MLIP_PIPELINE_VERSION 1

/* The coordinator: the producer of the model's inputs and the consumer of
   its outputs, in place of a stage index. */
#define MLIP_PIPE_HOST (-1)

/* A stage has at most this many inputs plus outputs (stack arrays). */
#ifndef MLIP_PIPE_MAX_IO
#define MLIP_PIPE_MAX_IO 64
#endif

/* A tensor between stages, or a model input or output. */
typedef struct mlip_pipe_tensor {
  const char* name;      /* as the stage modules name it */
  uint8_t dtype_code;    /* DLDataTypeCode */
  uint8_t dtype_bits;
  int32_t ndim;
  const int64_t* shape;
  size_t size_bytes;
  int32_t producer;      /* stage index, or MLIP_PIPE_HOST for a model input */
  int32_t num_consumers;
  const int32_t* consumers; /* stage indices; MLIP_PIPE_HOST for a model output */
} mlip_pipe_tensor;

typedef struct mlip_pipe_stage {
  const char* module_name; /* the stage's MLF module: tvmgen_<module_name>_run */
  int32_t pe;              /* the PE it runs on */
  int32_t num_inputs;
  const int32_t* inputs;   /* tensor indices, in the module's input order */
  int32_t num_outputs;
  const int32_t* outputs;  /* tensor indices, in the module's output order */
} mlip_pipe_stage;

typedef struct mlip_pipeline {
  int32_t version;         /* MLIP_PIPELINE_VERSION */
  int32_t num_stages;
  const mlip_pipe_stage* stages;
  int32_t num_tensors;
  const mlip_pipe_tensor* tensors;
  int32_t num_inputs;      /* the model's inputs, as tensor indices */
  const int32_t* inputs;
  int32_t num_outputs;     /* the model's outputs */
  const int32_t* outputs;
} mlip_pipeline;

/* Where a check failed: stage and tensor indices, -1 when not about one,
   and the field of the manifest the failed rule reads, as pipeline.json
   names it ("tensors[].consumers", "stages[].inputs"; a static string, NULL
   when not about one). */
typedef struct mlip_pipe_error {
  int32_t stage;
  int32_t tensor;
  const char* field;
} mlip_pipe_error;

/* The manifest alone: version (MLIP_ERR_VERSION), counts and indices in
   range, no index listed twice in one list, every stage's inputs produced
   by an earlier stage or the host and listing it among their consumers,
   every output produced by it, sizes equal to shape x element size, the
   model's inputs and outputs produced by / sent to the host and every
   tensor with the host as producer or consumer among them
   (MLIP_ERR_INVALID_ARG otherwise). err may be NULL. */
mlip_status mlip_pipeline_check(const mlip_pipeline* p, mlip_pipe_error* err);

/* Stage `stage` of the manifest against the module that is to run it:
   module name (MLIP_ERR_INVALID_ARG), input and output counts
   (MLIP_ERR_COUNT), each tensor's dtype (MLIP_ERR_DTYPE), rank
   (MLIP_ERR_NDIM), shape (MLIP_ERR_SHAPE), bytes (MLIP_ERR_SHAPE) and name
   (MLIP_ERR_INVALID_ARG). Checks the manifest first. */
mlip_status mlip_pipeline_check_stage(const mlip_pipeline* p, int32_t stage, const mlip_model* model,
                                      mlip_pipe_error* err);

/* A transport: how stages reach each other and the coordinator. `sample`
   numbers the samples of a stream from 0; `peer` is a stage index or
   MLIP_PIPE_HOST. recv blocks until the tensor of that sample is in
   data[0..size); send hands it over (it may keep the pointer until flush);
   flush (may be NULL) returns once every send of this step is done with
   its buffer. A non-zero status stops the step and is returned. */
typedef struct mlip_transport {
  void* ctx;
  mlip_status (*recv)(void* ctx, uint64_t sample, int32_t peer, int32_t tensor, void* data, size_t size);
  mlip_status (*send)(void* ctx, uint64_t sample, int32_t peer, int32_t tensor, const void* data, size_t size);
  mlip_status (*flush)(void* ctx);
} mlip_transport;

/* A stage bound to its module and the caller's buffers (inputs[k] and
   outputs[k] hold the module's k-th tensor, size_bytes each). */
typedef struct mlip_pipe_runner {
  const mlip_pipeline* pipeline;
  int32_t stage;
  const mlip_model* model;
  void* const* inputs;
  void* const* outputs;
  const mlip_transport* transport;
  uint64_t next_sample; /* the sample the next step handles */
} mlip_pipe_runner;

/* Checks the stage against the manifest (mlip_pipeline_check_stage) and
   the arguments (NULL buffers: MLIP_ERR_NULL), then fills *r. */
mlip_status mlip_pipe_runner_init(mlip_pipe_runner* r, const mlip_pipeline* p, int32_t stage,
                                  const mlip_model* model, void* const* inputs, void* const* outputs,
                                  const mlip_transport* transport, mlip_pipe_error* err);

/* One sample: receive each input from its producer, run the module, send
   each output to each of its consumers (in the manifest's order), flush. */
mlip_status mlip_pipe_step(mlip_pipe_runner* r);

#ifdef __cplusplus
}
#endif

#endif /* MLIP_PIPELINE_H_ */
