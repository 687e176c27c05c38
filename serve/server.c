/* The remote-run server (server.h): sockets, the job folder, the runner. */
#define _XOPEN_SOURCE 700
#include "server.h"

#include <arpa/inet.h>
#include <errno.h>
#include <fcntl.h>
#include <ftw.h>
#include <limits.h>
#include <netinet/in.h>
#include <poll.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/time.h>
#include <sys/types.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#define CHUNK 65536
/* After the HELLO (one --io-timeout), the rest of the request (to START)
 * must arrive within this many --io-timeout periods: a client trickling a
 * byte now and then does not hold the server. */
#define REQUEST_PERIODS 20

static volatile sig_atomic_t g_stop = 0;
static void on_stop(int sig) {
  (void)sig;
  g_stop = 1;
}

static const char* g_prog = "mlipc-serve";

static void say(const char* fmt, ...) {
  va_list ap;
  fprintf(stderr, "%s: ", g_prog);
  va_start(ap, fmt);
  vfprintf(stderr, fmt, ap);
  va_end(ap);
  fputc('\n', stderr);
  fflush(stderr);
}

static int64_t now_ms(void) {
  struct timespec t;
  clock_gettime(CLOCK_MONOTONIC, &t);
  return (int64_t)t.tv_sec * 1000 + t.tv_nsec / 1000000;
}

static uint64_t now_ns(void) {
  struct timespec t;
  clock_gettime(CLOCK_MONOTONIC, &t);
  return (uint64_t)t.tv_sec * 1000000000u + (uint64_t)t.tv_nsec;
}

static int set_flags(int fd, int nonblock) {
  int fl = fcntl(fd, F_GETFL);
  if (fl < 0) return -1;
  if (fcntl(fd, F_SETFL, nonblock ? fl | O_NONBLOCK : fl & ~O_NONBLOCK) < 0) return -1;
  return fcntl(fd, F_SETFD, FD_CLOEXEC);
}

/* ---- one connection: the socket, the listener to turn others away ---- */

typedef struct {
  int fd;
  int listen_fd;
  int64_t io_ms;        /* per wait */
  int64_t deadline;     /* of the whole request (0: none) */
  int failed;           /* MLRX_E_* once something went wrong */
  mlrx_why why;
} conn;

static void send_error_to(int fd, int code, const char* text, int ms);

/* A second client while a job is on: an ERROR "busy" frame, then closed. */
static void turn_away(int listen_fd) {
  int fd = accept(listen_fd, NULL, NULL);
  if (fd < 0) return;
  set_flags(fd, 1);
  /* Briefly: a flood of these must not hold up the job's own timeout. */
  send_error_to(fd, MLRX_E_BUSY, "busy: the server runs one job at a time and one is running; try again", 100);
  close(fd);
}

static int fail(conn* c, int code, const char* fmt, ...) {
  va_list ap;
  if (c->failed) return -1;
  c->failed = code;
  va_start(ap, fmt);
  vsnprintf(c->why.text, sizeof c->why.text, fmt, ap);
  va_end(ap);
  return -1;
}

/* Waits until `fd` is ready for `events`; turns other clients away
 * meanwhile. 0 ready, -1 timeout, stop or error (c->failed set). */
static int wait_fd(conn* c, short events) {
  const int64_t until = now_ms() + c->io_ms;
  for (;;) {
    struct pollfd p[2];
    int64_t left, t = now_ms();
    int n;
    if (g_stop) return fail(c, MLRX_E_SERVER, "the server is stopping");
    left = until - t;
    if (c->deadline && c->deadline - t < left) left = c->deadline - t;
    if (left <= 0) return fail(c, MLRX_E_TIMEOUT, "the client was silent for too long (--io-timeout)");
    p[0].fd = c->fd;
    p[0].events = events;
    p[1].fd = c->listen_fd;
    p[1].events = POLLIN;
    n = poll(p, c->listen_fd >= 0 ? 2 : 1, (int)(left > 200 ? 200 : left));
    if (n < 0 && errno != EINTR) return fail(c, MLRX_E_SERVER, "poll: %s", strerror(errno));
    if (n <= 0) continue;
    if (c->listen_fd >= 0 && (p[1].revents & POLLIN)) turn_away(c->listen_fd);
    if (p[0].revents & (events | POLLHUP | POLLERR)) return 0;
  }
}

static int read_exact(conn* c, void* buf, size_t n) {
  uint8_t* p = (uint8_t*)buf;
  while (n > 0) {
    ssize_t got;
    if (wait_fd(c, POLLIN) != 0) return -1;
    got = recv(c->fd, p, n, 0);
    if (got < 0 && (errno == EINTR || errno == EAGAIN || errno == EWOULDBLOCK)) continue;
    if (got < 0) return fail(c, MLRX_E_PROTOCOL, "the client's connection failed: %s", strerror(errno));
    if (got == 0) return fail(c, MLRX_E_PROTOCOL, "the client disconnected mid-transfer");
    p += got;
    n -= (size_t)got;
  }
  return 0;
}

