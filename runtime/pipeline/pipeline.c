/*
 * The pipeline API (mlip/pipeline.h): a manifest checked against itself
 * and against the stage modules, and one step of a stage through the
 * user's transport. No heap, no recursion, no global state, no stdio.
 */
#include "mlip/strict_fp.h" /* first: no contraction, same bits everywhere */
#include "mlip/pipeline.h"

#include <stddef.h>
#include <stdint.h>

static mlip_status mlip_pipe_fail(mlip_pipe_error* err, mlip_status s, int32_t stage, int32_t tensor,
                                  const char* field) {
  if (err != NULL) {
    err->stage = stage;
    err->tensor = tensor;
    err->field = field;
  }
  return s;
}

static int mlip_pipe_streq(const char* a, const char* b) {
  if (a == NULL || b == NULL) {
    return 0;
  }
  while (*a != '\0' && *a == *b) {
    ++a;
    ++b;
  }
  return *a == *b;
}

static int mlip_pipe_lists(const int32_t* list, int32_t n, int32_t value) {
  int32_t i;
  for (i = 0; i < n; ++i) {
    if (list[i] == value) {
      return 1;
    }
  }
  return 0;
}

/* A list of n indices: n in range, the array present when n > 0, no index
   twice, each from lo to hi - 1. */
static int mlip_pipe_list_ok(const int32_t* list, int32_t n, int32_t max_n, int32_t lo, int32_t hi) {
  int32_t i;
  if (n < 0 || n > max_n || (n > 0 && list == NULL)) {
    return 0;
  }
  for (i = 0; i < n; ++i) {
    if (list[i] < lo || list[i] >= hi || mlip_pipe_lists(list, i, list[i])) {
      return 0;
    }
  }
  return 1;
}

/* A tensor's own fields: name, element type, shape and bytes, producer and
   consumers (data flows forward only: a stage feeds later stages or the
   host). */
static mlip_status mlip_pipe_check_tensor(const mlip_pipeline* p, int32_t t, mlip_pipe_error* err) {
  const mlip_pipe_tensor* d = &p->tensors[t];
  uint64_t bytes;
  int32_t k;
  if (d->name == NULL) {
    return mlip_pipe_fail(err, MLIP_ERR_INVALID_ARG, -1, t, "tensors[].name");
  }
  if (d->dtype_bits == 0 || (d->dtype_bits % 8) != 0) {
    return mlip_pipe_fail(err, MLIP_ERR_INVALID_ARG, -1, t, "tensors[].dtype");
  }
  if (d->ndim < 0 || (d->ndim > 0 && d->shape == NULL)) {
    return mlip_pipe_fail(err, MLIP_ERR_INVALID_ARG, -1, t, "tensors[].shape");
  }
  bytes = d->dtype_bits / 8u;
  for (k = 0; k < d->ndim; ++k) {
    if (d->shape[k] < 0 || (d->shape[k] > 0 && bytes > UINT64_MAX / (uint64_t)d->shape[k])) {
      return mlip_pipe_fail(err, MLIP_ERR_INVALID_ARG, -1, t, "tensors[].shape");
    }
    bytes *= (uint64_t)d->shape[k];
  }
  if (bytes != (uint64_t)d->size_bytes) {
    return mlip_pipe_fail(err, MLIP_ERR_INVALID_ARG, -1, t, "tensors[].bytes");
  }
  if (d->producer < MLIP_PIPE_HOST || d->producer >= p->num_stages) {
    return mlip_pipe_fail(err, MLIP_ERR_INVALID_ARG, -1, t, "tensors[].producer");
  }
  if (d->num_consumers < 1 ||
      !mlip_pipe_list_ok(d->consumers, d->num_consumers, p->num_stages + 1, MLIP_PIPE_HOST, p->num_stages)) {
    return mlip_pipe_fail(err, MLIP_ERR_INVALID_ARG, d->producer, t, "tensors[].consumers");
  }
  for (k = 0; k < d->num_consumers; ++k) {
    if (d->consumers[k] != MLIP_PIPE_HOST && d->consumers[k] <= d->producer) {
      return mlip_pipe_fail(err, MLIP_ERR_INVALID_ARG, d->producer, t, "tensors[].consumers");
    }
  }
  return MLIP_OK;
}

