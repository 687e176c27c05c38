#include "mlf/params.h"

#include <gtest/gtest.h>

#include "support/error.h"

namespace mlipc::mlf::unit_mlf_params {
namespace {

std::string error_of(std::string_view bytes) {
  try {
    read_params(bytes, "model.params");
  } catch (const Error& e) {
    return e.what();
  }
  return "<no error>";
}

template <class T>
void put(std::string& s, T v) {
  for (size_t i = 0; i < sizeof(T); ++i) s.push_back(static_cast<char>((static_cast<uint64_t>(v) >> (8 * i)) & 0xff));
}

TEST(Params, RoundTrip) {
  TensorData w = TensorData::from<float>({2, 3}, {1, 2, 3, 4, 5, 6});
  TensorData b = TensorData::from<int32_t>({3}, {-1, 0, 1});
  TensorData s = TensorData::scalar<int64_t>(42);
  TensorData q(DType::Bool, {2}, {1, 0});
  TensorData h(DType::Float16, {1}, {0x00, 0x3c});
  TensorData bf(DType::BFloat16, {1}, {0x80, 0x3f});
  TensorData e(DType::UInt8, {0, 4});
  std::string bytes = write_params({{"p0_w", &w}, {"b", &b}, {"s", &s}, {"q", &q}, {"h", &h}, {"bf", &bf}, {"e", &e}});
  auto back = read_params(bytes);
  ASSERT_EQ(back.size(), 7u);
  std::vector<std::pair<std::string, const TensorData*>> want = {{"p0_w", &w}, {"b", &b}, {"s", &s}, {"q", &q},
                                                                 {"h", &h},    {"bf", &bf}, {"e", &e}};
  for (size_t i = 0; i < want.size(); ++i) {
    EXPECT_EQ(back[i].first, want[i].first);
    EXPECT_EQ(back[i].second, *want[i].second) << want[i].first;
  }
  EXPECT_TRUE(read_params(write_params({})).empty());
}

// The exact bytes of TVM's SaveParams for one float32 [2] array named "w".
TEST(Params, ByteLayoutMatchesTvm) {
  TensorData w = TensorData::from<float>({2}, {1.0f, -2.0f});
  std::string want;
  put<uint64_t>(want, 0xF7E58D4F05049CB7ull);  // kTVMNDArrayListMagic
  put<uint64_t>(want, 0);                      // reserved
  put<uint64_t>(want, 1);                      // names
  put<uint64_t>(want, 1);
  want += "w";
  put<uint64_t>(want, 1);                      // arrays
  put<uint64_t>(want, 0xDD5E40F096B4A13Full);  // kTVMNDArrayMagic
  put<uint64_t>(want, 0);                      // reserved
  put<int32_t>(want, 1);                       // DLDevice {kDLCPU, 0}
  put<int32_t>(want, 0);
  put<int32_t>(want, 1);                       // ndim
  put<uint8_t>(want, 2);                       // DLDataType {kDLFloat, 32, 1}
  put<uint8_t>(want, 32);
  put<uint16_t>(want, 1);
  put<int64_t>(want, 2);                       // shape
  put<int64_t>(want, 8);                       // data bytes
  want += std::string("\x00\x00\x80\x3f\x00\x00\x00\xc0", 8);
  EXPECT_EQ(write_params({{"w", &w}}), want);

  // bool is TVM's uint1: code kDLUInt, 1 bit, one byte per element.
  TensorData q(DType::Bool, {1}, {1});
  std::string qb = write_params({{"q", &q}});
  EXPECT_EQ(qb.substr(8 * 5 + 1 + 8 * 2 + 4 * 3, 4), std::string("\x01\x01\x01\x00", 4));
}

TEST(Params, TruncatedInputIsAnErrorAtEveryLength) {
  TensorData w = TensorData::from<float>({2, 2}, {1, 2, 3, 4});
  TensorData s = TensorData::scalar<int8_t>(3);
  std::string bytes = write_params({{"weight", &w}, {"s", &s}});
  for (size_t n = 0; n < bytes.size(); ++n) {
    std::string msg = error_of(bytes.substr(0, n));
    EXPECT_EQ(msg.rfind("model.params: ", 0), 0u) << n << ": " << msg;
    EXPECT_NE(msg.find("truncated"), std::string::npos) << n << ": " << msg;
  }
  EXPECT_EQ(read_params(bytes).size(), 2u);
}

TEST(Params, CorruptInputErrors) {
  TensorData w = TensorData::from<float>({2}, {1, 2});
  const std::string good = write_params({{"w", &w}});
  const size_t arr = 8 * 3 + 8 + 1 + 8;  // start of the array record
  auto patched = [&](size_t at, std::string with) {
    std::string b = good;
    b.replace(at, with.size(), with);
    return error_of(b);
  };
  EXPECT_NE(error_of(std::string(64, 'x')).find("not a TVM .params file"), std::string::npos);
  EXPECT_NE(patched(arr, "XXXXXXXX").find("NDArray magic"), std::string::npos);
  EXPECT_NE(patched(arr + 16, std::string("\x02\x00\x00\x00", 4)).find("device type 2"), std::string::npos);
  EXPECT_NE(patched(arr + 24, std::string("\xff\xff\xff\xff", 4)).find("ndim -1"), std::string::npos);
  EXPECT_NE(patched(arr + 28, std::string("\x05", 1)).find("unsupported dtype (code 5"), std::string::npos);
  EXPECT_NE(patched(arr + 30, std::string("\x04", 1)).find("lanes 4"), std::string::npos);
  EXPECT_NE(patched(arr + 32, std::string("\xfd\xff\xff\xff\xff\xff\xff\xff", 8)).find("negative dimension"),
            std::string::npos);
  EXPECT_NE(patched(arr + 40, std::string("\x09", 1)).find("says 9 data bytes"), std::string::npos);
  EXPECT_NE(patched(24 + 8 + 1, std::string("\x02", 1)).find("1 names but 2 arrays"), std::string::npos);
  // A huge name count or name length does not allocate, it fails.
  EXPECT_NE(patched(16, std::string(8, '\xff')).find("corrupt"), std::string::npos);
  EXPECT_NE(patched(24, std::string(8, '\x7f')).find("truncated"), std::string::npos);
  EXPECT_THROW(write_params({{"null", nullptr}}), Error);
}

}  // namespace
}  // namespace mlipc::mlf::unit_mlf_params