static int write_all(conn* c, const void* buf, size_t n) {
  const uint8_t* p = (const uint8_t*)buf;
  while (n > 0) {
    ssize_t put;
    if (wait_fd(c, POLLOUT) != 0) return -1;
    put = send(c->fd, p, n, MSG_NOSIGNAL);
    if (put < 0 && (errno == EINTR || errno == EAGAIN || errno == EWOULDBLOCK)) continue;
    if (put < 0) return fail(c, MLRX_E_PROTOCOL, "the client's connection failed: %s", strerror(errno));
    p += put;
    n -= (size_t)put;
  }
  return 0;
}

static int send_frame(conn* c, uint8_t type, const void* payload, uint32_t n) {
  uint8_t h[MLRX_HEADER_BYTES];
  mlrx_encode_header(h, type, n);
  if (write_all(c, h, sizeof h) != 0) return -1;
  return n ? write_all(c, payload, n) : 0;
}

/* An ERROR frame, best effort, then the write side closed and what the
 * client already sent read away (briefly): closing with unread bytes would
 * reset the connection and could lose the frame before the client reads it. */
static void send_error_to(int fd, int code, const char* text, int ms) {
  uint8_t buf[MLRX_HEADER_BYTES + 1 + MLRX_MAX_MESSAGE];
  char sink[4096];
  size_t n = strlen(text);
  int64_t until = now_ms() + ms;
  size_t off = 0, total;
  if (n > MLRX_MAX_MESSAGE) n = MLRX_MAX_MESSAGE;
  mlrx_encode_header(buf, MLRX_ERROR, (uint32_t)(n + 1));
  buf[MLRX_HEADER_BYTES] = (uint8_t)code;
  memcpy(buf + MLRX_HEADER_BYTES + 1, text, n);
  total = MLRX_HEADER_BYTES + 1 + n;
  while (off < total && now_ms() < until) {
    struct pollfd p;
    ssize_t put;
    p.fd = fd;
    p.events = POLLOUT;
    if (poll(&p, 1, 100) <= 0) continue;
    put = send(fd, buf + off, total - off, MSG_NOSIGNAL);
    if (put < 0 && (errno == EINTR || errno == EAGAIN || errno == EWOULDBLOCK)) continue;
    if (put <= 0) break;
    off += (size_t)put;
  }
  shutdown(fd, SHUT_WR);
  for (;;) {
    struct pollfd p;
    ssize_t got;
    p.fd = fd;
    p.events = POLLIN;
    if (now_ms() >= until || poll(&p, 1, 50) <= 0) break;
    got = recv(fd, sink, sizeof sink, 0);
    if (got <= 0 && !(got < 0 && (errno == EINTR || errno == EAGAIN))) break;
  }
}

/* ---- the job folder ---- */

static int unlock_entry(const char* path, const struct stat* st, int flag, struct FTW* f) {
  (void)f;
  if (flag == FTW_D || flag == FTW_DNR) chmod(path, 0700);
  (void)st;
  return 0;
}

static int remove_entry(const char* path, const struct stat* st, int flag, struct FTW* f) {
  (void)st;
  (void)flag;
  (void)f;
  remove(path);
  return 0;
}

/* Removes the job folder whatever the runner left in it (folders it made
 * unreadable too). Returns 0 when it is gone. */
static int remove_tree(const char* dir) {
  int pass;
  struct stat st;
  for (pass = 0; pass < 8; ++pass) {
    nftw(dir, unlock_entry, 16, FTW_PHYS);
    nftw(dir, remove_entry, 16, FTW_PHYS | FTW_DEPTH);
    if (lstat(dir, &st) != 0) return 0;
  }
  return -1;
}

/* ---- receiving the request ---- */

typedef struct {
  char dir[PATH_MAX];
  char names[2 * MLRX_MAX_FILES][MLRX_MAX_NAME + 1];
  int inputs, outputs;  /* names[0..inputs) then the outputs */
  uint32_t runs;
  uint32_t timeout;  /* seconds: the client's, at most --job-timeout */
} job;

static int job_path(const job* j, const char* name, char* out) {
  const size_t d = strlen(j->dir), n = strlen(name);
  if (d + 1 + n >= PATH_MAX) return -1;
  memcpy(out, j->dir, d);
  out[d] = '/';
  memcpy(out + d + 1, name, n + 1);
  return 0;
}

