/* The pipeline's runner: `mlipc run` of a mesh tarball builds it with the
 * threads transport (one thread per stage), and docs/mesh.md builds it with
 * mpicc -DMLIPC_MESH_MPI for the MPI transport (rank s runs stage s).
 *   runner -n SAMPLES <input files...> <output files...>
 * Each file holds SAMPLES consecutive samples of one model input or output,
 * in the manifest's model order. The manifest and the stage modules come
 * from pipeline.c (the C form of pipeline.json). Prints for mlipc to parse:
 *   mlipc-mesh-stage <s> <busy ns>   time stage s spent in its module's run
 *   mlipc-mesh-total-ns <ns>         the whole stream, wall clock
 * and on failure "mlipc-error <code> <text> (stage s, tensor t 'name')", with
 * ", field <f>" before the parenthesis closes when the manifest's check
 * names the field (pipeline.json's name of it).
 * Like the host driver, this program may use stdio and the heap. */
#define _POSIX_C_SOURCE 200809L
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#ifdef MLIPC_MESH_MPI
#include <mpi.h>
#else
#include <pthread.h>
#endif

#include "mlip/pipeline.h"
#include "transports.h"

extern const mlip_pipeline mlipc_pipeline;
extern const mlip_model* const mlipc_pipeline_models[];

