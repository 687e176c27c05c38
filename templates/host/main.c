/* Host driver used by `mlipc run` (host emulation). Reads raw input files,
 * runs the model that model.c names (templates/host/model.c: the module's
 * descriptor and its MLIP regions' counters) through the checked DLPack
 * entry point, writes
 * raw output files and prints timing lines for mlipc to parse:
 *   mlipc-total-ns <ns>          whole model, one line per run
 *   mlipc-layer <k> <ns>         layer k: its least time over the runs
 *   mlipc-mlip-layer <r> <k> <cycles> <ns> <runs>   MLIP region r, its layer k, summed over runs
 *   mlipc-mlip-region <r> <cycles> <ns> <runs>      MLIP region r as a whole, summed over runs
 * Usage: host [-r RUNS] [-b SAMPLES] <input files...> <output files...>
 * (model order). With -b, each file holds SAMPLES samples one after another
 * and each runs in turn (RUNS times each): one process for many samples
 * (the Python module's run_many). A layer's time is its least over the
 * runs: the first run alone pays the arena's first touch (page faults in
 * whichever layer writes a page first) and a warm run's caches differ.
 * Unlike the runtime, this program may use stdio and malloc: it is the
 * host's test harness, not part of the firmware. */
#define _POSIX_C_SOURCE 199309L
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "mlip/model.h"
#include "mlip/platform.h"
#include "mlip/region.h"

/* Defined by model.c: this file names no model, so one build of it serves
 * every model (mlipc run caches it with the runtime's objects). The lists
 * of regions end with a NULL entry. */
extern const mlip_model* const mlipc_host_model;
extern mlip_layer_stats* const mlipc_host_region_stats[];
extern const int32_t mlipc_host_region_layers[];

#define MAX_LAYERS 65536
static uint64_t layer_ns[MAX_LAYERS]; /* the least over the finished runs */
static uint64_t run_layer_ns[MAX_LAYERS]; /* this run's */
static uint64_t layer_start;
static int32_t max_layer = -1;
static long runs_done = 0;