/* Streams `n` payload bytes into a new file of the job folder. */
static int receive_file(conn* c, const job* j, const char* name, uint64_t n, mode_t mode) {
  char path[PATH_MAX];
  uint8_t buf[CHUNK];
  int fd;
  if (job_path(j, name, path) != 0) return fail(c, MLRX_E_SERVER, "the job folder's path is too long");
  fd = open(path, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, mode);
  if (fd < 0) return fail(c, MLRX_E_SERVER, "cannot create a file in the job folder: %s", strerror(errno));
  while (n > 0) {
    const size_t k = n < CHUNK ? (size_t)n : CHUNK;
    size_t off = 0;
    if (read_exact(c, buf, k) != 0) break;
    while (off < k) {
      ssize_t w = write(fd, buf + off, k - off);
      if (w < 0 && errno == EINTR) continue;
      if (w <= 0) {
        fail(c, MLRX_E_SERVER, "cannot write the job folder: %s", strerror(errno));
        break;
      }
      off += (size_t)w;
    }
    if (c->failed) break;
    n -= k;
  }
  if (close(fd) != 0 && !c->failed) fail(c, MLRX_E_SERVER, "cannot write the job folder: %s", strerror(errno));
  return c->failed ? -1 : 0;
}

static int take_name(conn* c, job* j, const char* name) {
  if (mlrx_name_taken((const char(*)[MLRX_MAX_NAME + 1])j->names, j->inputs + j->outputs, name))
    return fail(c, MLRX_E_PROTOCOL, "the file name '%s' twice", name);
  strcpy(j->names[j->inputs + j->outputs], name);
  return 0;
}

static int hello(conn* c, const mlrx_server_options* o, mlrx_request* req) {
  uint8_t h[MLRX_HEADER_BYTES], reply[8];
  char token[MLRX_MAX_TOKEN];
  mlrx_header hd;
  int rc;
  if (read_exact(c, h, sizeof h) != 0) return -1;
  rc = mlrx_decode_header(h, &hd, &c->why);
  if (rc == MLRX_OK && hd.type != MLRX_HELLO) return fail(c, MLRX_E_PROTOCOL, "the first frame is not HELLO");
  if (rc == MLRX_OK) rc = mlrx_request_accept(req, &hd, &c->why);
  if (rc != MLRX_OK) {
    c->failed = rc;
    return -1;
  }
  if (read_exact(c, token, hd.length) != 0) return -1;
  if (!mlrx_token_equal(token, hd.length, o->token, o->token_len))
    return fail(c, MLRX_E_TOKEN, "wrong token");
  mlrx_put_u64(reply, o->max_upload);
  return send_frame(c, MLRX_READY, reply, sizeof reply);
}

static int receive(conn* c, const mlrx_server_options* o, job* j) {
  mlrx_request req;
  mlrx_request_init(&req, o->max_upload);
  /* Before the token is checked, a connection holds the server for one
   * --io-timeout at most; after it, the upload gets REQUEST_PERIODS. */
  c->deadline = now_ms() + c->io_ms;
  if (hello(c, o, &req) != 0) return -1;
  c->deadline = now_ms() + c->io_ms * REQUEST_PERIODS;
  j->runs = 1;
  j->timeout = (uint32_t)o->job_timeout;
  for (;;) {
    uint8_t h[MLRX_HEADER_BYTES], small[1 + MLRX_MAX_NAME];
    char name[MLRX_MAX_NAME + 1];
    mlrx_header hd;
    size_t prefix;
    int rc;
    if (read_exact(c, h, sizeof h) != 0) return -1;
    rc = mlrx_decode_header(h, &hd, &c->why);
    if (rc == MLRX_OK) rc = mlrx_request_accept(&req, &hd, &c->why);
    if (rc != MLRX_OK) {
      c->failed = rc;
      return -1;
    }
    switch (hd.type) {
      case MLRX_RUNNER:
        if (receive_file(c, j, ".runner", hd.length, 0700) != 0) return -1;
        break;
      case MLRX_INPUT:
        if (read_exact(c, small, 1) != 0) return -1;
        if (small[0] == 0 || small[0] > MLRX_MAX_NAME)
          return fail(c, MLRX_E_LIMIT, "a file name of %u bytes (1 to 64)", small[0]);
        if (small[0] + 1u > hd.length) return fail(c, MLRX_E_PROTOCOL, "a file name past the end of its frame");
        if (read_exact(c, small + 1, small[0]) != 0) return -1;
        rc = mlrx_decode_file_prefix(small, 1u + small[0], hd.length, name, &prefix, &c->why);
        if (rc != MLRX_OK) {
          c->failed = rc;
          return -1;
        }
        if (take_name(c, j, name) != 0) return -1;
        ++j->inputs;
        if (receive_file(c, j, name, hd.length - prefix, 0600) != 0) return -1;
        break;
      case MLRX_OUTPUT:
        if (read_exact(c, name, hd.length) != 0) return -1;
        rc = mlrx_check_name(name, hd.length, &c->why);
        if (rc != MLRX_OK) {
          c->failed = rc;
          return -1;
        }
        name[hd.length] = '\0';
        if (take_name(c, j, name) != 0) return -1;
        ++j->outputs;
        break;
      case MLRX_RUNS:
        if (read_exact(c, small, 8) != 0) return -1;
        j->runs = mlrx_get_u32(small);
        if (j->runs < 1 || j->runs > MLRX_MAX_RUNS) return fail(c, MLRX_E_LIMIT, "RUNS %lu is not 1 to 1000000", (unsigned long)j->runs);
        if (mlrx_get_u32(small + 4) >= 1 && mlrx_get_u32(small + 4) < j->timeout) j->timeout = mlrx_get_u32(small + 4);
        break;
      case MLRX_START:
        c->deadline = 0;
        return 0;
      default:
        return fail(c, MLRX_E_PROTOCOL, "an unexpected frame");
    }
  }
}

