/* libFuzzer target: the command-buffer validator and the simulator. The
 * CRCs of each input are made valid first, so mutations reach the
 * structural checks instead of dying at the CRC. A buffer that validates is
 * run (twice: INIT once, MAIN twice) on heap blocks of exactly the sizes its
 * bindings state, so any access outside them is an AddressSanitizer report.
 * Then the region is run with one caller array smaller than its binding
 * (must be refused), and once more after a byte of the buffer changed
 * behind the validated state (may fail, must stay in bounds). */
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "cmdbuf_builder.h"
#include "mlip/region.h"

#define MAX_IO 16u

typedef struct io_arrays {
  void* in[MAX_IO];
  void* out[MAX_IO];
  uint32_t in_size[MAX_IO];
  uint32_t out_size[MAX_IO];
  uint8_t* scratch;
  uint32_t scratch_size;
} io_arrays;

static void* block(uint32_t size) {
  void* p = malloc(size ? size : 1u);
  if (p == NULL) {
    abort();
  }
  memset(p, 0x3c, size);
  return p;
}

static mlip_status run(const uint8_t* buf, size_t size, mlip_region_state* st, uint8_t* ocm, uint32_t ocm_bytes,
                       mlip_layer_stats* stats, uint32_t layers, io_arrays* io, uint32_t nin, uint32_t nout) {
  mlip_region r;
  r.name = "fuzz";
  r.cmdbuf = buf;
  r.cmdbuf_size = (uint32_t)size;
  r.ocm = ocm;
  r.ocm_capacity = ocm_bytes;
  r.stats = stats;
  r.stats_capacity = layers;
  r.state = st;
  return mlip_region_run(&r, io->in, io->in_size, nin, io->out, io->out_size, nout, io->scratch, io->scratch_size);
}

int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  uint8_t* buf;
  mlip_header h;
  io_arrays io;
  uint8_t* ocm;
  mlip_layer_stats* stats;
  mlip_region_state st;
  uint32_t i, nin, nout, layers, ocm_bytes;
  mlip_status s;
  if (size < MLIP_HEADER_SIZE || size > (1u << 22)) {
    return 0;
  }
  buf = (uint8_t*)block((uint32_t)size);
  memcpy(buf, data, size);
  cb_fix_crcs(buf, size);
  if (mlip_cmdbuf_validate(buf, size) != MLIP_OK) {
    free(buf);
    return 0;
  }
  cb_get_header(buf, &h);
  nin = h.num_inputs;
  nout = h.num_outputs;
  if (nin > MAX_IO || nout > MAX_IO || (uint64_t)h.num_tiles * h.ocm_size > (64u << 20)) {
    free(buf);
    return 0;
  }
  memset(&io, 0, sizeof io);
  for (i = 0; i < h.sections[MLIP_SEC_BINDINGS].count; ++i) {
    mlip_binding b;
    memcpy(&b, buf + h.sections[MLIP_SEC_BINDINGS].offset + (size_t)i * sizeof b, sizeof b);
    if (b.kind == MLIP_BIND_INPUT) io.in_size[b.index] = b.size;
    if (b.kind == MLIP_BIND_OUTPUT) io.out_size[b.index] = b.size;
    if (b.kind == MLIP_BIND_SCRATCH) io.scratch_size = b.size;
  }
  /* Binding sizes are the buffer's word (up to 4 GiB each): skip buffers
     whose arrays the harness cannot afford, as it skips large OCMs. */
  {
    uint64_t total = io.scratch_size;
    for (i = 0; i < MAX_IO; ++i) total += (uint64_t)io.in_size[i] + io.out_size[i];
    if (total > (64u << 20)) {
      free(buf);
      return 0;
    }
  }
  for (i = 0; i < nin; ++i) io.in[i] = block(io.in_size[i]);
  for (i = 0; i < nout; ++i) io.out[i] = block(io.out_size[i]);
  io.scratch = (uint8_t*)block(io.scratch_size);
  ocm_bytes = h.num_tiles * h.ocm_size;
  ocm = (uint8_t*)block(ocm_bytes);
  layers = h.sections[MLIP_SEC_LAYERS].count;
  stats = (mlip_layer_stats*)calloc(layers ? layers : 1u, sizeof *stats);
  if (stats == NULL) {
    abort();
  }

  memset(&st, 0, sizeof st);
  s = run(buf, size, &st, ocm, ocm_bytes, stats, layers, &io, nin, nout);
  if (s == MLIP_OK) {
    (void)run(buf, size, &st, ocm, ocm_bytes, stats, layers, &io, nin, nout);
  }
  /* One caller array smaller than its binding: must be refused, whatever
     the state. (Size 0 is a legal binding; then there is nothing smaller.) */
  if (nin > 0u && io.in_size[0] > 0u) {
    mlip_region_state fresh;
    memset(&fresh, 0, sizeof fresh);
    io.in_size[0] -= 1u;
    if (run(buf, size, &fresh, ocm, ocm_bytes, stats, layers, &io, nin, nout) == MLIP_OK) {
      abort(); /* a smaller array was accepted */
    }
    io.in_size[0] += 1u;
  }
  /* A byte changed after validation (the state says validated): the run may
     fail, but must not leave the arrays. */
  if (st.validated) {
    size_t at = (size_t)data[size / 2] * 7919u % size;
    buf[at] ^= (uint8_t)(data[size - 1] | 1u);
    (void)run(buf, size, &st, ocm, ocm_bytes, stats, layers, &io, nin, nout);
  }

  for (i = 0; i < nin; ++i) free(io.in[i]);
  for (i = 0; i < nout; ++i) free(io.out[i]);
  free(io.scratch);
  free(ocm);
  free(stats);
  free(buf);
  return 0;
}
