#include "mlf/params.h"

#include <algorithm>
#include <limits>

#include "support/error.h"

namespace mlipc::mlf {

namespace {

constexpr int32_t kDLCPU = 1;
constexpr uint8_t kDLInt = 0, kDLUInt = 1, kDLFloat = 2, kDLBfloat = 4, kDLBool = 6;

bool host_is_big_endian() {
  const uint16_t one = 1;
  return *reinterpret_cast<const uint8_t*>(&one) == 0;
}

// The format is little-endian (dmlc::Stream swaps on big-endian hosts).
template <class T>
void put_le(std::string& out, T v) {
  using U = std::make_unsigned_t<T>;
  U u = static_cast<U>(v);
  for (size_t i = 0; i < sizeof(T); ++i) out.push_back(static_cast<char>((u >> (8 * i)) & 0xff));
}

void put_data(std::string& out, const TensorData& t) {
  const char* p = reinterpret_cast<const char*>(t.raw());
  size_t elem = dtype_size(t.dtype());
  if (!host_is_big_endian() || elem == 1) {
    out.append(p, t.nbytes());
    return;
  }
  for (size_t i = 0; i < t.nbytes(); i += elem)
    for (size_t j = elem; j-- > 0;) out.push_back(p[i + j]);
}

// TVM's DLDataType for each DType: {code, bits}. bool is TVM's uint1.
std::pair<uint8_t, uint8_t> dl_type(DType t) {
  if (t == DType::Bool) return {kDLUInt, 1};
  return {dtype_dlpack_code(t), dtype_bits(t)};
}

DType from_dl_type(uint8_t code, uint8_t bits) {
  auto sized = [bits](DType d8, DType d16, DType d32, DType d64) {
    switch (bits) {
      case 8: return d8;
      case 16: return d16;
      case 32: return d32;
      case 64: return d64;
      default: return DType::Undefined;
    }
  };
  switch (code) {
    case kDLInt: return sized(DType::Int8, DType::Int16, DType::Int32, DType::Int64);
    case kDLUInt:
      return bits == 1 ? DType::Bool : sized(DType::UInt8, DType::UInt16, DType::UInt32, DType::UInt64);
    case kDLFloat: return sized(DType::Undefined, DType::Float16, DType::Float32, DType::Float64);
    case kDLBfloat: return bits == 16 ? DType::BFloat16 : DType::Undefined;
    case kDLBool: return bits == 8 ? DType::Bool : DType::Undefined;
    default: return DType::Undefined;
  }
}

class Reader {
 public:
  Reader(std::string_view bytes, std::string_view what) : b_(bytes), what_(what) {}

  size_t left() const { return b_.size() - pos_; }
  size_t pos() const { return pos_; }

  std::string_view take(size_t n, const std::string& field) {
    if (left() < n)
      fail("{}: truncated: {} needs {} bytes at offset {}, only {} left", what_, field, n, pos_, left());
    std::string_view s = b_.substr(pos_, n);
    pos_ += n;
    return s;
  }

  template <class T>
  T get(const std::string& field) {
    std::string_view s = take(sizeof(T), field);
    std::make_unsigned_t<T> u = 0;
    for (size_t i = 0; i < sizeof(T); ++i)
      u |= static_cast<std::make_unsigned_t<T>>(static_cast<uint8_t>(s[i])) << (8 * i);
    return static_cast<T>(u);
  }

