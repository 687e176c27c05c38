// The remote-run protocol's parser (serve/protocol.h) on hostile frames:
// lengths past the end, zero and huge; bad names; frames out of order; a
// request past its limits. The server and the client share these checks.
#include <gtest/gtest.h>

#include <cstring>
#include <string>

#include "host/remote_client.h"
#include "serve/protocol.h"
#include "support/error.h"

namespace mlipc::unit_serve_protocol {

mlrx_header header(uint8_t type, uint32_t length) {
  uint8_t h[MLRX_HEADER_BYTES];
  mlrx_encode_header(h, type, length);
  mlrx_header hd{};
  mlrx_why why;
  EXPECT_EQ(mlrx_decode_header(h, &hd, &why), MLRX_OK) << why.text;
  return hd;
}

TEST(ServeProtocol, HeaderRoundTripsAndRefusesDamage) {
  uint8_t h[MLRX_HEADER_BYTES];
  mlrx_encode_header(h, MLRX_RUNNER, 0xfffffff0u);
  mlrx_header hd{};
  mlrx_why why;
  ASSERT_EQ(mlrx_decode_header(h, &hd, &why), MLRX_OK);
  EXPECT_EQ(hd.type, MLRX_RUNNER);
  EXPECT_EQ(hd.length, 0xfffffff0u);
  uint8_t bad[MLRX_HEADER_BYTES];
  std::memcpy(bad, h, sizeof h);
  bad[0] = 'X';
  EXPECT_EQ(mlrx_decode_header(bad, &hd, &why), MLRX_E_PROTOCOL);
  EXPECT_STREQ(why.text, "not an mlipc remote-run frame (bad magic)");
  std::memcpy(bad, h, sizeof h);
  bad[4] = 2;
  EXPECT_EQ(mlrx_decode_header(bad, &hd, &why), MLRX_E_PROTOCOL);
  EXPECT_STREQ(why.text, "protocol version 2, this side speaks 1");
  std::memcpy(bad, h, sizeof h);
  bad[7] = 1;
  EXPECT_EQ(mlrx_decode_header(bad, &hd, &why), MLRX_E_PROTOCOL);
  for (int t : {0, 7, 15, 22, 30, 32, 255}) {
    std::memcpy(bad, h, sizeof h);
    bad[5] = static_cast<uint8_t>(t);
    EXPECT_EQ(mlrx_decode_header(bad, &hd, &why), MLRX_E_PROTOCOL) << t;
  }
}

TEST(ServeProtocol, NamesArePlainFileNames) {
  mlrx_why why;
  for (const char* ok : {"in0.bin", "a", "OUT_1-x.npy", "x..y"})
    EXPECT_EQ(mlrx_check_name(ok, std::strlen(ok), &why), MLRX_OK) << ok;
  for (const char* bad : {"", ".", "..", "../x", "a/b", "/etc/passwd", ".runner", ".stdout", "a b", "a\\b", "-\n"})
    EXPECT_NE(mlrx_check_name(bad, std::strlen(bad), &why), MLRX_OK) << bad;
  const std::string nul("a\0b", 3);
  EXPECT_NE(mlrx_check_name(nul.data(), nul.size(), &why), MLRX_OK);
  const std::string longest(MLRX_MAX_NAME, 'a');
  EXPECT_EQ(mlrx_check_name(longest.data(), longest.size(), &why), MLRX_OK);
  EXPECT_EQ(mlrx_check_name((longest + "a").data(), longest.size() + 1, &why), MLRX_E_LIMIT);
}

TEST(ServeProtocol, FilePrefixLengthsPastTheEnd) {
  char name[MLRX_MAX_NAME + 1];
  size_t prefix = 0;
  mlrx_why why;
  const uint8_t good[] = {6, 'i', 'n', '0', '.', 'b', 'n', 1, 2, 3};
  ASSERT_EQ(mlrx_decode_file_prefix(good, sizeof good, sizeof good, name, &prefix, &why), MLRX_OK);
  EXPECT_STREQ(name, "in0.bn");
  EXPECT_EQ(prefix, 7u);
  // The name's length byte past the frame, past what was read, zero.
  EXPECT_NE(mlrx_decode_file_prefix(good, sizeof good, 5, name, &prefix, &why), MLRX_OK);
  EXPECT_NE(mlrx_decode_file_prefix(good, 3, sizeof good, name, &prefix, &why), MLRX_OK);
  EXPECT_NE(mlrx_decode_file_prefix(good, 0, 0, name, &prefix, &why), MLRX_OK);
  const uint8_t zero[] = {0, 'a'};
  EXPECT_NE(mlrx_decode_file_prefix(zero, sizeof zero, sizeof zero, name, &prefix, &why), MLRX_OK);
  const uint8_t huge[] = {255, 'a', 'b'};
  EXPECT_NE(mlrx_decode_file_prefix(huge, sizeof huge, 0xffffffffu, name, &prefix, &why), MLRX_OK);
  const uint8_t dots[] = {2, '.', '.'};
  EXPECT_NE(mlrx_decode_file_prefix(dots, sizeof dots, sizeof dots, name, &prefix, &why), MLRX_OK);
  const uint8_t slash[] = {4, 'a', '/', 'b', 'c'};
  EXPECT_NE(mlrx_decode_file_prefix(slash, sizeof slash, sizeof slash, name, &prefix, &why), MLRX_OK);
}

TEST(ServeProtocol, RequestInOrderWithinLimits) {
  mlrx_request r;
  mlrx_why why;
  mlrx_request_init(&r, 1000);
  for (auto [type, len] : {std::pair<int, uint32_t>{MLRX_HELLO, 5}, {MLRX_RUNNER, 600}, {MLRX_INPUT, 300},
                           {MLRX_INPUT, 100}, {MLRX_OUTPUT, 8}, {MLRX_RUNS, 8}, {MLRX_OUTPUT, 8}, {MLRX_START, 0}}) {
    const mlrx_header h = header(static_cast<uint8_t>(type), len);
    EXPECT_EQ(mlrx_request_accept(&r, &h, &why), MLRX_OK) << mlrx_type_name(type) << ": " << why.text;
  }
  EXPECT_EQ(r.uploaded, 1000u);
}

// Each hostile sequence: the frames before the bad one pass, the bad one is refused with `code`.
struct Hostile {
  const char* what;
  std::vector<std::pair<int, uint32_t>> frames;
  int code;
};

TEST(ServeProtocol, RequestRefusesHostileSequences) {
  const std::vector<Hostile> cases = {
      {"runner first", {{MLRX_RUNNER, 10}}, MLRX_E_PROTOCOL},
      {"huge token", {{MLRX_HELLO, MLRX_MAX_TOKEN + 1}}, MLRX_E_LIMIT},
      {"hello twice", {{MLRX_HELLO, 0}, {MLRX_HELLO, 0}}, MLRX_E_PROTOCOL},
      {"empty runner", {{MLRX_HELLO, 0}, {MLRX_RUNNER, 0}}, MLRX_E_PROTOCOL},
      {"runner past the limit", {{MLRX_HELLO, 0}, {MLRX_RUNNER, 1001}}, MLRX_E_LIMIT},
      {"huge runner", {{MLRX_HELLO, 0}, {MLRX_RUNNER, 0xffffffffu}}, MLRX_E_LIMIT},
      {"inputs past the total", {{MLRX_HELLO, 0}, {MLRX_RUNNER, 900}, {MLRX_INPUT, 50}, {MLRX_INPUT, 51}}, MLRX_E_LIMIT},
      {"input without a name", {{MLRX_HELLO, 0}, {MLRX_RUNNER, 9}, {MLRX_INPUT, 1}}, MLRX_E_PROTOCOL},
      {"input after an output", {{MLRX_HELLO, 0}, {MLRX_RUNNER, 9}, {MLRX_OUTPUT, 3}, {MLRX_INPUT, 5}}, MLRX_E_PROTOCOL},
      {"empty output name", {{MLRX_HELLO, 0}, {MLRX_RUNNER, 9}, {MLRX_OUTPUT, 0}}, MLRX_E_LIMIT},
      {"long output name", {{MLRX_HELLO, 0}, {MLRX_RUNNER, 9}, {MLRX_OUTPUT, MLRX_MAX_NAME + 1}}, MLRX_E_LIMIT},
      {"runs of 4 bytes", {{MLRX_HELLO, 0}, {MLRX_RUNNER, 9}, {MLRX_RUNS, 4}}, MLRX_E_PROTOCOL},
      {"runs twice", {{MLRX_HELLO, 0}, {MLRX_RUNNER, 9}, {MLRX_RUNS, 8}, {MLRX_RUNS, 8}}, MLRX_E_PROTOCOL},
      {"start without output", {{MLRX_HELLO, 0}, {MLRX_RUNNER, 9}, {MLRX_START, 0}}, MLRX_E_PROTOCOL},
      {"start with payload", {{MLRX_HELLO, 0}, {MLRX_RUNNER, 9}, {MLRX_OUTPUT, 3}, {MLRX_START, 1}}, MLRX_E_PROTOCOL},
      {"a server frame", {{MLRX_HELLO, 0}, {MLRX_STATUS, 32}}, MLRX_E_PROTOCOL},
      {"an error frame", {{MLRX_ERROR, 3}}, MLRX_E_PROTOCOL},
  };
  for (const Hostile& c : cases) {
    mlrx_request r;
    mlrx_why why;
    mlrx_request_init(&r, 1000);
    for (size_t i = 0; i < c.frames.size(); ++i) {
      const mlrx_header h = header(static_cast<uint8_t>(c.frames[i].first), c.frames[i].second);
      const int rc = mlrx_request_accept(&r, &h, &why);
      if (i + 1 < c.frames.size()) {
        ASSERT_EQ(rc, MLRX_OK) << c.what << " frame " << i << ": " << why.text;
      } else {
        EXPECT_EQ(rc, c.code) << c.what;
      }
    }
  }
  // 65 inputs.
  mlrx_request r;
  mlrx_why why;
  mlrx_request_init(&r, 1u << 20);
  mlrx_header h = header(MLRX_HELLO, 0);
  ASSERT_EQ(mlrx_request_accept(&r, &h, &why), MLRX_OK);
  h = header(MLRX_RUNNER, 1);
  ASSERT_EQ(mlrx_request_accept(&r, &h, &why), MLRX_OK);
  h = header(MLRX_INPUT, 2);
  for (int i = 0; i < MLRX_MAX_FILES; ++i) ASSERT_EQ(mlrx_request_accept(&r, &h, &why), MLRX_OK);
  EXPECT_EQ(mlrx_request_accept(&r, &h, &why), MLRX_E_LIMIT);
}

TEST(ServeProtocol, TokensCompareWholly) {
  EXPECT_TRUE(mlrx_token_equal("secret", 6, "secret", 6));
  EXPECT_TRUE(mlrx_token_equal("", 0, "", 0));
  EXPECT_FALSE(mlrx_token_equal("secret", 6, "secreT", 6));
  EXPECT_FALSE(mlrx_token_equal("secret", 6, "secret2", 7));
  EXPECT_FALSE(mlrx_token_equal("", 0, "x", 1));
  EXPECT_FALSE(mlrx_token_equal("a\0b", 3, "a\0c", 3));
}

TEST(ServeProtocol, EndpointsAreHostAndPort) {
  EXPECT_EQ(host::parse_endpoint("127.0.0.1:9000").shown(), "127.0.0.1:9000");
  EXPECT_EQ(host::parse_endpoint("board.local:1").port, 1);
  EXPECT_EQ(host::parse_endpoint("[::1]:80").shown(), "[::1]:80");
  for (const char* bad : {"", "host", ":80", "host:", "host:0", "host:65536", "host:8x", "::1:80", "[::1]80", "h:-1"})
    EXPECT_THROW(host::parse_endpoint(bad), Error) << bad;
}

}  // namespace mlipc::unit_serve_protocol