/* A stage's own fields: module, PE, input and output lists. */
static mlip_status mlip_pipe_check_stage_fields(const mlip_pipeline* p, int32_t s, mlip_pipe_error* err) {
  const mlip_pipe_stage* st = &p->stages[s];
  if (st->module_name == NULL) {
    return mlip_pipe_fail(err, MLIP_ERR_INVALID_ARG, s, -1, "stages[].module");
  }
  if (st->pe < 0) {
    return mlip_pipe_fail(err, MLIP_ERR_INVALID_ARG, s, -1, "stages[].pe");
  }
  if (!mlip_pipe_list_ok(st->inputs, st->num_inputs, MLIP_PIPE_MAX_IO, 0, p->num_tensors)) {
    return mlip_pipe_fail(err, MLIP_ERR_INVALID_ARG, s, -1, "stages[].inputs");
  }
  if (st->num_outputs < 1 || !mlip_pipe_list_ok(st->outputs, st->num_outputs, MLIP_PIPE_MAX_IO, 0, p->num_tensors) ||
      st->num_inputs + st->num_outputs > MLIP_PIPE_MAX_IO) {
    return mlip_pipe_fail(err, MLIP_ERR_INVALID_ARG, s, -1, "stages[].outputs");
  }
  return MLIP_OK;
}

mlip_status mlip_pipeline_check(const mlip_pipeline* p, mlip_pipe_error* err) {
  int32_t s, k, t;
  mlip_status st;
  mlip_pipe_fail(err, MLIP_OK, -1, -1, NULL);
  if (p == NULL) {
    return MLIP_ERR_NULL;
  }
  if (p->version != MLIP_PIPELINE_VERSION) {
    return mlip_pipe_fail(err, MLIP_ERR_VERSION, -1, -1, "version");
  }
  if (p->num_stages < 1 || p->stages == NULL) {
    return mlip_pipe_fail(err, MLIP_ERR_INVALID_ARG, -1, -1, "stages");
  }
  if (p->num_tensors < 1 || p->tensors == NULL) {
    return mlip_pipe_fail(err, MLIP_ERR_INVALID_ARG, -1, -1, "tensors");
  }
  if (!mlip_pipe_list_ok(p->inputs, p->num_inputs, p->num_tensors, 0, p->num_tensors)) {
    return mlip_pipe_fail(err, MLIP_ERR_INVALID_ARG, -1, -1, "inputs");
  }
  if (p->num_outputs < 1 || !mlip_pipe_list_ok(p->outputs, p->num_outputs, p->num_tensors, 0, p->num_tensors)) {
    return mlip_pipe_fail(err, MLIP_ERR_INVALID_ARG, -1, -1, "outputs");
  }
  /* Each part's own fields first: the relations below read the lists. */
  for (t = 0; t < p->num_tensors; ++t) {
    st = mlip_pipe_check_tensor(p, t, err);
    if (st != MLIP_OK) {
      return st;
    }
  }
  for (s = 0; s < p->num_stages; ++s) {
    st = mlip_pipe_check_stage_fields(p, s, err);
    if (st != MLIP_OK) {
      return st;
    }
  }
  /* Every edge of the data flow is said twice, the same both times. */
  for (s = 0; s < p->num_stages; ++s) {
    const mlip_pipe_stage* sd = &p->stages[s];
    for (k = 0; k < sd->num_inputs; ++k) {
      t = sd->inputs[k];
      if (!mlip_pipe_lists(p->tensors[t].consumers, p->tensors[t].num_consumers, s)) {
        return mlip_pipe_fail(err, MLIP_ERR_INVALID_ARG, s, t, "stages[].inputs");
      }
    }
    for (k = 0; k < sd->num_outputs; ++k) {
      t = sd->outputs[k];
      if (p->tensors[t].producer != s) {
        return mlip_pipe_fail(err, MLIP_ERR_INVALID_ARG, s, t, "stages[].outputs");
      }
    }
  }
  for (k = 0; k < p->num_inputs; ++k) {
    t = p->inputs[k];
    if (p->tensors[t].producer != MLIP_PIPE_HOST) {
      return mlip_pipe_fail(err, MLIP_ERR_INVALID_ARG, -1, t, "inputs");
    }
  }
  for (k = 0; k < p->num_outputs; ++k) {
    t = p->outputs[k];
    if (!mlip_pipe_lists(p->tensors[t].consumers, p->tensors[t].num_consumers, MLIP_PIPE_HOST)) {
      return mlip_pipe_fail(err, MLIP_ERR_INVALID_ARG, -1, t, "outputs");
    }
  }
  for (t = 0; t < p->num_tensors; ++t) {
    const mlip_pipe_tensor* d = &p->tensors[t];
    if (d->producer == MLIP_PIPE_HOST ? !mlip_pipe_lists(p->inputs, p->num_inputs, t)
                                      : !mlip_pipe_lists(p->stages[d->producer].outputs,
                                                         p->stages[d->producer].num_outputs, t)) {
      return mlip_pipe_fail(err, MLIP_ERR_INVALID_ARG, d->producer, t, "tensors[].producer");
    }
    for (k = 0; k < d->num_consumers; ++k) {
      const int32_t c = d->consumers[k];
      if (c == MLIP_PIPE_HOST ? !mlip_pipe_lists(p->outputs, p->num_outputs, t)
                              : !mlip_pipe_lists(p->stages[c].inputs, p->stages[c].num_inputs, t)) {
        return mlip_pipe_fail(err, MLIP_ERR_INVALID_ARG, d->producer, t, "tensors[].consumers");
      }
    }
  }
  return MLIP_OK;
}