/* ---- running it ---- */

typedef struct {
  int32_t status;      /* exit code, or -signal */
  uint32_t timed_out;
  uint64_t wall_ns, user_ns, sys_ns;
} outcome;

static uint64_t tv_ns(struct timeval t) { return (uint64_t)t.tv_sec * 1000000000u + (uint64_t)t.tv_usec * 1000u; }

static void limit(int resource, rlim_t v) {
  struct rlimit r;
  r.rlim_cur = v;
  r.rlim_max = v;
  setrlimit(resource, &r);
}

/* The child: its own process group, the job folder, the limits, a clean
 * environment; never returns. */
static void exec_runner(const mlrx_server_options* o, const job* j, int out_fd, int err_fd) {
  static char* const env[] = {"PATH=/usr/bin:/bin", "LC_ALL=C", NULL};
  char runner[PATH_MAX];
  char runs[16];
  char* argv[MLRX_MAX_WRAPPER_ARGS + 4 + 2 * MLRX_MAX_FILES];
  int k = 0, i, null_fd;
  setpgid(0, 0);
  signal(SIGPIPE, SIG_DFL);
  signal(SIGINT, SIG_DFL);
  signal(SIGTERM, SIG_DFL);
  if (chdir(j->dir) != 0) _exit(126);
  null_fd = open("/dev/null", O_RDONLY);
  if (null_fd < 0 || dup2(null_fd, 0) < 0 || dup2(out_fd, 1) < 0 || dup2(err_fd, 2) < 0) _exit(126);
  limit(RLIMIT_CPU, (rlim_t)j->timeout + 1);
  if (o->max_memory) limit(RLIMIT_AS, (rlim_t)o->max_memory);
  limit(RLIMIT_FSIZE, (rlim_t)o->max_upload);
  limit(RLIMIT_NOFILE, 64);
  limit(RLIMIT_CORE, 0);
  if (job_path(j, ".runner", runner) != 0) _exit(126);
  snprintf(runs, sizeof runs, "%lu", (unsigned long)j->runs);
  for (i = 0; i < o->wrapper_count; ++i) argv[k++] = (char*)o->wrapper[i];
  argv[k++] = runner;
  argv[k++] = "-r";
  argv[k++] = runs;
  for (i = 0; i < j->inputs + j->outputs; ++i) argv[k++] = (char*)j->names[i];
  argv[k] = NULL;
  execve(argv[0], argv, env);
  fprintf(stderr, "cannot start %s: %s\n", argv[0], strerror(errno));
  _exit(127);
}

/* Whether the client is gone: after START it sends nothing, so a readable
 * socket is the end of the connection (or bytes the protocol does not allow
 * there); either ends the job. */
static int client_gone(int fd) {
  struct pollfd p;
  p.fd = fd;
  p.events = POLLIN;
  return poll(&p, 1, 0) > 0 && (p.revents & (POLLIN | POLLHUP | POLLERR));
}

