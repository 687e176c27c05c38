/* The remote-run server: `mlipc serve` and the standalone `mlipc-serve`
 * (docs/user-guide.md, "Remote run"; docs/security.md, "Remote
 * execution"). One job at a time: it receives a runner and its input files
 * (protocol.h), runs the runner in a fresh private folder under resource
 * limits and a job timeout, returns its status, the first lines of its
 * stderr, its output files and its timings, and removes the folder. */
#ifndef MLIPC_SERVE_SERVER_H
#define MLIPC_SERVE_SERVER_H

#include <stddef.h>
#include <stdint.h>

#include "protocol.h"

#ifdef __cplusplus
extern "C" {
#endif

#define MLRX_MAX_WRAPPER_ARGS 16

typedef struct {
  const char* bind_addr;   /* numeric IPv4 or IPv6; default 127.0.0.1 */
  int port;                /* 0: any free port (printed) */
  char token[MLRX_MAX_TOKEN];
  size_t token_len;        /* 0: no token asked */
  const char* workdir;     /* where job folders go; default $TMPDIR or /tmp */
  uint64_t max_upload;     /* runner + inputs, bytes; also each output's limit */
  uint64_t max_memory;     /* the runner's address space (RLIMIT_AS); 0: none */
  int job_timeout;         /* seconds the runner may take */
  int io_timeout;          /* seconds a read or write on the socket may wait */
  int max_jobs;            /* exit after this many connections; 0: serve forever */
  /* The operator's program the runner is started through (qemu-aarch64),
   * then its own arguments; never from the client. */
  const char* wrapper[MLRX_MAX_WRAPPER_ARGS + 1];
  int wrapper_count;
} mlrx_server_options;

/* The command line of both programs: parses argv (argv[0] is the program's
 * name for messages), serves, returns the exit status. */
int mlrx_serve_main(int argc, char** argv);

/* One connection on `fd` (a connected stream socket), start to end; the
 * job folder is gone when it returns; other clients on `listen_fd` (-1:
 * none) are turned away meanwhile. The fuzz target's entry (tests/fuzz). */
void mlrx_serve_connection(const mlrx_server_options* o, int fd, int listen_fd, const char* peer);

/* Serves with parsed options until SIGINT or SIGTERM. */
int mlrx_serve(const mlrx_server_options* o);

#ifdef __cplusplus
}
#endif

#endif