/* The manifest's field a mismatch with the module is about. */
static const char* mlip_pipe_match_field(mlip_status s) {
  switch (s) {
    case MLIP_ERR_DTYPE: return "tensors[].dtype";
    case MLIP_ERR_NDIM:
    case MLIP_ERR_SHAPE: return "tensors[].shape";
    default: return "tensors[].name";
  }
}

static mlip_status mlip_pipe_match(const mlip_pipe_tensor* t, const mlip_tensor_desc* d) {
  int32_t k;
  if (d == NULL || (d->ndim > 0 && d->shape == NULL)) {
    return MLIP_ERR_INVALID_ARG;
  }
  if (t->dtype_code != d->dtype_code || t->dtype_bits != d->dtype_bits || d->dtype_lanes != 1) {
    return MLIP_ERR_DTYPE;
  }
  if (t->ndim != d->ndim) {
    return MLIP_ERR_NDIM;
  }
  for (k = 0; k < t->ndim; ++k) {
    if (t->shape[k] != d->shape[k]) {
      return MLIP_ERR_SHAPE;
    }
  }
  if (t->size_bytes != d->size_bytes) {
    return MLIP_ERR_SHAPE;
  }
  if (!mlip_pipe_streq(t->name, d->name)) {
    return MLIP_ERR_INVALID_ARG;
  }
  return MLIP_OK;
}

