/* The MPI transport (templates/mesh/transports.h): rank s runs stage s.
 * A send to another stage is an MPI_Isend (tag: the tensor's index) that
 * flush completes, so a stage that feeds two later stages never waits on
 * one while the other waits on it; a receive is an MPI_Recv from the
 * producer's rank. Messages between two ranks with one tag arrive in
 * order, so sample i is the i-th message. The host's side is this rank's
 * copy of the stream's arrays (the runner reads the model's inputs from
 * files every rank can read and writes the outputs this rank produces). */
#include <limits.h>
#include <stdlib.h>
#include <string.h>

#include <mpi.h>

#include "transports.h"

struct mlipc_mpi_ctx {
  const mlip_pipeline* p;
  mlipc_stream stream;
  int32_t stage;
  MPI_Request* pending;
  int num_pending, max_pending;
};

static int32_t mlipc_mpi_index(const int32_t* list, int32_t n, int32_t v) {
  int32_t i;
  for (i = 0; i < n; ++i)
    if (list[i] == v) return i;
  return -1;
}

static mlip_status mlipc_mpi_recv(void* ctx, uint64_t sample, int32_t peer, int32_t tensor, void* data, size_t size) {
  mlipc_mpi_ctx* c = (mlipc_mpi_ctx*)ctx;
  if (peer == MLIP_PIPE_HOST) {
    int32_t k = mlipc_mpi_index(c->p->inputs, c->p->num_inputs, tensor);
    if (k < 0 || sample >= c->stream.samples) return MLIP_ERR_INVALID_ARG;
    memcpy(data, (const unsigned char*)c->stream.inputs[k] + sample * size, size);
    return MLIP_OK;
  }
  if (size > (size_t)INT_MAX) return MLIP_ERR_UNSUPPORTED;
  return MPI_Recv(data, (int)size, MPI_BYTE, peer, tensor, MPI_COMM_WORLD, MPI_STATUS_IGNORE) == MPI_SUCCESS
             ? MLIP_OK
             : MLIP_ERR_INTERNAL;
}

static mlip_status mlipc_mpi_send(void* ctx, uint64_t sample, int32_t peer, int32_t tensor, const void* data,
                                  size_t size) {
  mlipc_mpi_ctx* c = (mlipc_mpi_ctx*)ctx;
  if (peer == MLIP_PIPE_HOST) {
    int32_t k = mlipc_mpi_index(c->p->outputs, c->p->num_outputs, tensor);
    if (k < 0 || sample >= c->stream.samples) return MLIP_ERR_INVALID_ARG;
    memcpy((unsigned char*)c->stream.outputs[k] + sample * size, data, size);
    return MLIP_OK;
  }
  if (size > (size_t)INT_MAX || c->num_pending == c->max_pending) return MLIP_ERR_UNSUPPORTED;
  /* MPI-2 takes a non-const buffer; MPI_Isend only reads it. */
  if (MPI_Isend((void*)(uintptr_t)data, (int)size, MPI_BYTE, peer, tensor, MPI_COMM_WORLD,
                &c->pending[c->num_pending]) != MPI_SUCCESS)
    return MLIP_ERR_INTERNAL;
  ++c->num_pending;
  return MLIP_OK;
}

static mlip_status mlipc_mpi_flush(void* ctx) {
  mlipc_mpi_ctx* c = (mlipc_mpi_ctx*)ctx;
  int n = c->num_pending;
  c->num_pending = 0;
  return MPI_Waitall(n, c->pending, MPI_STATUSES_IGNORE) == MPI_SUCCESS ? MLIP_OK : MLIP_ERR_INTERNAL;
}

mlip_status mlipc_mpi_open(mlipc_mpi_ctx** out, const mlip_pipeline* p, int32_t stage, const mlipc_stream* stream) {
  mlipc_mpi_ctx* c;
  int32_t k;
  mlip_status st = mlip_pipeline_check(p, NULL);
  if (st != MLIP_OK) return st;
  if (out == NULL || stream == NULL) return MLIP_ERR_NULL;
  if (stage < 0 || stage >= p->num_stages) return MLIP_ERR_INVALID_ARG;
  c = (mlipc_mpi_ctx*)calloc(1, sizeof *c);
  if (c == NULL) return MLIP_ERR_INTERNAL;
  c->p = p;
  c->stream = *stream;
  c->stage = stage;
  /* One send per (output, consumer) of this stage in a step. */
  for (k = 0; k < p->stages[stage].num_outputs; ++k) c->max_pending += p->tensors[p->stages[stage].outputs[k]].num_consumers;
  c->pending = (MPI_Request*)calloc((size_t)c->max_pending + 1, sizeof(MPI_Request));
  if (c->pending == NULL) {
    free(c);
    return MLIP_ERR_INTERNAL;
  }
  *out = c;
  return MLIP_OK;
}

void mlipc_mpi_transport(mlipc_mpi_ctx* c, mlip_transport* t) {
  t->ctx = c;
  t->recv = mlipc_mpi_recv;
  t->send = mlipc_mpi_send;
  t->flush = mlipc_mpi_flush;
}

void mlipc_mpi_close(mlipc_mpi_ctx* c) {
  if (c == NULL) return;
  free(c->pending);
  free(c);
}