static int run_job(conn* c, const mlrx_server_options* o, const job* j, outcome* r) {
  char path[PATH_MAX];
  int out_fd, err_fd, st = 0;
  pid_t pid, done = 0;
  int gone = 0;
  struct rusage before, after;
  const uint64_t t0 = now_ns();
  const int64_t deadline = now_ms() + (int64_t)j->timeout * 1000;
  memset(r, 0, sizeof *r);
  if (job_path(j, ".stdout", path) != 0) return fail(c, MLRX_E_SERVER, "the job folder's path is too long");
  out_fd = open(path, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0600);
  job_path(j, ".stderr", path);
  err_fd = open(path, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0600);
  if (out_fd < 0 || err_fd < 0) {
    if (out_fd >= 0) close(out_fd);
    if (err_fd >= 0) close(err_fd);
    return fail(c, MLRX_E_SERVER, "cannot create the runner's log files: %s", strerror(errno));
  }
  getrusage(RUSAGE_CHILDREN, &before);
  pid = fork();
  if (pid == 0) exec_runner(o, j, out_fd, err_fd);
  close(out_fd);
  close(err_fd);
  if (pid < 0) return fail(c, MLRX_E_SERVER, "fork: %s", strerror(errno));
  setpgid(pid, pid);  /* also here: no kill(-pid) before the child's own call */
  while (done == 0) {
    struct pollfd p;
    done = waitpid(pid, &st, WNOHANG);
    if (done < 0 && errno == EINTR) done = 0;
    if (done != 0) break;
    if (g_stop || now_ms() >= deadline) {
      r->timed_out = !g_stop;
      kill(-pid, SIGKILL);
      kill(pid, SIGKILL);
      while ((done = waitpid(pid, &st, 0)) < 0 && errno == EINTR) {
      }
      break;
    }
    if (client_gone(c->fd)) {  /* nobody waits for the result: stop now */
      kill(-pid, SIGKILL);
      kill(pid, SIGKILL);
      while ((done = waitpid(pid, &st, 0)) < 0 && errno == EINTR) {
      }
      gone = 1;
      break;
    }
    p.fd = c->listen_fd;
    p.events = POLLIN;
    if (poll(&p, c->listen_fd >= 0 ? 1 : 0, 20) > 0 && (p.revents & POLLIN)) turn_away(c->listen_fd);
  }
  kill(-pid, SIGKILL);  /* whatever the runner left behind in its group */
  r->wall_ns = now_ns() - t0;
  getrusage(RUSAGE_CHILDREN, &after);
  r->user_ns = tv_ns(after.ru_utime) - tv_ns(before.ru_utime);
  r->sys_ns = tv_ns(after.ru_stime) - tv_ns(before.ru_stime);
  if (done < 0) return fail(c, MLRX_E_SERVER, "waitpid: %s", strerror(errno));
  r->status = WIFEXITED(st) ? WEXITSTATUS(st) : WIFSIGNALED(st) ? -WTERMSIG(st) : -1;
  if (g_stop) return fail(c, MLRX_E_SERVER, "the server is stopping");
  if (gone) return fail(c, MLRX_E_PROTOCOL, "the client disconnected while its runner ran (runner killed)");
  return 0;
}

/* ---- the result ---- */

/* Reads at most `cap` bytes of a job file into buf; the stderr form keeps
 * the first MLRX_MAX_STDERR_LINES lines. */
static size_t read_log(const job* j, const char* name, char* buf, size_t cap, int lines) {
  char path[PATH_MAX];
  size_t n = 0, i;
  int fd, seen = 0;
  if (job_path(j, name, path) != 0) return 0;
  fd = open(path, O_RDONLY | O_NOFOLLOW | O_CLOEXEC | O_NONBLOCK);
  if (fd < 0) return 0;
  while (n < cap) {
    ssize_t got = read(fd, buf + n, cap - n);
    if (got < 0 && errno == EINTR) continue;
    if (got <= 0) break;
    n += (size_t)got;
  }
  close(fd);
  if (lines)
    for (i = 0; i < n; ++i)
      if (buf[i] == '\n' && ++seen == lines) return i + 1;
  return n;
}

static int send_file_frame(conn* c, const mlrx_server_options* o, const job* j, const char* name) {
  char path[PATH_MAX];
  uint8_t buf[CHUNK], h[MLRX_HEADER_BYTES];
  struct stat st;
  const size_t n = strlen(name);
  uint64_t left;
  int fd;
  if (job_path(j, name, path) != 0) return 0;
  fd = open(path, O_RDONLY | O_NOFOLLOW | O_CLOEXEC | O_NONBLOCK);
  if (fd < 0) return 0;  /* not written: the client names what is missing */
  if (fstat(fd, &st) != 0 || !S_ISREG(st.st_mode) || (uint64_t)st.st_size > o->max_upload ||
      (uint64_t)st.st_size > 0xffffffffu - 1 - n) {
    close(fd);
    return 0;
  }
  left = (uint64_t)st.st_size;
  mlrx_encode_header(h, MLRX_FILE, (uint32_t)(left + 1 + n));
  buf[0] = (uint8_t)n;
  memcpy(buf + 1, name, n);
  if (write_all(c, h, sizeof h) != 0 || write_all(c, buf, 1 + n) != 0) {
    close(fd);
    return -1;
  }
  while (left > 0) {
    const size_t k = left < CHUNK ? (size_t)left : CHUNK;
    size_t got = 0;
    while (got < k) {
      ssize_t g = read(fd, buf + got, k - got);
      if (g < 0 && errno == EINTR) continue;
      if (g <= 0) break;
      got += (size_t)g;
    }
    if (got < k) memset(buf + got, 0, k - got);  /* shrank meanwhile: the frame keeps its length */
    if (write_all(c, buf, k) != 0) {
      close(fd);
      return -1;
    }
    left -= k;
  }
  close(fd);
  return 0;
}

