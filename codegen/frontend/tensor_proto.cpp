#include "frontend/tensor_proto.h"

#include <charconv>
#include <cstring>
#include <limits>
#include <optional>
#include <type_traits>

#include "support/error.h"
#include "support/file_util.h"
#include "support/text.h"

namespace fs = std::filesystem;

namespace mlipc::frontend {

DType dtype_from_onnx(int32_t t, const std::string& what) {
  switch (t) {
    case onnx::TensorProto::FLOAT: return DType::Float32;
    case onnx::TensorProto::UINT8: return DType::UInt8;
    case onnx::TensorProto::INT8: return DType::Int8;
    case onnx::TensorProto::UINT16: return DType::UInt16;
    case onnx::TensorProto::INT16: return DType::Int16;
    case onnx::TensorProto::INT32: return DType::Int32;
    case onnx::TensorProto::INT64: return DType::Int64;
    case onnx::TensorProto::BOOL: return DType::Bool;
    case onnx::TensorProto::FLOAT16: return DType::Float16;
    case onnx::TensorProto::DOUBLE: return DType::Float64;
    case onnx::TensorProto::UINT32: return DType::UInt32;
    case onnx::TensorProto::UINT64: return DType::UInt64;
    case onnx::TensorProto::BFLOAT16: return DType::BFloat16;
    default: break;
  }
  // Types newer than the onnx library mlipc links (ONNX 1.14 and later) by
  // their spec names, so that a float8 or int4 model is told what it holds.
  static const char* const kNewer[] = {"FLOAT8E4M3FN", "FLOAT8E4M3FNUZ", "FLOAT8E5M2", "FLOAT8E5M2FNUZ",
                                       "UINT4",        "INT4",           "FLOAT4E2M1"};
  std::string name = onnx::TensorProto::DataType_IsValid(t)
                         ? onnx::TensorProto::DataType_Name(static_cast<onnx::TensorProto::DataType>(t))
                         : (t >= 17 && t <= 23 ? kNewer[t - 17] : "unknown");
  fail("{}: element type {} ({}) is not supported", what, name, t);
}

onnx::TensorProto::DataType onnx_dtype(DType t) {
  for (int32_t k = onnx::TensorProto::DataType_MIN; k <= onnx::TensorProto::BFLOAT16; ++k) {
    if (!onnx::TensorProto::DataType_IsValid(k)) continue;
    try {
      if (dtype_from_onnx(k, "") == t) return static_cast<onnx::TensorProto::DataType>(k);
    } catch (const Error&) {
      // a type mlipc does not hold (string, complex)
    }
  }
  fail("internal: no ONNX element type for {}", dtype_name(t));
}

void tensor_to_proto(const TensorData& t, const std::string& name, onnx::TensorProto& out) {
  out.set_name(name);
  out.set_data_type(onnx_dtype(t.dtype()));
  for (int64_t d : t.shape()) out.add_dims(d);
  out.set_raw_data(std::string(reinterpret_cast<const char*>(t.raw()), t.nbytes()));
}

namespace {

template <class T, class Field>
void copy_field(TensorData& out, const Field& field, const std::string& what) {
  if (static_cast<int64_t>(field.size()) != out.numel())
    fail("{}: has {} values but its shape {} needs {}", what, field.size(), shape_str(out.shape()), out.numel());
  T* dst = out.raw_as<T>();
  for (int i = 0; i < field.size(); ++i) {
    // A narrow integer held in a wider field (int8 in int32_data, ...) must
    // fit its type: a uint8 zero point written as 300 is refused, not read as 44.
    if constexpr (std::is_integral_v<T> && !std::is_same_v<T, bool>) {
      const auto v = field.Get(i);
      using V = decltype(v);
      const bool fits = std::is_signed_v<V> ? static_cast<int64_t>(v) >= static_cast<int64_t>(std::numeric_limits<T>::min()) &&
                                                  static_cast<int64_t>(v) <= static_cast<int64_t>(std::numeric_limits<T>::max())
                                            : static_cast<uint64_t>(v) <= static_cast<uint64_t>(std::numeric_limits<T>::max());
      if (!fits)
        fail("{}: value {} (element {}) is outside its type {} ([{}, {}])", what, v, i, dtype_name(out.dtype()),
             +std::numeric_limits<T>::min(), +std::numeric_limits<T>::max());
    }
    dst[i] = static_cast<T>(field.Get(i));
  }
}

// A decimal offset or length of external data: digits only, no sign or spaces.
uint64_t external_number(const std::string& key, const std::string& value, const std::string& what) {
  uint64_t v = 0;
  auto [end, ec] = std::from_chars(value.data(), value.data() + value.size(), v);
  if (value.empty() || ec != std::errc() || end != value.data() + value.size())
    fail("{}: external data {} '{}' is not a non-negative whole number", what, key, printable(value));
  return v;
}

// Reads only the bytes the tensor needs, from a regular file next to the
// model: never the whole file, never a device or a FIFO.
std::string read_external(const onnx::TensorProto& t, const fs::path& base_dir, uint64_t want,
                          const std::string& what) {
  std::string location;
  uint64_t offset = 0;
  std::optional<uint64_t> length;
  for (const auto& kv : t.external_data()) {
    if (kv.key() == "location") location = kv.value();
    else if (kv.key() == "offset") offset = external_number("offset", kv.value(), what);
    else if (kv.key() == "length") length = external_number("length", kv.value(), what);
  }
  if (location.empty()) fail("{}: external data without a location", what);
  fs::path p = fs::path(location);
  if (p.is_absolute() || location.find("..") != std::string::npos)
    fail("{}: external data location '{}' must be relative to the model", what, printable(location));
  if (length && *length != want)
    fail("{}: external data length {} but {} needs {} bytes", what, *length, "the tensor", want);
  return read_file_range(base_dir / p, offset, want);
}

}  // namespace

TensorData tensor_from_proto(const onnx::TensorProto& t, const fs::path& base_dir, const std::string& what) {
  DType dtype = dtype_from_onnx(t.data_type(), what);
  Shape shape(t.dims().begin(), t.dims().end());
  for (int64_t d : shape)
    if (d < 0) fail("{}: negative dimension in {}", what, shape_str(shape));
  if (t.has_segment()) fail("{}: segmented tensors are not supported", what);

  // The size is checked before anything is allocated or read.
  try {
    check_tensor_size(dtype, shape);
  } catch (const Error& e) {
    fail("{}: {}", what, e.what());
  }
  const bool external = t.data_location() == onnx::TensorProto::EXTERNAL;
  if (external || t.has_raw_data()) {
    const size_t want = static_cast<size_t>(tensor_bytes(dtype, shape));
    std::string raw = external ? read_external(t, base_dir, want, what) : t.raw_data();
    if (raw.size() != want)
      fail("{}: holds {} bytes but {} {} needs {} (truncated file?)", what, raw.size(), dtype_name(dtype),
           shape_str(shape), want);
    return TensorData(dtype, shape, std::vector<uint8_t>(raw.begin(), raw.end()));
  }

  // The typed field must hold one value per element; checked before the
  // tensor is allocated, so a huge shape with no data costs nothing.
  int field_size = 0;
  switch (dtype) {
    case DType::Float32: field_size = t.float_data_size(); break;
    case DType::Float64: field_size = t.double_data_size(); break;
    case DType::Int64: field_size = t.int64_data_size(); break;
    case DType::UInt32: case DType::UInt64: field_size = t.uint64_data_size(); break;
    default: field_size = t.int32_data_size(); break;
  }
  if (static_cast<int64_t>(field_size) != numel(shape))
    fail("{}: has {} values but its shape {} needs {}", what, field_size, shape_str(shape), numel(shape));
  TensorData out(dtype, shape);
  switch (dtype) {
    case DType::Float32: copy_field<float>(out, t.float_data(), what); break;
    case DType::Float64: copy_field<double>(out, t.double_data(), what); break;
    case DType::Int64: copy_field<int64_t>(out, t.int64_data(), what); break;
    case DType::UInt32: copy_field<uint32_t>(out, t.uint64_data(), what); break;
    case DType::UInt64: copy_field<uint64_t>(out, t.uint64_data(), what); break;
    case DType::Int32: copy_field<int32_t>(out, t.int32_data(), what); break;
    case DType::Int16: copy_field<int16_t>(out, t.int32_data(), what); break;
    case DType::Int8: copy_field<int8_t>(out, t.int32_data(), what); break;
    // Narrow unsigned types, bool, and the 16-bit floats (as bit patterns) live in int32_data.
    case DType::UInt16: case DType::Float16: case DType::BFloat16:
      copy_field<uint16_t>(out, t.int32_data(), what);
      break;
    case DType::UInt8: case DType::Bool: copy_field<uint8_t>(out, t.int32_data(), what); break;
    default: fail("{}: unsupported element type", what);
  }
  return out;
}

TensorData load_tensor_pb(const fs::path& path, std::string* name) {
  std::string bytes = read_file(path);
  onnx::TensorProto t;
  if (!t.ParseFromString(bytes)) fail("{}: not a serialized ONNX TensorProto", path.string());
  if (name) *name = t.name();
  return tensor_from_proto(t, path.parent_path(), path.string());
}

}  // namespace mlipc::frontend