uint64_t mlip_platform_time_ns(void) {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

void mlip_platform_layer_begin(int32_t layer) {
  (void)layer;
  layer_start = mlip_platform_time_ns();
}

void mlip_platform_layer_end(int32_t layer) {
  if (layer < 0 || layer >= MAX_LAYERS) return;
  run_layer_ns[layer] += mlip_platform_time_ns() - layer_start;
  if (layer > max_layer) max_layer = layer;
}

static void* read_all(const char* path, size_t want) {
  FILE* f = fopen(path, "rb");
  void* buf = malloc(want ? want : 1);
  size_t got;
  if (!f || !buf) {
    fprintf(stderr, "cannot read %s\n", path);
    exit(3);
  }
  got = fread(buf, 1, want, f);
  if (got != want || fgetc(f) != EOF) {
    fprintf(stderr, "%s: expected exactly %lu bytes\n", path, (unsigned long)want);
    exit(3);
  }
  fclose(f);
  return buf;
}

static void fill(DLTensor* t, const mlip_tensor_desc* d, void* data, int64_t* shape) {
  int32_t k;
  for (k = 0; k < d->ndim; ++k) shape[k] = d->shape[k];
  t->data = data;
  t->device.device_type = kDLCPU;
  t->device.device_id = 0;
  t->ndim = d->ndim;
  t->dtype.code = d->dtype_code;
  t->dtype.bits = d->dtype_bits;
  t->dtype.lanes = d->dtype_lanes;
  t->shape = shape;
  t->strides = NULL;
  t->byte_offset = 0;
}

int main(int argc, char** argv) {
  const mlip_model* m = mlipc_host_model;
  const int32_t n = m->num_inputs + m->num_outputs;
  DLTensor* tensors;
  int64_t* shapes;
  void** data;
  mlip_check_error err;
  mlip_status s;
  uint64_t t0, t1;
  int32_t k;
  long runs = 1, batch = 1, r, b;
  while (argc > 2 && (strcmp(argv[1], "-r") == 0 || strcmp(argv[1], "-b") == 0)) {
    long v = strtol(argv[2], NULL, 10);
    if (v < 1) v = 1;
    if (argv[1][1] == 'r') runs = v;
    else batch = v;
    argv += 2;
    argc -= 2;
  }
  if (argc != 1 + n) {
    fprintf(stderr, "usage: %s <%d input files> <%d output files>\n", argv[0], (int)m->num_inputs,
            (int)m->num_outputs);
    return 2;
  }
  tensors = (DLTensor*)calloc((size_t)n + 1, sizeof(DLTensor));
  shapes = (int64_t*)calloc((size_t)n * 8 + 8, sizeof(int64_t) * 4);
  data = (void**)calloc((size_t)n + 1, sizeof(void*));
  if (!tensors || !shapes || !data) return 3;
  for (k = 0; k < n; ++k) {
    const mlip_tensor_desc* d = k < m->num_inputs ? &m->inputs[k] : &m->outputs[k - m->num_inputs];
    if (d->size_bytes && (size_t)batch > (size_t)-1 / d->size_bytes) {
      fprintf(stderr, "-b %ld: %ld samples of %s do not fit in memory\n", batch, batch, d->name);
      return 3;
    }
    data[k] = k < m->num_inputs ? read_all(argv[1 + k], d->size_bytes * (size_t)batch)
                                : calloc(d->size_bytes ? d->size_bytes * (size_t)batch : 1, 1);
    if (!data[k]) return 3;
    if (d->ndim > 32) {
      fprintf(stderr, "tensor %s has more than 32 dimensions\n", d->name);
      return 3;
    }
    fill(&tensors[k], d, data[k], shapes + (size_t)k * 32);
  }
  for (b = 0; b < batch; ++b) {
    for (k = 0; k < n; ++k) {
      const mlip_tensor_desc* d = k < m->num_inputs ? &m->inputs[k] : &m->outputs[k - m->num_inputs];
      tensors[k].data = (char*)data[k] + (size_t)b * d->size_bytes;
    }
    for (r = 0; r < runs; ++r) {
      t0 = mlip_platform_time_ns();
      s = mlip_model_run_checked_ex(m, tensors, m->num_inputs, tensors + m->num_inputs, m->num_outputs, &err);
      t1 = mlip_platform_time_ns();
      if (s != MLIP_OK) {
        fprintf(stderr, "mlipc-error %d %s (%s %d, axis %d)\n", (int)s, mlip_status_str(s),
                err.is_output ? "output" : "input", (int)err.index, (int)err.axis);
        return 4;
      }
      printf("mlipc-total-ns %llu\n", (unsigned long long)(t1 - t0));
      for (k = 0; k <= max_layer; ++k) {
        if (runs_done == 0 || run_layer_ns[k] < layer_ns[k]) layer_ns[k] = run_layer_ns[k];
        run_layer_ns[k] = 0;
      }
      ++runs_done;
    }
  }
  for (k = 0; k < m->num_outputs; ++k) {
    const mlip_tensor_desc* d = &m->outputs[k];
    const size_t bytes = d->size_bytes * (size_t)batch;
    FILE* f = fopen(argv[1 + m->num_inputs + k], "wb");
    if (!f || fwrite(data[m->num_inputs + k], 1, bytes, f) != bytes || fclose(f) != 0) {
      fprintf(stderr, "cannot write %s\n", argv[1 + m->num_inputs + k]);
      return 3;
    }
  }
  for (k = 0; k <= max_layer; ++k) printf("mlipc-layer %d %llu\n", (int)k, (unsigned long long)layer_ns[k]);
  for (r = 0; mlipc_host_region_stats[r]; ++r) {
    const mlip_layer_stats* st = mlipc_host_region_stats[r];
    for (k = 0; k < mlipc_host_region_layers[r]; ++k)
      printf("mlipc-mlip-layer %ld %d %llu %llu %lu\n", r, (int)k, (unsigned long long)st[k].cycles,
             (unsigned long long)st[k].host_ns, (unsigned long)st[k].runs);
    k = mlipc_host_region_layers[r]; /* the region's own entry */
    printf("mlipc-mlip-region %ld %llu %llu %lu\n", r, (unsigned long long)st[k].cycles,
           (unsigned long long)st[k].host_ns, (unsigned long)st[k].runs);
  }
  for (k = 0; k < n; ++k) free(data[k]);
  free(tensors);
  free(shapes);
  free(data);
  return 0;
}