static int send_result(conn* c, const mlrx_server_options* o, const job* j, const outcome* r) {
  uint8_t s[MLRX_STATUS_BYTES];
  static char log[MLRX_MAX_STDOUT];
  size_t n;
  int i;
  mlrx_put_u32(s, (uint32_t)r->status);
  mlrx_put_u32(s + 4, r->timed_out);
  mlrx_put_u64(s + 8, r->wall_ns);
  mlrx_put_u64(s + 16, r->user_ns);
  mlrx_put_u64(s + 24, r->sys_ns);
  if (send_frame(c, MLRX_STATUS, s, sizeof s) != 0) return -1;
  n = read_log(j, ".stdout", log, MLRX_MAX_STDOUT, 0);
  if (send_frame(c, MLRX_STDOUT, log, (uint32_t)n) != 0) return -1;
  n = read_log(j, ".stderr", log, MLRX_MAX_STDERR, MLRX_MAX_STDERR_LINES);
  if (send_frame(c, MLRX_STDERR, log, (uint32_t)n) != 0) return -1;
  for (i = j->inputs; i < j->inputs + j->outputs; ++i)
    if (send_file_frame(c, o, j, j->names[i]) != 0) return -1;
  return 0;  /* DONE once the job folder is gone (serve_client) */
}

/* One connection, start to end. The job folder is removed before the last
 * frame (DONE or ERROR) goes out: a client that has it sees a clean server. */
static void serve_client(const mlrx_server_options* o, int fd, int listen_fd, const char* peer) {
  static job j;
  conn c;
  outcome r;
  int ran = 0;
  memset(&c, 0, sizeof c);
  memset(&j, 0, sizeof j);
  c.fd = fd;
  c.listen_fd = listen_fd;
  c.io_ms = (int64_t)o->io_timeout * 1000;
  if (snprintf(j.dir, sizeof j.dir, "%s/mlipc-job-XXXXXX", o->workdir) >= (int)sizeof j.dir || !mkdtemp(j.dir)) {
    j.dir[0] = '\0';
    fail(&c, MLRX_E_SERVER, "cannot create a job folder under %s: %s", o->workdir, strerror(errno));
  }
  if (!c.failed && receive(&c, o, &j) == 0 && run_job(&c, o, &j, &r) == 0) {
    ran = 1;
    send_result(&c, o, &j, &r);
  }
  if (j.dir[0] && remove_tree(j.dir) != 0) say("cannot remove the job folder %s", j.dir);
  if (c.failed) {
    say("%s: %s", peer, c.why.text);
    if (!ran) send_error_to(fd, c.failed, c.why.text, 500);
    return;
  }
  if (send_frame(&c, MLRX_DONE, NULL, 0) != 0) {
    say("%s: %s", peer, c.why.text);
    return;
  }
  say("%s: job done: exit %ld%s, %.3f s", peer, (long)r.status, r.timed_out ? " (killed at --job-timeout)" : "",
      (double)r.wall_ns / 1e9);
}

void mlrx_serve_connection(const mlrx_server_options* o, int fd, int listen_fd, const char* peer) {
  set_flags(fd, 1);
  serve_client(o, fd, listen_fd, peer);
}

/* ---- the listener ---- */

int mlrx_serve(const mlrx_server_options* o) {
  struct sockaddr_storage addr;
  socklen_t len;
  char shown[INET6_ADDRSTRLEN + 16];
  int fd, one = 1, served = 0;
  struct sigaction sa;
  memset(&addr, 0, sizeof addr);
  {
    struct sockaddr_in* a4 = (struct sockaddr_in*)&addr;
    struct sockaddr_in6* a6 = (struct sockaddr_in6*)&addr;
    if (inet_pton(AF_INET, o->bind_addr, &a4->sin_addr) == 1) {
      a4->sin_family = AF_INET;
      a4->sin_port = htons((uint16_t)o->port);
      len = sizeof *a4;
    } else if (inet_pton(AF_INET6, o->bind_addr, &a6->sin6_addr) == 1) {
      a6->sin6_family = AF_INET6;
      a6->sin6_port = htons((uint16_t)o->port);
      len = sizeof *a6;
    } else {
      say("error: --bind '%s' is not a numeric IPv4 or IPv6 address", o->bind_addr);
      return 1;
    }
  }
  fd = socket(addr.ss_family, SOCK_STREAM, 0);
  if (fd < 0) {
    say("error: socket: %s", strerror(errno));
    return 1;
  }
  setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &one, sizeof one);
  if (bind(fd, (struct sockaddr*)&addr, len) != 0 || listen(fd, 8) != 0) {
    say("error: cannot listen on %s port %d: %s", o->bind_addr, o->port, strerror(errno));
    close(fd);
    return 1;
  }
  set_flags(fd, 1);
  len = sizeof addr;
  getsockname(fd, (struct sockaddr*)&addr, &len);
  {
    const int port = ntohs(addr.ss_family == AF_INET ? ((struct sockaddr_in*)&addr)->sin_port
                                                     : ((struct sockaddr_in6*)&addr)->sin6_port);
    printf("%s: listening on %s port %d\n", g_prog, o->bind_addr, port);
    fflush(stdout);
  }
  memset(&sa, 0, sizeof sa);
  sa.sa_handler = on_stop;
  sigemptyset(&sa.sa_mask);
  sigaction(SIGINT, &sa, NULL);
  sigaction(SIGTERM, &sa, NULL);
  signal(SIGPIPE, SIG_IGN);
  while (!g_stop && (o->max_jobs == 0 || served < o->max_jobs)) {
    struct pollfd p;
    struct sockaddr_storage peer;
    socklen_t plen = sizeof peer;
    int cfd;
    p.fd = fd;
    p.events = POLLIN;
    if (poll(&p, 1, 200) <= 0) continue;
    cfd = accept(fd, (struct sockaddr*)&peer, &plen);
    if (cfd < 0) continue;
    shown[0] = '\0';
    if (peer.ss_family == AF_INET) {
      inet_ntop(AF_INET, &((struct sockaddr_in*)&peer)->sin_addr, shown, INET6_ADDRSTRLEN);
      snprintf(shown + strlen(shown), 16, ":%d", ntohs(((struct sockaddr_in*)&peer)->sin_port));
    } else if (peer.ss_family == AF_INET6) {
      inet_ntop(AF_INET6, &((struct sockaddr_in6*)&peer)->sin6_addr, shown, INET6_ADDRSTRLEN);
      snprintf(shown + strlen(shown), 16, ":%d", ntohs(((struct sockaddr_in6*)&peer)->sin6_port));
    }
    mlrx_serve_connection(o, cfd, fd, shown);
    close(cfd);
    ++served;
  }
  close(fd);
  say("stopped");
  return 0;
}

