#include "ir/tensor_data.h"

#include <fp16.h>

#include <cmath>
#include <limits>
#include <optional>

#include "support/checked.h"
#include "support/error.h"
#include "support/limits.h"

namespace mlipc {

int64_t numel(const Shape& shape) {
  for (int64_t d : shape)
    if (d == 0) return 0;  // empty, however large the other axes
  int64_t n = 1;
  for (int64_t d : shape) {
    std::optional<int64_t> m = mul_i64(n, d);
    if (!m) fail("shape {} has more elements than fit in 64 bits", shape_str(shape));
    n = *m;
  }
  return n;
}

uint64_t tensor_bytes(DType dtype, const Shape& shape) {
  const int64_t n = numel(shape);
  std::optional<int64_t> b = mul_i64(n, static_cast<int64_t>(dtype_size(dtype)));
  if (n < 0 || !b) fail("{} {} has more bytes than fit in 64 bits", dtype_name(dtype), shape_str(shape));
  return static_cast<uint64_t>(*b);
}

void check_tensor_size(DType dtype, const Shape& shape) {
  for (int64_t d : shape)
    if (d < 0) fail("negative dimension in shape {}", shape_str(shape));
  const uint64_t bytes = tensor_bytes(dtype, shape);
  const uint64_t limit = limits::max_tensor_bytes();
  if (bytes > limit)
    fail("{} {} is {} bytes, more than mlipc's limit for one tensor ({})", dtype_name(dtype), shape_str(shape), bytes,
         limit % (uint64_t{1} << 30) == 0 ? fmt::format("{} GiB", limit >> 30) : fmt::format("{} bytes", limit));
}

std::string shape_str(const Shape& shape) {
  std::string s = "[";
  for (size_t i = 0; i < shape.size(); ++i) s += (i ? "," : "") + std::to_string(shape[i]);
  return s + "]";
}

std::vector<int64_t> strides_of(const Shape& shape) {
  std::vector<int64_t> s(shape.size(), 1);
  for (int i = static_cast<int>(shape.size()) - 2; i >= 0; --i) s[i] = s[i + 1] * shape[i + 1];
  return s;
}

TensorData::TensorData(DType dtype, Shape shape) : dtype_(dtype), shape_(std::move(shape)) {
  check_tensor_size(dtype_, shape_);
  bytes_.assign(static_cast<size_t>(tensor_bytes(dtype_, shape_)), 0);
}

TensorData::TensorData(DType dtype, Shape shape, std::vector<uint8_t> bytes)
    : dtype_(dtype), shape_(std::move(shape)), bytes_(std::move(bytes)) {
  check_tensor_size(dtype_, shape_);
  size_t want = static_cast<size_t>(tensor_bytes(dtype_, shape_));
  if (bytes_.size() != want)
    fail("tensor of {} {} needs {} bytes, got {}", dtype_name(dtype_), shape_str(shape_), want, bytes_.size());
}

void TensorData::check_type(DType want) const {
  if (want != dtype_) fail("internal: tensor of {} accessed as {}", dtype_name(dtype_), dtype_name(want));
}

void TensorData::fail_size(size_t got) { fail("internal: tensor element count does not match its shape ({})", got); }

float half_to_float(uint16_t h) { return fp16_ieee_to_fp32_value(h); }
uint16_t float_to_half(float f) { return fp16_ieee_from_fp32_value(f); }
float bfloat16_to_float(uint16_t h) {
  uint32_t u = static_cast<uint32_t>(h) << 16;
  float f;
  std::memcpy(&f, &u, 4);
  return f;
}
uint16_t float_to_bfloat16(float f) {
  uint32_t u;
  std::memcpy(&u, &f, 4);
  if (std::isnan(f)) return static_cast<uint16_t>((u >> 16) | 0x40);
  u += 0x7fff + ((u >> 16) & 1);  // round to nearest even
  return static_cast<uint16_t>(u >> 16);
}

double TensorData::at(int64_t i) const {
  switch (dtype_) {
    case DType::Float16: return half_to_float(raw_as<uint16_t>()[i]);
    case DType::BFloat16: return bfloat16_to_float(raw_as<uint16_t>()[i]);
    case DType::Bool: return raw()[i] ? 1.0 : 0.0;
    default:
      return visit_numeric(dtype_, "conversion to double",
                           [&](auto tag) { return static_cast<double>(raw_as<typename decltype(tag)::type>()[i]); });
  }
}

std::vector<double> TensorData::as_double() const {
  const int64_t n = numel();  // once: numel checks the shape each call
  std::vector<double> out(static_cast<size_t>(n));
  for (int64_t i = 0; i < n; ++i) out[i] = at(i);
  return out;
}

std::vector<int64_t> TensorData::as_int64() const {
  if (!dtype_is_integer(dtype_) && dtype_ != DType::Bool)
    fail("expected an integer tensor, got {}", dtype_name(dtype_));
  const int64_t n = numel();
  std::vector<int64_t> out(static_cast<size_t>(n));
  if (dtype_ == DType::Bool) {
    for (int64_t i = 0; i < n; ++i) out[i] = raw()[i] ? 1 : 0;
    return out;
  }
  visit_numeric(dtype_, "integer conversion", [&](auto tag) {
    using T = typename decltype(tag)::type;
    for (int64_t i = 0; i < n; ++i) out[i] = static_cast<int64_t>(raw_as<T>()[i]);
  });
  return out;
}

namespace {
// Float to integer as ONNX Cast does in practice (C truncation), saturating
// instead of invoking undefined behaviour for out-of-range values.
template <class T>
T float_to_int(double v) {
  if (std::isnan(v)) return 0;
  double lo = static_cast<double>(std::numeric_limits<T>::lowest());
  double hi = static_cast<double>(std::numeric_limits<T>::max());
  if (v <= lo) return std::numeric_limits<T>::lowest();
  if (v >= hi) return std::numeric_limits<T>::max();
  return static_cast<T>(v);
}
}  // namespace

TensorData TensorData::cast(DType to) const {
  if (to == dtype_) return *this;
  TensorData out(to, shape_);
  const int64_t n = numel();
  const bool from_int = dtype_is_integer(dtype_) || dtype_ == DType::Bool;
  std::vector<int64_t> ints;
  if (from_int) ints = as_int64();
  for (int64_t i = 0; i < n; ++i) {
    const double v = from_int ? static_cast<double>(ints[i]) : at(i);
    switch (to) {
      case DType::Float16: out.raw_as<uint16_t>()[i] = float_to_half(static_cast<float>(v)); break;
      case DType::BFloat16: out.raw_as<uint16_t>()[i] = float_to_bfloat16(static_cast<float>(v)); break;
      case DType::Bool: out.raw()[i] = v != 0.0; break;
      case DType::Float32: out.raw_as<float>()[i] = static_cast<float>(v); break;
      case DType::Float64: out.raw_as<double>()[i] = v; break;
      default:
        visit_numeric(to, "cast", [&](auto tag) {
          using T = typename decltype(tag)::type;
          // Integer to integer keeps two's-complement wrap-around, as numpy does.
          out.raw_as<T>()[i] = from_int ? static_cast<T>(ints[i]) : float_to_int<T>(v);
        });
    }
  }
  return out;
}

TensorData TensorData::reshaped(Shape shape) const {
  if (mlipc::numel(shape) != numel()) fail("cannot reshape {} to {}", shape_str(shape_), shape_str(shape));
  TensorData t = *this;
  t.shape_ = std::move(shape);
  return t;
}

}  // namespace mlipc
