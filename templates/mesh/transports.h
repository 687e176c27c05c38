/* The two transports mlipc ships for the pipeline API (mlip/pipeline.h):
 * threads in one process (host emulation, POSIX threads) and MPI (each
 * rank one PE). They are host programs' code, not the runtime's: they may
 * use the heap and the OS. The model's inputs and outputs are arrays of
 * `samples` consecutive samples each, in the manifest's model order: the
 * coordinator's side of every transport (MLIP_PIPE_HOST) reads and writes
 * them in place. docs/mesh.md describes both. */
#ifndef MLIPC_MESH_TRANSPORTS_H_
#define MLIPC_MESH_TRANSPORTS_H_

#include <stdint.h>

#include "mlip/pipeline.h"

/* The model's inputs and outputs of a stream (the host's side). */
typedef struct mlipc_stream {
  uint64_t samples;
  void* const* inputs;  /* per model input: samples x size_bytes */
  void* const* outputs; /* per model output: samples x size_bytes */
} mlipc_stream;

/* Threads: every (tensor, consuming stage) pair is a queue of `depth`
 * slots. mlipc_threads_open allocates them; mlipc_threads_transport fills
 * the transport of one stage (its ctx lives in the mesh). */
typedef struct mlipc_threads_mesh mlipc_threads_mesh;
mlip_status mlipc_threads_open(mlipc_threads_mesh** mesh, const mlip_pipeline* p, const mlipc_stream* stream,
                               int depth);
mlip_status mlipc_threads_transport(mlipc_threads_mesh* mesh, int32_t stage, mlip_transport* t);
/* Wakes every waiting stage with an error (a stage failed). */
void mlipc_threads_abort(mlipc_threads_mesh* mesh);
void mlipc_threads_close(mlipc_threads_mesh* mesh);

#ifdef MLIPC_MESH_MPI
/* MPI: this rank runs stage `stage` (its rank); sends to other stages are
 * MPI_Isend completed by flush, receives MPI_Recv with the tensor index
 * as the tag. */
typedef struct mlipc_mpi_ctx mlipc_mpi_ctx;
mlip_status mlipc_mpi_open(mlipc_mpi_ctx** ctx, const mlip_pipeline* p, int32_t stage, const mlipc_stream* stream);
void mlipc_mpi_transport(mlipc_mpi_ctx* ctx, mlip_transport* t);
void mlipc_mpi_close(mlipc_mpi_ctx* ctx);
#endif

#endif /* MLIPC_MESH_TRANSPORTS_H_ */
