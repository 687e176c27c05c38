/* The remote-run protocol of `mlipc serve` and `mlipc run --remote`
 * (docs/security.md, "Remote execution"): framing and validation, shared by
 * the server (serve/server.c) and the client (codegen/host/remote_client.cpp)
 * so that both sides check the same rules.
 *
 * A connection is a sequence of frames. Each frame is a 12-byte header
 *   bytes 0-3  "MLRX"            magic
 *   byte  4    MLRX_VERSION      version
 *   byte  5    type              one of mlrx_type
 *   bytes 6-7  0                 reserved
 *   bytes 8-11 length            payload bytes, unsigned little-endian
 * and its payload. The client sends HELLO (the token), RUNNER (the program),
 * INPUT* (u8 name length, name, file bytes), OUTPUT+ (a name the runner
 * writes), RUNS? (u32 LE the runner's -r, u32 LE the client's timeout in
 * seconds: the server kills the runner at the smaller of it and its own
 * --job-timeout), START. The server answers HELLO
 * with READY (u64 LE: its upload limit) and START with STATUS, STDOUT,
 * STDERR, FILE* (as INPUT) and DONE; ERROR (u8 code, message) ends the
 * connection at any point. The server builds the runner's argv itself:
 *   [wrapper...] <job>/.runner -r RUNS <input names...> <output names...>
 * in the order the frames came. */
#ifndef MLIPC_SERVE_PROTOCOL_H
#define MLIPC_SERVE_PROTOCOL_H

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

#define MLRX_VERSION 1
#define MLRX_HEADER_BYTES 12
#define MLRX_MAX_TOKEN 256       /* token bytes */
#define MLRX_MAX_NAME 64         /* a file name's bytes */
#define MLRX_MAX_FILES 64        /* inputs; outputs */
#define MLRX_MAX_RUNS 1000000u   /* the runner's -r */
#define MLRX_MAX_MESSAGE 1024    /* an ERROR's text */
#define MLRX_MAX_STDOUT 65536    /* the runner's stdout returned (its timing lines) */
#define MLRX_MAX_STDERR 4096     /* the runner's stderr returned: its first lines */
#define MLRX_MAX_STDERR_LINES 20
#define MLRX_STATUS_BYTES 32     /* i32 status, u32 flags, u64 wall, user, sys ns */
#define MLRX_DEFAULT_MAX_UPLOAD (256ull << 20)

typedef enum {
  MLRX_HELLO = 1,
  MLRX_RUNNER = 2,
  MLRX_INPUT = 3,
  MLRX_OUTPUT = 4,
  MLRX_RUNS = 5,
  MLRX_START = 6,
  MLRX_READY = 16,
  MLRX_STATUS = 17,
  MLRX_STDOUT = 18,
  MLRX_STDERR = 19,
  MLRX_FILE = 20,
  MLRX_DONE = 21,
  MLRX_ERROR = 31
} mlrx_type;

/* An ERROR frame's code. */
typedef enum {
  MLRX_E_PROTOCOL = 1, /* a frame broke the protocol */
  MLRX_E_LIMIT = 2,    /* a size or count past its limit */
  MLRX_E_TOKEN = 3,    /* wrong token */
  MLRX_E_BUSY = 4,     /* another job is running (one at a time) */
  MLRX_E_SERVER = 5,   /* the server failed (disk, fork, ...) */
  MLRX_E_TIMEOUT = 6   /* the client was too slow */
} mlrx_error_code;

/* What a check returns: MLRX_OK or a code of mlrx_error_code; `why` gets a
 * one-line reason. */
#define MLRX_OK 0

typedef struct {
  uint8_t type;
  uint32_t length;
} mlrx_header;

typedef struct {
  char text[160];
} mlrx_why;

void mlrx_put_u32(uint8_t* p, uint32_t v);
void mlrx_put_u64(uint8_t* p, uint64_t v);
uint32_t mlrx_get_u32(const uint8_t* p);
uint64_t mlrx_get_u64(const uint8_t* p);

/* Writes a header into out[MLRX_HEADER_BYTES]. */
void mlrx_encode_header(uint8_t* out, uint8_t type, uint32_t length);

/* Reads a header: magic, version, reserved bytes and a known type. */
int mlrx_decode_header(const uint8_t* in, mlrx_header* h, mlrx_why* why);

/* A file name the protocol accepts: 1 to MLRX_MAX_NAME bytes of
 * [A-Za-z0-9._-], not starting with '.' (so never ".", ".." nor the
 * server's own ".runner", ".stdout", ".stderr"), hence no '/'. */
int mlrx_check_name(const char* name, size_t n, mlrx_why* why);

/* A file frame's (INPUT, FILE) payload prefix: byte 0 is the name's length.
 * `avail` bytes of the payload are at `p` (at least the prefix), `length`
 * is the whole payload's. Sets the name (NUL-terminated into
 * name[MLRX_MAX_NAME + 1]) and the prefix size. */
int mlrx_decode_file_prefix(const uint8_t* p, size_t avail, uint32_t length, char* name, size_t* prefix,
                            mlrx_why* why);

/* The server's check of the client's frame order and sizes, one header at a
 * time, before any payload is read: a frame that breaks the order, a
 * count or a limit is refused there, so nothing past it is read. */
typedef struct {
  uint64_t max_upload;      /* RUNNER + INPUT payloads together */
  uint64_t uploaded;        /* so far */
  int state;                /* 0: want HELLO, 1: want RUNNER, 2: inputs, 3: outputs, 4: done */
  int inputs, outputs;
  int have_runs;
} mlrx_request;

void mlrx_request_init(mlrx_request* r, uint64_t max_upload);
int mlrx_request_accept(mlrx_request* r, const mlrx_header* h, mlrx_why* why);
/* Whether a name is already one of the request's (inputs and outputs are
 * told by name: each once). `names` holds `count` NUL-terminated names. */
int mlrx_name_taken(const char (*names)[MLRX_MAX_NAME + 1], int count, const char* name);

/* A token file: a regular file of at most 4 KiB whose content, without
 * trailing whitespace, is 1 to MLRX_MAX_TOKEN bytes. */
int mlrx_read_token(const char* path, char* token, size_t* n, mlrx_why* why);

/* Compares two tokens in time independent of where they differ. */
int mlrx_token_equal(const char* a, size_t an, const char* b, size_t bn);

const char* mlrx_type_name(int type);

#ifdef __cplusplus
}
#endif

#endif
