#include "host/remote_client.h"

#include <netdb.h>
#include <poll.h>
#include <sys/socket.h>
#include <unistd.h>

#include <cerrno>
#include <chrono>
#include <cstring>
#include <fcntl.h>

#include <fmt/format.h>

#include "serve/protocol.h"
#include "support/error.h"
#include "support/file_util.h"
#include "support/limits.h"
#include "support/text.h"

namespace mlipc::host {

namespace {

using Clock = std::chrono::steady_clock;

class Socket {
 public:
  explicit Socket(int fd) : fd_(fd) {}
  Socket(const Socket&) = delete;
  Socket& operator=(const Socket&) = delete;
  ~Socket() {
    if (fd_ >= 0) ::close(fd_);
  }
  int fd() const { return fd_; }

 private:
  int fd_;
};

// One connection to the server; every failure names the endpoint.
class Connection {
 public:
  Connection(const RemoteEndpoint& at) : at_(at), sock_(connect_to(at)) {}

  [[noreturn]] void die(const std::string& what) const { fail("remote {}: {}", at_.shown(), what); }

  // Waits for `events` for at most `seconds`; false on timeout.
  bool wait(short events, int seconds) const {
    const auto until = Clock::now() + std::chrono::seconds(seconds);
    for (;;) {
      const auto left = std::chrono::duration_cast<std::chrono::milliseconds>(until - Clock::now()).count();
      if (left <= 0) return false;
      pollfd p{sock_.fd(), events, 0};
      const int n = ::poll(&p, 1, static_cast<int>(std::min<long long>(left, 1000)));
      if (n < 0 && errno != EINTR) die(fmt::format("poll: {}", std::strerror(errno)));
      if (n > 0) return true;
    }
  }

  // A write the server cut short may leave its ERROR frame to read: that
  // frame's message is the better error (an oversized upload, say).
  void send_all(const void* data, size_t n) {
    const auto* p = static_cast<const uint8_t*>(data);
    while (n > 0) {
      if (!wait(POLLOUT, at_.io_timeout)) die("the server stopped reading (timed out sending)");
      const ssize_t put = ::send(sock_.fd(), p, n, MSG_NOSIGNAL);
      if (put < 0 && (errno == EINTR || errno == EAGAIN || errno == EWOULDBLOCK)) continue;
      if (put < 0) {
        const std::string why = std::strerror(errno);
        pending_error();
        die(fmt::format("the connection failed while sending: {}", why));
      }
      p += put;
      n -= static_cast<size_t>(put);
    }
  }

  void send_frame(uint8_t type, const std::string& payload) {
    uint8_t h[MLRX_HEADER_BYTES];
    mlrx_encode_header(h, type, static_cast<uint32_t>(payload.size()));
    send_all(h, sizeof h);
    send_all(payload.data(), payload.size());
  }

  // Reads exactly n bytes, each wait at most `seconds`.
  void read_exact(void* data, size_t n, int seconds) {
    auto* p = static_cast<uint8_t*>(data);
    while (n > 0) {
      if (!wait(POLLIN, seconds)) die("no answer from the server (timed out)");
      const ssize_t got = ::recv(sock_.fd(), p, n, 0);
      if (got < 0 && (errno == EINTR || errno == EAGAIN || errno == EWOULDBLOCK)) continue;
      if (got < 0) die(fmt::format("the connection failed: {}", std::strerror(errno)));
      if (got == 0) die("the server closed the connection mid-answer");
      p += got;
      n -= static_cast<size_t>(got);
    }
  }

  // The next frame from the server: an ERROR ends here as an Error with its
  // message. `max` bounds the payload of any other frame.
  std::pair<uint8_t, std::string> read_frame(uint64_t max, int seconds) {
    uint8_t h[MLRX_HEADER_BYTES];
    read_exact(h, sizeof h, seconds);
    mlrx_header hd;
    mlrx_why why;
    if (mlrx_decode_header(h, &hd, &why) != MLRX_OK) die(fmt::format("not an mlipc server ({})", why.text));
    if (hd.type == MLRX_ERROR) {
      if (hd.length < 1 || hd.length > 1 + MLRX_MAX_MESSAGE) die("the server sent a damaged ERROR frame");
      std::string m(hd.length, '\0');
      read_exact(m.data(), m.size(), at_.io_timeout);
      die(fmt::format("the server refused the job: {}", printable(m.substr(1))));
    }
    if (hd.length > max)
      die(fmt::format("the server sent a {} frame of {} bytes (at most {} expected)", mlrx_type_name(hd.type),
                      hd.length, max));
    std::string payload(hd.length, '\0');
    read_exact(payload.data(), payload.size(), at_.io_timeout);
    return {hd.type, std::move(payload)};
  }