/* ---- the command line ---- */

static int whole(const char* opt, const char* text, uint64_t lo, uint64_t hi, uint64_t* out) {
  char* end;
  unsigned long long v;
  if (!text || !*text || *text == '-' || *text == '+') goto bad;
  errno = 0;
  v = strtoull(text, &end, 10);
  if (errno || *end || v < lo || v > hi) goto bad;
  *out = v;
  return 0;
bad:
  say("error: %s '%s' is not a whole number from %llu to %llu", opt, text ? text : "", (unsigned long long)lo,
      (unsigned long long)hi);
  return -1;
}

/* `name` as the operator gave it (with a '/'), or found on PATH. */
static int find_program(const char* name, char* out) {
  const char* path = getenv("PATH");
  if (strchr(name, '/')) {
    if (access(name, X_OK) != 0) return -1;
    snprintf(out, PATH_MAX, "%s", name);
    return 0;
  }
  while (path && *path) {
    const char* colon = strchr(path, ':');
    const size_t n = colon ? (size_t)(colon - path) : strlen(path);
    if (n > 0 && n + strlen(name) + 2 < PATH_MAX) {
      memcpy(out, path, n);
      out[n] = '/';
      strcpy(out + n + 1, name);
      if (access(out, X_OK) == 0) return 0;
    }
    path = colon ? colon + 1 : NULL;
  }
  return -1;
}

static void usage(void) {
  printf(
      "usage: %s --port N [--bind ADDR] [--token-file F] [--workdir D] [--max-upload BYTES]\n"
      "       [--job-timeout S] [--io-timeout S] [--max-memory BYTES] [--exec-wrapper PROGRAM\n"
      "       [--exec-wrapper-arg ARG]...] [--max-jobs N]\n"
      "Runs the runners `mlipc run --remote` sends (cross-built with mlipc compile --cross-compiler),\n"
      "one job at a time, and returns their outputs (docs/user-guide.md, \"Remote run\").\n"
      "  --port N            TCP port (0: any free port; the line on stdout names it)\n"
      "  --bind ADDR         numeric address to listen on (default 127.0.0.1; another needs --token-file)\n"
      "  --token-file F      clients must send this file's content (trailing whitespace removed)\n"
      "  --workdir D         where the private job folders go (default $TMPDIR or /tmp)\n"
      "  --max-upload BYTES  runner + inputs together, and each output (default 268435456)\n"
      "  --job-timeout S     seconds a runner may run before it and its process group are killed (default 600)\n"
      "  --io-timeout S      seconds a read or write on the socket may wait (default 30)\n"
      "  --max-memory BYTES  the runner's address space (default 8589934592; 0: no limit)\n"
      "  --exec-wrapper P    start the runner through P (qemu-aarch64 without binfmt_misc)\n"
      "  --exec-wrapper-arg A  an argument of P before the runner (repeatable)\n"
      "  --max-jobs N        exit after N connections (default 0: serve until SIGINT or SIGTERM)\n",
      g_prog);
}

