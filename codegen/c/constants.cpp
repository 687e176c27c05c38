#include "c/constants.h"

#include <fmt/format.h>

#include "c/kernel.h"

namespace mlipc::c {

std::string c_array_literal(const TensorData& t) {
  std::string s = "{";
  const int64_t n = t.numel();
  s.reserve(static_cast<size_t>(n) * 12 + 8);
  for (int64_t i = 0; i < n; ++i) {
    if (i % 8 == 0) s += "\n  ";
    switch (t.dtype()) {
      case DType::Float32: s += c_float(t.raw_as<float>()[i]); break;
      case DType::Float64: s += c_double(t.raw_as<double>()[i]); break;
      case DType::Float16: case DType::BFloat16: s += fmt::format("0x{:04x}", t.raw_as<uint16_t>()[i]); break;
      case DType::UInt64: s += fmt::format("{}ULL", t.raw_as<uint64_t>()[i]); break;
      case DType::UInt32: s += fmt::format("{}u", t.raw_as<uint32_t>()[i]); break;
      case DType::Bool: case DType::UInt8: s += std::to_string(t.raw()[i]); break;
      case DType::UInt16: s += std::to_string(t.raw_as<uint16_t>()[i]); break;
      case DType::Int8: s += c_int(t.raw_as<int8_t>()[i]); break;
      case DType::Int16: s += c_int(t.raw_as<int16_t>()[i]); break;
      case DType::Int32: s += c_int(t.raw_as<int32_t>()[i]); break;
      default: s += c_int(t.raw_as<int64_t>()[i]); break;
    }
    if (i + 1 < n) s += ",";
  }
  return s + "\n}";
}

}  // namespace mlipc::c
