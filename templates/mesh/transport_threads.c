/* The threads transport (templates/mesh/transports.h): each stage a thread
 * of one process, each (tensor, consuming stage) pair a bounded queue of
 * copies, so a stage runs sample i + 1 while the next runs sample i. The
 * host's side reads and writes the stream's arrays in place. */
#define _POSIX_C_SOURCE 200809L
#include <pthread.h>
#include <stdlib.h>
#include <string.h>

#include "transports.h"

typedef struct mlipc_queue {
  unsigned char* slots; /* depth x size */
  size_t size;
  int head, count;
  pthread_cond_t changed;
} mlipc_queue;

typedef struct mlipc_stage_ctx {
  mlipc_threads_mesh* mesh;
  int32_t stage;
} mlipc_stage_ctx;

struct mlipc_threads_mesh {
  const mlip_pipeline* p;
  mlipc_stream stream;
  int depth;
  int aborted;
  pthread_mutex_t lock;
  mlipc_queue* queues;     /* [tensor * num_stages + consumer] */
  mlipc_stage_ctx* stages; /* one per stage */
};

static int32_t mlipc_index_in(const int32_t* list, int32_t n, int32_t v) {
  int32_t i;
  for (i = 0; i < n; ++i)
    if (list[i] == v) return i;
  return -1;
}

static mlipc_queue* mlipc_queue_of(mlipc_threads_mesh* m, int32_t tensor, int32_t consumer) {
  return &m->queues[(size_t)tensor * (size_t)m->p->num_stages + (size_t)consumer];
}

/* The host's side: the stream's bytes of a model input or output at
   `sample`, or NULL when the tensor is not one or the sample is past the end. */
static unsigned char* mlipc_host_bytes(mlipc_threads_mesh* m, int output, int32_t tensor, uint64_t sample,
                                       size_t size) {
  int32_t k = output ? mlipc_index_in(m->p->outputs, m->p->num_outputs, tensor)
                     : mlipc_index_in(m->p->inputs, m->p->num_inputs, tensor);
  if (k < 0 || sample >= m->stream.samples) return NULL;
  return (unsigned char*)(output ? m->stream.outputs[k] : m->stream.inputs[k]) + sample * size;
}

/* Waits (under the lock) until the queue has a copy (take) or room (put),
   then moves one copy out of or into it. */
static mlip_status mlipc_queue_move(mlipc_threads_mesh* m, mlipc_queue* q, int take, void* data, const void* src,
                                    size_t size) {
  if (q->size != size) return MLIP_ERR_INVALID_ARG;
  pthread_mutex_lock(&m->lock);
  while ((take ? q->count == 0 : q->count == m->depth) && !m->aborted) pthread_cond_wait(&q->changed, &m->lock);
  if (m->aborted) {
    pthread_mutex_unlock(&m->lock);
    return MLIP_ERR_INTERNAL;
  }
  if (take) {
    memcpy(data, q->slots + (size_t)q->head * size, size);
    q->head = (q->head + 1) % m->depth;
    --q->count;
  } else {
    memcpy(q->slots + (size_t)((q->head + q->count) % m->depth) * size, src, size);
    ++q->count;
  }
  pthread_cond_broadcast(&q->changed);
  pthread_mutex_unlock(&m->lock);
  return MLIP_OK;
}

static mlip_status mlipc_threads_recv(void* ctx, uint64_t sample, int32_t peer, int32_t tensor, void* data,
                                      size_t size) {
  mlipc_stage_ctx* c = (mlipc_stage_ctx*)ctx;
  if (peer == MLIP_PIPE_HOST) {
    const unsigned char* from = mlipc_host_bytes(c->mesh, 0, tensor, sample, size);
    if (from == NULL) return MLIP_ERR_INVALID_ARG;
    memcpy(data, from, size);
    return MLIP_OK;
  }
  return mlipc_queue_move(c->mesh, mlipc_queue_of(c->mesh, tensor, c->stage), 1, data, NULL, size);
}