mlip_status mlip_pipeline_check_stage(const mlip_pipeline* p, int32_t stage, const mlip_model* model,
                                      mlip_pipe_error* err) {
  const mlip_pipe_stage* st;
  int32_t k;
  mlip_status s = mlip_pipeline_check(p, err);
  if (s != MLIP_OK) {
    return s;
  }
  if (model == NULL || model->run == NULL) {
    return mlip_pipe_fail(err, MLIP_ERR_NULL, stage, -1, NULL);
  }
  if (stage < 0 || stage >= p->num_stages) {
    return mlip_pipe_fail(err, MLIP_ERR_INVALID_ARG, stage, -1, "stages");
  }
  st = &p->stages[stage];
  if (!mlip_pipe_streq(st->module_name, model->module_name)) {
    return mlip_pipe_fail(err, MLIP_ERR_INVALID_ARG, stage, -1, "stages[].module");
  }
  if (model->num_inputs != st->num_inputs) {
    return mlip_pipe_fail(err, MLIP_ERR_COUNT, stage, -1, "stages[].inputs");
  }
  if (model->num_outputs != st->num_outputs) {
    return mlip_pipe_fail(err, MLIP_ERR_COUNT, stage, -1, "stages[].outputs");
  }
  if ((model->num_inputs > 0 && model->inputs == NULL) || (model->num_outputs > 0 && model->outputs == NULL)) {
    return mlip_pipe_fail(err, MLIP_ERR_INVALID_ARG, stage, -1, NULL);
  }
  for (k = 0; k < st->num_inputs + st->num_outputs; ++k) {
    const int is_in = k < st->num_inputs;
    const int32_t ti = is_in ? st->inputs[k] : st->outputs[k - st->num_inputs];
    s = mlip_pipe_match(&p->tensors[ti], is_in ? &model->inputs[k] : &model->outputs[k - st->num_inputs]);
    if (s != MLIP_OK) {
      return mlip_pipe_fail(err, s, stage, ti, mlip_pipe_match_field(s));
    }
  }
  return MLIP_OK;
}

mlip_status mlip_pipe_runner_init(mlip_pipe_runner* r, const mlip_pipeline* p, int32_t stage,
                                  const mlip_model* model, void* const* inputs, void* const* outputs,
                                  const mlip_transport* transport, mlip_pipe_error* err) {
  int32_t k;
  mlip_status s;
  if (r == NULL) {
    return mlip_pipe_fail(err, MLIP_ERR_NULL, stage, -1, NULL);
  }
  s = mlip_pipeline_check_stage(p, stage, model, err);
  if (s != MLIP_OK) {
    return s;
  }
  if (transport == NULL || transport->recv == NULL || transport->send == NULL ||
      (model->num_inputs > 0 && inputs == NULL) || outputs == NULL) {
    return mlip_pipe_fail(err, MLIP_ERR_NULL, stage, -1, NULL);
  }
  for (k = 0; k < model->num_inputs; ++k) {
    if (inputs[k] == NULL) {
      return mlip_pipe_fail(err, MLIP_ERR_NULL, stage, p->stages[stage].inputs[k], NULL);
    }
  }
  for (k = 0; k < model->num_outputs; ++k) {
    if (outputs[k] == NULL) {
      return mlip_pipe_fail(err, MLIP_ERR_NULL, stage, p->stages[stage].outputs[k], NULL);
    }
  }
  r->pipeline = p;
  r->stage = stage;
  r->model = model;
  r->inputs = inputs;
  r->outputs = outputs;
  r->transport = transport;
  r->next_sample = 0;
  return MLIP_OK;
}

mlip_status mlip_pipe_step(mlip_pipe_runner* r) {
  const mlip_pipe_stage* st;
  const mlip_transport* tr;
  mlip_status s;
  int32_t k, c;
  if (r == NULL || r->pipeline == NULL || r->model == NULL || r->transport == NULL) {
    return MLIP_ERR_NULL;
  }
  st = &r->pipeline->stages[r->stage];
  tr = r->transport;
  for (k = 0; k < st->num_inputs; ++k) {
    const mlip_pipe_tensor* t = &r->pipeline->tensors[st->inputs[k]];
    s = tr->recv(tr->ctx, r->next_sample, t->producer, st->inputs[k], r->inputs[k], t->size_bytes);
    if (s != MLIP_OK) {
      return s;
    }
  }
  s = r->model->run(r->inputs, r->outputs);
  if (s != MLIP_OK) {
    return s;
  }
  for (k = 0; k < st->num_outputs; ++k) {
    const mlip_pipe_tensor* t = &r->pipeline->tensors[st->outputs[k]];
    for (c = 0; c < t->num_consumers; ++c) {
      s = tr->send(tr->ctx, r->next_sample, t->consumers[c], st->outputs[k], r->outputs[k], t->size_bytes);
      if (s != MLIP_OK) {
        return s;
      }
    }
  }
  if (tr->flush != NULL) {
    s = tr->flush(tr->ctx);
    if (s != MLIP_OK) {
      return s;
    }
  }
  ++r->next_sample;
  return MLIP_OK;
}