  std::pair<uint8_t, std::string> expect(uint8_t type, uint64_t max, int seconds) {
    auto f = read_frame(max, seconds);
    if (f.first != type)
      die(fmt::format("the server sent {} where {} was due", mlrx_type_name(f.first), mlrx_type_name(type)));
    return f;
  }

 private:
  void pending_error() {
    if (wait(POLLIN, 2)) read_frame(0, 2);
  }

  static int connect_to(const RemoteEndpoint& at) {
    addrinfo hints{};
    hints.ai_family = AF_UNSPEC;
    hints.ai_socktype = SOCK_STREAM;
    addrinfo* list = nullptr;
    const std::string port = std::to_string(at.port);
    const int rc = ::getaddrinfo(at.host.c_str(), port.c_str(), &hints, &list);
    if (rc != 0) fail("remote {}: cannot resolve '{}': {}", at.shown(), printable(at.host), ::gai_strerror(rc));
    std::string last = "no address";
    for (addrinfo* a = list; a; a = a->ai_next) {
      const int fd = ::socket(a->ai_family, a->ai_socktype, a->ai_protocol);
      if (fd < 0) continue;
      ::fcntl(fd, F_SETFD, FD_CLOEXEC);
      ::fcntl(fd, F_SETFL, ::fcntl(fd, F_GETFL) | O_NONBLOCK);
      if (::connect(fd, a->ai_addr, a->ai_addrlen) == 0 || errno == EINPROGRESS) {
        pollfd p{fd, POLLOUT, 0};
        int err = 0;
        socklen_t len = sizeof err;
        if (::poll(&p, 1, at.io_timeout * 1000) == 1 && ::getsockopt(fd, SOL_SOCKET, SO_ERROR, &err, &len) == 0 &&
            err == 0) {
          ::freeaddrinfo(list);
          return fd;
        }
        last = err ? std::strerror(err) : "timed out";
      } else {
        last = std::strerror(errno);
      }
      ::close(fd);
    }
    ::freeaddrinfo(list);
    fail("remote {}: cannot connect: {} (is `mlipc serve` running there?)", at.shown(), last);
  }

