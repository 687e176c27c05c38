/* Framing and validation of the remote-run protocol (protocol.h). */
#define _POSIX_C_SOURCE 200809L
#include "protocol.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

static const uint8_t kMagic[4] = {'M', 'L', 'R', 'X'};

static int refuse(mlrx_why* why, int code, const char* text) {
  if (why) snprintf(why->text, sizeof why->text, "%s", text);
  return code;
}

void mlrx_put_u32(uint8_t* p, uint32_t v) {
  int i;
  for (i = 0; i < 4; ++i) p[i] = (uint8_t)(v >> (8 * i));
}

void mlrx_put_u64(uint8_t* p, uint64_t v) {
  int i;
  for (i = 0; i < 8; ++i) p[i] = (uint8_t)(v >> (8 * i));
}

uint32_t mlrx_get_u32(const uint8_t* p) {
  uint32_t v = 0;
  int i;
  for (i = 3; i >= 0; --i) v = (v << 8) | p[i];
  return v;
}

uint64_t mlrx_get_u64(const uint8_t* p) {
  uint64_t v = 0;
  int i;
  for (i = 7; i >= 0; --i) v = (v << 8) | p[i];
  return v;
}

void mlrx_encode_header(uint8_t* out, uint8_t type, uint32_t length) {
  memcpy(out, kMagic, 4);
  out[4] = MLRX_VERSION;
  out[5] = type;
  out[6] = 0;
  out[7] = 0;
  mlrx_put_u32(out + 8, length);
}

const char* mlrx_type_name(int type) {
  switch (type) {
    case MLRX_HELLO: return "HELLO";
    case MLRX_RUNNER: return "RUNNER";
    case MLRX_INPUT: return "INPUT";
    case MLRX_OUTPUT: return "OUTPUT";
    case MLRX_RUNS: return "RUNS";
    case MLRX_START: return "START";
    case MLRX_READY: return "READY";
    case MLRX_STATUS: return "STATUS";
    case MLRX_STDOUT: return "STDOUT";
    case MLRX_STDERR: return "STDERR";
    case MLRX_FILE: return "FILE";
    case MLRX_DONE: return "DONE";
    case MLRX_ERROR: return "ERROR";
    default: return NULL;
  }
}

int mlrx_decode_header(const uint8_t* in, mlrx_header* h, mlrx_why* why) {
  if (memcmp(in, kMagic, 4) != 0) return refuse(why, MLRX_E_PROTOCOL, "not an mlipc remote-run frame (bad magic)");
  if (in[4] != MLRX_VERSION) {
    if (why) snprintf(why->text, sizeof why->text, "protocol version %u, this side speaks %d", in[4], MLRX_VERSION);
    return MLRX_E_PROTOCOL;
  }
  if (in[6] != 0 || in[7] != 0) return refuse(why, MLRX_E_PROTOCOL, "reserved header bytes are not zero");
  if (!mlrx_type_name(in[5])) {
    if (why) snprintf(why->text, sizeof why->text, "unknown frame type %u", in[5]);
    return MLRX_E_PROTOCOL;
  }
  h->type = in[5];
  h->length = mlrx_get_u32(in + 8);
  return MLRX_OK;
}