static mlip_status mlipc_threads_send(void* ctx, uint64_t sample, int32_t peer, int32_t tensor, const void* data,
                                      size_t size) {
  mlipc_stage_ctx* c = (mlipc_stage_ctx*)ctx;
  if (peer == MLIP_PIPE_HOST) {
    unsigned char* to = mlipc_host_bytes(c->mesh, 1, tensor, sample, size);
    if (to == NULL) return MLIP_ERR_INVALID_ARG;
    memcpy(to, data, size);
    return MLIP_OK;
  }
  if (peer < 0 || peer >= c->mesh->p->num_stages) return MLIP_ERR_INVALID_ARG;
  return mlipc_queue_move(c->mesh, mlipc_queue_of(c->mesh, tensor, peer), 0, NULL, data, size);
}

mlip_status mlipc_threads_open(mlipc_threads_mesh** out, const mlip_pipeline* p, const mlipc_stream* stream,
                               int depth) {
  mlipc_threads_mesh* m;
  int32_t t, s;
  mlip_status st = mlip_pipeline_check(p, NULL);
  if (st != MLIP_OK) return st;
  if (out == NULL || stream == NULL || depth < 1) return MLIP_ERR_NULL;
  m = (mlipc_threads_mesh*)calloc(1, sizeof *m);
  if (m == NULL) return MLIP_ERR_INTERNAL;
  m->p = p;
  m->stream = *stream;
  m->depth = depth;
  pthread_mutex_init(&m->lock, NULL);
  m->queues = (mlipc_queue*)calloc((size_t)p->num_tensors * (size_t)p->num_stages, sizeof(mlipc_queue));
  m->stages = (mlipc_stage_ctx*)calloc((size_t)p->num_stages, sizeof(mlipc_stage_ctx));
  if (m->queues == NULL || m->stages == NULL) {
    pthread_mutex_destroy(&m->lock);
    free(m->queues);
    free(m->stages);
    free(m);
    return MLIP_ERR_INTERNAL;
  }
  for (t = 0; t < p->num_tensors * p->num_stages; ++t) pthread_cond_init(&m->queues[t].changed, NULL);
  for (t = 0; t < p->num_tensors; ++t)
    for (s = 0; s < p->num_stages; ++s) {
      mlipc_queue* q = mlipc_queue_of(m, t, s);
      if (mlipc_index_in(p->tensors[t].consumers, p->tensors[t].num_consumers, s) < 0) continue;
      q->size = p->tensors[t].size_bytes;
      q->slots = (unsigned char*)malloc(q->size * (size_t)depth + 1);
      if (q->slots == NULL) {
        mlipc_threads_close(m);
        return MLIP_ERR_INTERNAL;
      }
    }
  for (s = 0; s < p->num_stages; ++s) {
    m->stages[s].mesh = m;
    m->stages[s].stage = s;
  }
  *out = m;
  return MLIP_OK;
}

mlip_status mlipc_threads_transport(mlipc_threads_mesh* m, int32_t stage, mlip_transport* t) {
  if (m == NULL || t == NULL) return MLIP_ERR_NULL;
  if (stage < 0 || stage >= m->p->num_stages) return MLIP_ERR_INVALID_ARG;
  t->ctx = &m->stages[stage];
  t->recv = mlipc_threads_recv;
  t->send = mlipc_threads_send;
  t->flush = NULL; /* a send copies: the buffer is free at once */
  return MLIP_OK;
}

void mlipc_threads_abort(mlipc_threads_mesh* m) {
  int32_t i, n;
  if (m == NULL) return;
  pthread_mutex_lock(&m->lock);
  m->aborted = 1;
  n = m->p->num_tensors * m->p->num_stages;
  for (i = 0; i < n; ++i) pthread_cond_broadcast(&m->queues[i].changed);
  pthread_mutex_unlock(&m->lock);
}

void mlipc_threads_close(mlipc_threads_mesh* m) {
  int32_t i, n;
  if (m == NULL) return;
  if (m->queues != NULL) {
    n = m->p->num_tensors * m->p->num_stages;
    for (i = 0; i < n; ++i) {
      free(m->queues[i].slots);
      pthread_cond_destroy(&m->queues[i].changed);
    }
  }
  pthread_mutex_destroy(&m->lock);
  free(m->queues);
  free(m->stages);
  free(m);
}