 private:
  std::string_view b_;
  std::string_view what_;
  size_t pos_ = 0;
};

}  // namespace

std::string write_params(const std::vector<std::pair<std::string, const TensorData*>>& params) {
  std::string out;
  put_le<uint64_t>(out, kTVMNDArrayListMagic);
  put_le<uint64_t>(out, 0);  // reserved
  put_le<uint64_t>(out, params.size());
  for (const auto& [name, t] : params) {
    put_le<uint64_t>(out, name.size());
    out += name;
  }
  put_le<uint64_t>(out, params.size());
  for (const auto& [name, t] : params) {
    if (t == nullptr) fail("params: '{}' has no tensor", name);
    if (t->dtype() == DType::Undefined) fail("params: '{}' has no dtype", name);
    auto [code, bits] = dl_type(t->dtype());
    put_le<uint64_t>(out, kTVMNDArrayMagic);
    put_le<uint64_t>(out, 0);  // reserved
    put_le<int32_t>(out, kDLCPU);
    put_le<int32_t>(out, 0);  // device_id
    put_le<int32_t>(out, t->rank());
    put_le<uint8_t>(out, code);
    put_le<uint8_t>(out, bits);
    put_le<uint16_t>(out, 1);  // lanes
    for (int64_t d : t->shape()) put_le<int64_t>(out, d);
    put_le<int64_t>(out, static_cast<int64_t>(t->nbytes()));
    put_data(out, *t);
  }
  return out;
}

std::vector<std::pair<std::string, TensorData>> read_params(std::string_view bytes, std::string_view what) {
  Reader r(bytes, what);
  uint64_t magic = r.get<uint64_t>("the file magic");
  if (magic != kTVMNDArrayListMagic)
    fail("{}: not a TVM .params file (magic {:#018x}, expected {:#018x})", what, magic, kTVMNDArrayListMagic);
  r.get<uint64_t>("the reserved word");

  uint64_t count = r.get<uint64_t>("the name count");
  if (count > r.left() / 8) fail("{}: truncated or corrupt: {} names cannot fit in the {} bytes left", what, count, r.left());
  std::vector<std::string> names;
  for (uint64_t i = 0; i < count; ++i) {
    uint64_t len = r.get<uint64_t>(fmt::format("the length of name {}", i));
    if (len > r.left()) fail("{}: truncated: name {} is {} bytes, only {} left", what, i, len, r.left());
    names.emplace_back(r.take(static_cast<size_t>(len), "a name"));
  }
  uint64_t arrays = r.get<uint64_t>("the array count");
  if (arrays != count) fail("{}: corrupt: {} names but {} arrays", what, count, arrays);

  std::vector<std::pair<std::string, TensorData>> out;
  for (const std::string& name : names) {
    const std::string field = fmt::format("array '{}'", name);
    auto where = [&](std::string_view part) { return field + " " + std::string(part); };
    if (r.get<uint64_t>(where("magic")) != kTVMNDArrayMagic)
      fail("{}: corrupt: {} does not start with the NDArray magic number", what, field);
    r.get<uint64_t>(where("reserved word"));
    int32_t device_type = r.get<int32_t>(where("device"));
    r.get<int32_t>(where("device id"));
    if (device_type != kDLCPU) fail("{}: {} has device type {}, expected CPU (1)", what, field, device_type);
    int32_t ndim = r.get<int32_t>(where("ndim"));
    if (ndim < 0) fail("{}: corrupt: {} has ndim {}", what, field, ndim);
    uint8_t code = r.get<uint8_t>(where("dtype code"));
    uint8_t bits = r.get<uint8_t>(where("dtype bits"));
    uint16_t lanes = r.get<uint16_t>(where("dtype lanes"));
    DType dtype = from_dl_type(code, bits);
    if (dtype == DType::Undefined || lanes != 1)
      fail("{}: {} has an unsupported dtype (code {}, bits {}, lanes {})", what, field, code, bits, lanes);
    Shape shape;
    uint64_t elems = 1;
    for (int32_t i = 0; i < ndim; ++i) {
      int64_t d = r.get<int64_t>(where("shape"));
      if (d < 0) fail("{}: corrupt: {} has a negative dimension {}", what, field, d);
      if (d != 0 && elems > std::numeric_limits<uint64_t>::max() / 8 / static_cast<uint64_t>(d))
        fail("{}: corrupt: {} has an impossibly large shape", what, field);
      elems *= static_cast<uint64_t>(d);
      shape.push_back(d);
    }
    uint64_t want = elems * dtype_size(dtype);
    int64_t nbytes = r.get<int64_t>(where("byte count"));
    if (nbytes < 0 || static_cast<uint64_t>(nbytes) != want)
      fail("{}: corrupt: {} says {} data bytes but {} {} needs {}", what, field, nbytes, dtype_name(dtype),
           shape_str(shape), want);
    std::string_view data = r.take(static_cast<size_t>(want), where("data"));
    std::vector<uint8_t> raw(data.begin(), data.end());
    size_t elem = dtype_size(dtype);
    if (host_is_big_endian() && elem > 1)
      for (size_t i = 0; i < raw.size(); i += elem) std::reverse(raw.begin() + i, raw.begin() + i + elem);
    out.emplace_back(name, TensorData(dtype, std::move(shape), std::move(raw)));
  }
  return out;
}

}  // namespace mlipc::mlf