int mlrx_serve_main(int argc, char** argv) {
  static mlrx_server_options o;
  static char wrapper[PATH_MAX];
  static char workdir_abs[PATH_MAX];
  const char* token_file = NULL;
  const char* exec_wrapper = NULL;
  const char* wrapper_args[MLRX_MAX_WRAPPER_ARGS];
  int nargs = 0, have_port = 0, i;
  uint64_t v;
  struct stat st;
  if (argc > 0 && argv[0]) g_prog = strrchr(argv[0], '/') ? strrchr(argv[0], '/') + 1 : argv[0];
  memset(&o, 0, sizeof o);
  o.bind_addr = "127.0.0.1";
  o.workdir = getenv("TMPDIR") && *getenv("TMPDIR") ? getenv("TMPDIR") : "/tmp";
  o.max_upload = MLRX_DEFAULT_MAX_UPLOAD;
  o.max_memory = 8ull << 30;
  o.job_timeout = 600;
  o.io_timeout = 30;
  for (i = 1; i < argc; ++i) {
    const char* a = argv[i];
    const char* val = i + 1 < argc ? argv[i + 1] : NULL;
    if (strcmp(a, "-h") == 0 || strcmp(a, "--help") == 0) {
      usage();
      return 0;
    }
    if (!val) {
      say("error: %s '%s' needs a value (--help lists the options)", a[0] == '-' ? "option" : "argument", a);
      return 1;
    }
    ++i;
    if (strcmp(a, "--port") == 0) {
      if (whole(a, val, 0, 65535, &v) != 0) return 1;
      o.port = (int)v;
      have_port = 1;
    } else if (strcmp(a, "--bind") == 0) {
      o.bind_addr = val;
    } else if (strcmp(a, "--token-file") == 0) {
      token_file = val;
    } else if (strcmp(a, "--workdir") == 0) {
      o.workdir = val;
    } else if (strcmp(a, "--max-upload") == 0) {
      if (whole(a, val, 1, 0xfffffff0u, &v) != 0) return 1;
      o.max_upload = v;
    } else if (strcmp(a, "--job-timeout") == 0) {
      if (whole(a, val, 1, 1000000, &v) != 0) return 1;
      o.job_timeout = (int)v;
    } else if (strcmp(a, "--io-timeout") == 0) {
      if (whole(a, val, 1, 3600, &v) != 0) return 1;
      o.io_timeout = (int)v;
    } else if (strcmp(a, "--max-memory") == 0) {
      if (whole(a, val, 0, UINT64_MAX, &v) != 0) return 1;
      o.max_memory = v;
    } else if (strcmp(a, "--max-jobs") == 0) {
      if (whole(a, val, 0, 1000000000, &v) != 0) return 1;
      o.max_jobs = (int)v;
    } else if (strcmp(a, "--exec-wrapper") == 0) {
      exec_wrapper = val;
    } else if (strcmp(a, "--exec-wrapper-arg") == 0) {
      if (nargs == MLRX_MAX_WRAPPER_ARGS) {
        say("error: more than %d --exec-wrapper-arg", MLRX_MAX_WRAPPER_ARGS);
        return 1;
      }
      wrapper_args[nargs++] = val;
    } else {
      say("error: unknown option '%s' (--help lists the options)", a);
      return 1;
    }
  }
  if (!have_port) {
    say("error: --port N is required (0: any free port)");
    return 1;
  }
  if (token_file) {
    mlrx_why why;
    if (mlrx_read_token(token_file, o.token, &o.token_len, &why) != MLRX_OK) {
      say("error: --token-file %s: %s", token_file, why.text);
      return 1;
    }
  } else {
    struct in_addr a4;
    struct in6_addr a6;
    const int loopback = (inet_pton(AF_INET, o.bind_addr, &a4) == 1 && (ntohl(a4.s_addr) >> 24) == 127) ||
                         (inet_pton(AF_INET6, o.bind_addr, &a6) == 1 && memcmp(&a6, &in6addr_loopback, sizeof a6) == 0);
    if (!loopback) {
      say("error: --bind %s is not a loopback address: give --token-file (anyone who reaches the port runs code "
          "as this user)",
          o.bind_addr);
      return 1;
    }
  }
  if (stat(o.workdir, &st) != 0 || !S_ISDIR(st.st_mode)) {
    say("error: --workdir %s is not a folder", o.workdir);
    return 1;
  }
  /* Absolute: the runner starts inside its job folder, so a relative one
   * would name the wrong place from there. */
  if (!realpath(o.workdir, workdir_abs)) {
    say("error: --workdir %s: %s", o.workdir, strerror(errno));
    return 1;
  }
  o.workdir = workdir_abs;
  if (nargs && !exec_wrapper) {
    say("error: --exec-wrapper-arg needs --exec-wrapper");
    return 1;
  }
  if (exec_wrapper) {
    if (find_program(exec_wrapper, wrapper) != 0) {
      say("error: --exec-wrapper '%s' is not an executable program (nor on PATH)", exec_wrapper);
      return 1;
    }
    o.wrapper[o.wrapper_count++] = wrapper;
    for (i = 0; i < nargs; ++i) o.wrapper[o.wrapper_count++] = wrapper_args[i];
  }
  return mlrx_serve(&o);
}