  RemoteEndpoint at_;
  Socket sock_;
};

void check_name(const RemoteEndpoint& at, const std::string& name) {
  mlrx_why why;
  if (mlrx_check_name(name.data(), name.size(), &why) != MLRX_OK)
    fail("remote {}: file name '{}': {}", at.shown(), printable(name), why.text);
}

}  // namespace

std::string RemoteEndpoint::shown() const {
  return host.find(':') != std::string::npos ? fmt::format("[{}]:{}", host, port) : fmt::format("{}:{}", host, port);
}

RemoteEndpoint parse_endpoint(const std::string& text) {
  RemoteEndpoint e;
  std::string host, port;
  if (!text.empty() && text[0] == '[') {
    const size_t close = text.find(']');
    if (close == std::string::npos || close + 1 >= text.size() || text[close + 1] != ':')
      fail("--remote '{}' is not host:port (an IPv6 address: [addr]:port)", printable(text));
    host = text.substr(1, close - 1);
    port = text.substr(close + 2);
  } else {
    const size_t colon = text.rfind(':');
    if (colon == std::string::npos || text.find(':') != colon)
      fail("--remote '{}' is not host:port (an IPv6 address: [addr]:port)", printable(text));
    host = text.substr(0, colon);
    port = text.substr(colon + 1);
  }
  if (host.empty()) fail("--remote '{}' has no host", printable(text));
  if (port.empty() || port.size() > 5 || port.find_first_not_of("0123456789") != std::string::npos ||
      std::stoi(port) < 1 || std::stoi(port) > 65535)
    fail("--remote '{}': the port must be a number from 1 to 65535", printable(text));
  e.host = host;
  e.port = std::stoi(port);
  return e;
}

std::string read_token_file(const std::filesystem::path& path) {
  char token[MLRX_MAX_TOKEN];
  size_t n = 0;
  mlrx_why why;
  if (mlrx_read_token(path.c_str(), token, &n, &why) != MLRX_OK)
    fail("--remote-token-file {}: {}", path.string(), why.text);
  return std::string(token, n);
}

RemoteResult run_remote(const RemoteEndpoint& at, const RemoteJob& job, int timeout_seconds) {
  for (const RemoteFile& f : job.inputs) check_name(at, f.name);
  for (const std::string& n : job.outputs) check_name(at, n);
  if (job.outputs.empty()) fail("remote {}: a job needs at least one output file", at.shown());
  if (job.inputs.size() > MLRX_MAX_FILES || job.outputs.size() > MLRX_MAX_FILES)
    fail("remote {}: more than {} input or output files", at.shown(), MLRX_MAX_FILES);
  const std::string runner = read_file(job.runner);
  uint64_t upload = runner.size();
  for (const RemoteFile& f : job.inputs) upload += 1 + f.name.size() + f.bytes.size();

  Connection c(at);
  c.send_frame(MLRX_HELLO, at.token);
  // Busy, a wrong token: refused here, before the upload.
  const std::string ready = c.expect(MLRX_READY, 8, at.io_timeout).second;
  if (ready.size() != 8) c.die("the server sent a damaged READY frame");
  const uint64_t limit = mlrx_get_u64(reinterpret_cast<const uint8_t*>(ready.data()));
  if (upload > limit)
    c.die(fmt::format("the runner and inputs are {} bytes; the server takes at most {} (its --max-upload)", upload,
                      limit));
  c.send_frame(MLRX_RUNNER, runner);
  for (const RemoteFile& f : job.inputs) {
    uint8_t h[MLRX_HEADER_BYTES];
    const uint8_t n = static_cast<uint8_t>(f.name.size());
    mlrx_encode_header(h, MLRX_INPUT, static_cast<uint32_t>(1 + f.name.size() + f.bytes.size()));
    c.send_all(h, sizeof h);
    c.send_all(&n, 1);
    c.send_all(f.name.data(), f.name.size());
    c.send_all(f.bytes.data(), f.bytes.size());
  }
  for (const std::string& n : job.outputs) c.send_frame(MLRX_OUTPUT, n);
  std::string runs(8, '\0');
  mlrx_put_u32(reinterpret_cast<uint8_t*>(runs.data()), job.runs);
  mlrx_put_u32(reinterpret_cast<uint8_t*>(runs.data()) + 4, static_cast<uint32_t>(timeout_seconds));
  c.send_frame(MLRX_RUNS, runs);
  c.send_frame(MLRX_START, "");

  RemoteResult r;
  // The server's --job-timeout ends the runner; this bounds the wait here.
  const std::string s = c.expect(MLRX_STATUS, MLRX_STATUS_BYTES, timeout_seconds + at.io_timeout).second;
  if (s.size() != MLRX_STATUS_BYTES) c.die("the server sent a damaged STATUS frame");
  const auto* p = reinterpret_cast<const uint8_t*>(s.data());
  r.status = static_cast<int32_t>(mlrx_get_u32(p));
  r.timed_out = mlrx_get_u32(p + 4) != 0;
  r.wall_ns = mlrx_get_u64(p + 8);
  r.user_ns = mlrx_get_u64(p + 16);
  r.sys_ns = mlrx_get_u64(p + 24);
  r.out = c.expect(MLRX_STDOUT, MLRX_MAX_STDOUT, at.io_timeout).second;
  r.err = c.expect(MLRX_STDERR, MLRX_MAX_STDERR, at.io_timeout).second;
  for (;;) {
    // An output is one tensor: at most 1 GiB whatever limit the server claims.
    const uint64_t max_file = std::min<uint64_t>(limit, limits::kMaxTensorBytes) + 1 + MLRX_MAX_NAME;
    auto [type, payload] = c.read_frame(max_file, at.io_timeout);
    if (type == MLRX_DONE) break;
    if (type != MLRX_FILE) c.die(fmt::format("the server sent {} among the output files", mlrx_type_name(type)));
    char name[MLRX_MAX_NAME + 1];
    size_t prefix = 0;
    mlrx_why why;
    if (mlrx_decode_file_prefix(reinterpret_cast<const uint8_t*>(payload.data()), payload.size(),
                                static_cast<uint32_t>(payload.size()), name, &prefix, &why) != MLRX_OK)
      c.die(fmt::format("an output file frame: {}", why.text));
    bool asked = false;
    for (const std::string& n : job.outputs) asked = asked || n == name;
    for (const RemoteFile& f : r.outputs) asked = asked && f.name != name;
    if (!asked) c.die(fmt::format("the server sent the file '{}', not asked for (or twice)", printable(name)));
    r.outputs.push_back({name, payload.substr(prefix)});
  }
  return r;
}

}  // namespace mlipc::host
