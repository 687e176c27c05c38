/* libFuzzer target: the remote-run server's receiving side (serve/server.c
 * and protocol.c), fed the input as one client's bytes over a socket pair.
 * Whatever arrives, the server must not crash, must answer or close, and
 * must leave its working folder empty. The "runner" is never executed: the
 * operator's wrapper here is /bin/false, which ignores its arguments. */
#define _XOPEN_SOURCE 700
#include <dirent.h>
#include <fcntl.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

#include "serve/server.h"

static mlrx_server_options g_opts;
static char g_work[] = "/tmp/mlipc-fuzz-serve-XXXXXX";

int LLVMFuzzerInitialize(int* argc, char*** argv);
int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size);

static void remove_work(void) { rmdir(g_work); }

int LLVMFuzzerInitialize(int* argc, char*** argv) {
  (void)argc;
  (void)argv;
  if (!mkdtemp(g_work)) abort();
  atexit(remove_work);
  memset(&g_opts, 0, sizeof g_opts);
  g_opts.bind_addr = "127.0.0.1";
  g_opts.workdir = g_work;
  g_opts.max_upload = 1u << 20;
  g_opts.job_timeout = 1;
  g_opts.io_timeout = 1;
  g_opts.wrapper[0] = "/bin/false";
  g_opts.wrapper_count = 1;
  return 0;
}

static int folder_empty(const char* dir) {
  DIR* d = opendir(dir);
  struct dirent* e;
  int empty = 1;
  if (!d) return 0;
  while ((e = readdir(d)) != NULL)
    if (strcmp(e->d_name, ".") != 0 && strcmp(e->d_name, "..") != 0) empty = 0;
  closedir(d);
  return empty;
}

int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  int sv[2];
  size_t off = 0;
  if (socketpair(AF_UNIX, SOCK_STREAM, 0, sv) != 0) return 0;
  fcntl(sv[1], F_SETFL, O_NONBLOCK);
  while (off < size) {
    const ssize_t put = write(sv[1], data + off, size - off);
    if (put <= 0) break;
    off += (size_t)put;
  }
  /* The client stops sending (the server reads what was sent, then EOF) but
   * stays to receive: the server's answers (small: /bin/false writes no
   * output files) wait in its buffer. */
  shutdown(sv[1], SHUT_WR);
  mlrx_serve_connection(&g_opts, sv[0], -1, "fuzz");
  close(sv[0]);
  close(sv[1]);
  if (!folder_empty(g_work)) {
    fprintf(stderr, "the server left files in %s\n", g_work);
    abort();
  }
  return 0;
}