int mlrx_check_name(const char* name, size_t n, mlrx_why* why) {
  size_t i;
  if (n == 0) return refuse(why, MLRX_E_PROTOCOL, "an empty file name");
  if (n > MLRX_MAX_NAME) return refuse(why, MLRX_E_LIMIT, "a file name longer than 64 bytes");
  if (name[0] == '.') return refuse(why, MLRX_E_PROTOCOL, "a file name starting with '.'");
  for (i = 0; i < n; ++i) {
    const char c = name[i];
    const int ok = (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '.' ||
                   c == '_' || c == '-';
    if (!ok) return refuse(why, MLRX_E_PROTOCOL, "a file name with a character other than A-Z a-z 0-9 . _ -");
  }
  return MLRX_OK;
}

int mlrx_decode_file_prefix(const uint8_t* p, size_t avail, uint32_t length, char* name, size_t* prefix,
                            mlrx_why* why) {
  size_t n;
  int rc;
  if (length < 1 || avail < 1) return refuse(why, MLRX_E_PROTOCOL, "a file frame without its name");
  n = p[0];
  if (n + 1 > length || n + 1 > avail) return refuse(why, MLRX_E_PROTOCOL, "a file name past the end of its frame");
  rc = mlrx_check_name((const char*)p + 1, n, why);
  if (rc != MLRX_OK) return rc;
  memcpy(name, p + 1, n);
  name[n] = '\0';
  *prefix = n + 1;
  return MLRX_OK;
}

void mlrx_request_init(mlrx_request* r, uint64_t max_upload) {
  memset(r, 0, sizeof *r);
  r->max_upload = max_upload;
}

static int upload(mlrx_request* r, uint64_t bytes, mlrx_why* why) {
  if (bytes > r->max_upload - r->uploaded) {
    if (why)
      snprintf(why->text, sizeof why->text, "the upload is larger than the server's limit of %llu bytes",
               (unsigned long long)r->max_upload);
    return MLRX_E_LIMIT;
  }
  r->uploaded += bytes;
  return MLRX_OK;
}

int mlrx_request_accept(mlrx_request* r, const mlrx_header* h, mlrx_why* why) {
  switch (h->type) {
    case MLRX_HELLO:
      if (r->state != 0) return refuse(why, MLRX_E_PROTOCOL, "HELLO twice");
      if (h->length > MLRX_MAX_TOKEN) return refuse(why, MLRX_E_LIMIT, "a token longer than 256 bytes");
      r->state = 1;
      return MLRX_OK;
    case MLRX_RUNNER:
      if (r->state != 1) return refuse(why, MLRX_E_PROTOCOL, "RUNNER not right after HELLO");
      if (h->length == 0) return refuse(why, MLRX_E_PROTOCOL, "an empty runner");
      r->state = 2;
      return upload(r, h->length, why);
    case MLRX_INPUT:
      if (r->state != 2) return refuse(why, MLRX_E_PROTOCOL, "INPUT not between RUNNER and the first OUTPUT");
      if (r->inputs >= MLRX_MAX_FILES) return refuse(why, MLRX_E_LIMIT, "more than 64 input files");
      if (h->length < 2) return refuse(why, MLRX_E_PROTOCOL, "an INPUT frame without its name");
      ++r->inputs;
      return upload(r, h->length, why);
    case MLRX_OUTPUT:
      if (r->state != 2 && r->state != 3) return refuse(why, MLRX_E_PROTOCOL, "OUTPUT before RUNNER or after START");
      if (r->outputs >= MLRX_MAX_FILES) return refuse(why, MLRX_E_LIMIT, "more than 64 output files");
      if (h->length == 0 || h->length > MLRX_MAX_NAME) return refuse(why, MLRX_E_LIMIT, "an output name of 0 or more than 64 bytes");
      ++r->outputs;
      r->state = 3;
      return MLRX_OK;
    case MLRX_RUNS:
      if (r->state != 2 && r->state != 3) return refuse(why, MLRX_E_PROTOCOL, "RUNS before RUNNER or after START");
      if (r->have_runs) return refuse(why, MLRX_E_PROTOCOL, "RUNS twice");
      if (h->length != 8) return refuse(why, MLRX_E_PROTOCOL, "a RUNS frame not of 8 bytes");
      r->have_runs = 1;
      return MLRX_OK;
    case MLRX_START:
      if (r->state != 3) return refuse(why, MLRX_E_PROTOCOL, "START before RUNNER and an OUTPUT");
      if (h->length != 0) return refuse(why, MLRX_E_PROTOCOL, "a START frame with a payload");
      r->state = 4;
      return MLRX_OK;
    default:
      if (why) {
        const char* n = mlrx_type_name(h->type);
        snprintf(why->text, sizeof why->text, "a %s frame from the client", n ? n : "unknown");
      }
      return MLRX_E_PROTOCOL;
  }
}

int mlrx_name_taken(const char (*names)[MLRX_MAX_NAME + 1], int count, const char* name) {
  int i;
  for (i = 0; i < count; ++i)
    if (strcmp(names[i], name) == 0) return 1;
  return 0;
}

int mlrx_read_token(const char* path, char* token, size_t* n, mlrx_why* why) {
  char buf[4097];
  struct stat st;
  ssize_t got;
  size_t len = 0;
  const int fd = open(path, O_RDONLY | O_NOCTTY | O_NONBLOCK);
  if (fd < 0) return refuse(why, MLRX_E_SERVER, strerror(errno));
  if (fstat(fd, &st) != 0 || !S_ISREG(st.st_mode)) {
    close(fd);
    return refuse(why, MLRX_E_SERVER, "not a regular file");
  }
  if (st.st_size > 4096) {
    close(fd);
    return refuse(why, MLRX_E_LIMIT, "larger than 4096 bytes");
  }
  while (len < sizeof buf - 1) {
    got = read(fd, buf + len, sizeof buf - 1 - len);
    if (got < 0 && errno == EINTR) continue;
    if (got <= 0) break;
    len += (size_t)got;
  }
  close(fd);
  while (len > 0 && (buf[len - 1] == '\n' || buf[len - 1] == '\r' || buf[len - 1] == ' ' || buf[len - 1] == '\t'))
    --len;
  if (len == 0) return refuse(why, MLRX_E_PROTOCOL, "empty");
  if (len > MLRX_MAX_TOKEN) return refuse(why, MLRX_E_LIMIT, "a token longer than 256 bytes");
  memcpy(token, buf, len);
  *n = len;
  return MLRX_OK;
}

int mlrx_token_equal(const char* a, size_t an, const char* b, size_t bn) {
  /* Every byte position up to the limit is compared whatever the lengths,
   * so the time says nothing about where the tokens differ. */
  unsigned diff = (unsigned)(an ^ bn) | (an > MLRX_MAX_TOKEN) | (bn > MLRX_MAX_TOKEN);
  size_t i;
  for (i = 0; i < MLRX_MAX_TOKEN; ++i) {
    const unsigned char x = i < an ? (unsigned char)a[i] : 0;
    const unsigned char y = i < bn ? (unsigned char)b[i] : 0;
    diff |= (unsigned)(x ^ y);
  }
  return diff == 0;
}