static uint64_t now_ns(void) {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

static void fail_status(mlip_status s, const mlip_pipe_error* e) {
  const mlip_pipeline* p = &mlipc_pipeline;
  const char* name = e && e->tensor >= 0 && e->tensor < p->num_tensors ? p->tensors[e->tensor].name : "";
  fprintf(stderr, "mlipc-error %d %s (stage %d, tensor %d '%s'%s%s)\n", (int)s, mlip_status_str(s),
          e ? (int)e->stage : -1, e ? (int)e->tensor : -1, name, e && e->field ? ", field " : "",
          e && e->field ? e->field : "");
}

/* A stage's own buffers and its runner: the runtime keeps no memory. */
typedef struct stage_run {
  int32_t stage;
  uint64_t samples;
  mlip_transport transport;
  mlip_pipe_runner runner;
  void** inputs;
  void** outputs;
  uint64_t busy_ns;
  mlip_status status;
  mlip_pipe_error err;
  void* mesh; /* the threads transport, to wake the others on failure */
} stage_run;

static mlip_status stage_prepare(stage_run* r) {
  const mlip_model* m = mlipc_pipeline_models[r->stage];
  int32_t k;
  r->inputs = (void**)calloc((size_t)m->num_inputs + 1, sizeof(void*));
  r->outputs = (void**)calloc((size_t)m->num_outputs + 1, sizeof(void*));
  if (!r->inputs || !r->outputs) return MLIP_ERR_INTERNAL;
  for (k = 0; k < m->num_inputs; ++k)
    if (!(r->inputs[k] = calloc(m->inputs[k].size_bytes + 16, 1))) return MLIP_ERR_INTERNAL;
  for (k = 0; k < m->num_outputs; ++k)
    if (!(r->outputs[k] = calloc(m->outputs[k].size_bytes + 16, 1))) return MLIP_ERR_INTERNAL;
  return mlip_pipe_runner_init(&r->runner, &mlipc_pipeline, r->stage, m, r->inputs, r->outputs, &r->transport,
                               &r->err);
}

static void stage_loop(stage_run* r) {
  uint64_t i, t0;
  for (i = 0; i < r->samples && r->status == MLIP_OK; ++i) {
    t0 = now_ns();
    r->status = mlip_pipe_step(&r->runner);
    r->busy_ns += now_ns() - t0;
    if (r->status != MLIP_OK) {
      r->err.stage = r->stage;
      r->err.tensor = -1;
      r->err.field = NULL;
    }
  }
}

static void stage_free(stage_run* r) {
  const mlip_model* m = mlipc_pipeline_models[r->stage];
  int32_t k;
  for (k = 0; r->inputs && k < m->num_inputs; ++k) free(r->inputs[k]);
  for (k = 0; r->outputs && k < m->num_outputs; ++k) free(r->outputs[k]);
  free(r->inputs);
  free(r->outputs);
}

static void* read_samples(const char* path, size_t want) {
  FILE* f = fopen(path, "rb");
  void* buf = malloc(want ? want : 1);
  if (!f || !buf || fread(buf, 1, want, f) != want || fgetc(f) != EOF) {
    fprintf(stderr, "%s: cannot read exactly %lu bytes\n", path, (unsigned long)want);
    exit(3);
  }
  fclose(f);
  return buf;
}

static void write_samples(const char* path, const void* data, size_t n) {
  FILE* f = fopen(path, "wb");
  if (!f || fwrite(data, 1, n, f) != n || fclose(f) != 0) {
    fprintf(stderr, "cannot write %s\n", path);
    exit(3);
  }
}

/* Whether the model's input k feeds stage s / output k comes from stage s
   (s < 0: any stage). */
static int input_for(int32_t k, int32_t s) {
  const mlip_pipe_tensor* t = &mlipc_pipeline.tensors[mlipc_pipeline.inputs[k]];
  int32_t c;
  if (s < 0) return 1;
  for (c = 0; c < t->num_consumers; ++c)
    if (t->consumers[c] == s) return 1;
  return 0;
}
static int output_from(int32_t k, int32_t s) {
  return s < 0 || mlipc_pipeline.tensors[mlipc_pipeline.outputs[k]].producer == s;
}

#ifndef MLIPC_MESH_MPI
static void* stage_thread(void* arg) {
  stage_run* r = (stage_run*)arg;
  stage_loop(r);
  if (r->status != MLIP_OK) mlipc_threads_abort((mlipc_threads_mesh*)r->mesh);
  return NULL;
}
#endif

int main(int argc, char** argv) {
  const mlip_pipeline* p = &mlipc_pipeline;
  uint64_t samples = 1, t0, t1;
  void** ins;
  void** outs;
  mlipc_stream stream;
  mlip_pipe_error err = {-1, -1, NULL};
  mlip_status s;
  int32_t k, count;
  int32_t first = -1; /* the stage this process runs (MPI), or -1: all of them */
  int rc = 0;
#ifdef MLIPC_MESH_MPI
  int rank = 0, size = 0;
  mlipc_mpi_ctx* ctx = NULL;
  stage_run run;
  MPI_Init(&argc, &argv);
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  if (size != p->num_stages) {
    if (rank == 0)
      fprintf(stderr, "mlipc-error %d the pipeline has %d stages: run it with mpirun -np %d, not %d\n",
              (int)MLIP_ERR_COUNT, (int)p->num_stages, (int)p->num_stages, size);
    MPI_Finalize();
    return 2;
  }
  first = (int32_t)rank;
#endif
  s = mlip_pipeline_check(p, &err);
  if (s != MLIP_OK) {
    fail_status(s, &err);
    return 4;
  }
  if (argc > 2 && strcmp(argv[1], "-n") == 0) {
    long n = strtol(argv[2], NULL, 10);
    samples = n < 1 ? 1 : (uint64_t)n;
    argv += 2;
    argc -= 2;
  }
  if (argc != 1 + p->num_inputs + p->num_outputs) {
    fprintf(stderr, "usage: %s -n SAMPLES <%d input files> <%d output files>\n", argv[0], (int)p->num_inputs,
            (int)p->num_outputs);
    return 2;
  }
  ins = (void**)calloc((size_t)p->num_inputs + 1, sizeof(void*));
  outs = (void**)calloc((size_t)p->num_outputs + 1, sizeof(void*));
  if (!ins || !outs) return 3;
  for (k = 0; k < p->num_inputs; ++k)
    if (input_for(k, first))
      ins[k] = read_samples(argv[1 + k], p->tensors[p->inputs[k]].size_bytes * samples);
  for (k = 0; k < p->num_outputs; ++k)
    if (output_from(k, first) && !(outs[k] = calloc(p->tensors[p->outputs[k]].size_bytes * samples + 1, 1)))
      return 3;
  stream.samples = samples;
  stream.inputs = ins;
  stream.outputs = outs;

#ifdef MLIPC_MESH_MPI
  (void)count;
  memset(&run, 0, sizeof run);
  run.stage = first;
  run.samples = samples;
  s = mlipc_mpi_open(&ctx, p, first, &stream);
  if (s == MLIP_OK) {
    mlipc_mpi_transport(ctx, &run.transport);
    s = stage_prepare(&run);
  }
  if (s != MLIP_OK) {
    fail_status(s, &run.err);
    MPI_Abort(MPI_COMM_WORLD, 4);
    return 4;
  }
  MPI_Barrier(MPI_COMM_WORLD);
  t0 = now_ns();
  stage_loop(&run);
  if (run.status != MLIP_OK) {
    fail_status(run.status, &run.err);
    MPI_Abort(MPI_COMM_WORLD, 4);
    return 4;
  }
  MPI_Barrier(MPI_COMM_WORLD);
  t1 = now_ns();
  printf("mlipc-mesh-stage %d %llu\n", (int)first, (unsigned long long)run.busy_ns);
  if (rank == 0) printf("mlipc-mesh-total-ns %llu\n", (unsigned long long)(t1 - t0));
  fflush(stdout);
  for (k = 0; k < p->num_outputs; ++k)
    if (outs[k]) write_samples(argv[1 + p->num_inputs + k], outs[k], p->tensors[p->outputs[k]].size_bytes * samples);
  stage_free(&run);
  mlipc_mpi_close(ctx);
  MPI_Finalize();
#else
  {
    mlipc_threads_mesh* mesh = NULL;
    stage_run* runs = (stage_run*)calloc((size_t)p->num_stages, sizeof(stage_run));
    pthread_t* threads = (pthread_t*)calloc((size_t)p->num_stages, sizeof(pthread_t));
    if (!runs || !threads) return 3;
    s = mlipc_threads_open(&mesh, p, &stream, 2);
    if (s != MLIP_OK) {
      fail_status(s, &err);
      return 4;
    }
    count = p->num_stages;
    for (k = 0; k < count; ++k) {
      runs[k].stage = k;
      runs[k].samples = samples;
      runs[k].mesh = mesh;
      mlipc_threads_transport(mesh, k, &runs[k].transport);
      s = stage_prepare(&runs[k]);
      if (s != MLIP_OK) {
        fail_status(s, &runs[k].err);
        return 4;
      }
    }
    t0 = now_ns();
    for (k = 0; k < count; ++k)
      if (pthread_create(&threads[k], NULL, stage_thread, &runs[k]) != 0) {
        fprintf(stderr, "mlipc-error %d cannot start a thread\n", (int)MLIP_ERR_INTERNAL);
        return 3;
      }
    for (k = 0; k < count; ++k) pthread_join(threads[k], NULL);
    t1 = now_ns();
    for (k = 0; k < count; ++k)
      if (runs[k].status != MLIP_OK && runs[k].status != MLIP_ERR_INTERNAL) {
        fail_status(runs[k].status, &runs[k].err);
        rc = 4;
        break;
      }
    for (k = 0; k < count && rc == 0; ++k)
      if (runs[k].status != MLIP_OK) {
        fail_status(runs[k].status, &runs[k].err);
        rc = 4;
      }
    if (rc == 0) {
      for (k = 0; k < count; ++k) printf("mlipc-mesh-stage %d %llu\n", (int)k, (unsigned long long)runs[k].busy_ns);
      printf("mlipc-mesh-total-ns %llu\n", (unsigned long long)(t1 - t0));
      for (k = 0; k < p->num_outputs; ++k)
        write_samples(argv[1 + p->num_inputs + k], outs[k], p->tensors[p->outputs[k]].size_bytes * samples);
    }
    for (k = 0; k < count; ++k) stage_free(&runs[k]);
    mlipc_threads_close(mesh);
    free(runs);
    free(threads);
  }
#endif
  for (k = 0; k < p->num_inputs; ++k) free(ins[k]);
  for (k = 0; k < p->num_outputs; ++k) free(outs[k]);
  free(ins);
  free(outs);
  return rc;
}
