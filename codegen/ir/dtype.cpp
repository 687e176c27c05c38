#include "ir/dtype.h"

#include "support/error.h"

namespace mlipc {

namespace {
struct Info {
  DType t;
  std::string_view name;
  std::string_view ctype;
  size_t size;
  uint8_t dl_code;
};
// kDLInt = 0, kDLUInt = 1, kDLFloat = 2, kDLBfloat = 4 (dlpack.h).
constexpr Info kInfo[] = {
    {DType::Undefined, "undefined", "void", 0, 0},
    {DType::Float32, "float32", "float", 4, 2},
    {DType::Float16, "float16", "uint16_t", 2, 2},
    {DType::BFloat16, "bfloat16", "uint16_t", 2, 4},
    {DType::Float64, "float64", "double", 8, 2},
    {DType::Int8, "int8", "int8_t", 1, 0},
    {DType::Int16, "int16", "int16_t", 2, 0},
    {DType::Int32, "int32", "int32_t", 4, 0},
    {DType::Int64, "int64", "int64_t", 8, 0},
    {DType::UInt8, "uint8", "uint8_t", 1, 1},
    {DType::UInt16, "uint16", "uint16_t", 2, 1},
    {DType::UInt32, "uint32", "uint32_t", 4, 1},
    {DType::UInt64, "uint64", "uint64_t", 8, 1},
    {DType::Bool, "bool", "uint8_t", 1, 1},
};

const Info& info(DType t) {
  for (const auto& i : kInfo)
    if (i.t == t) return i;
  return kInfo[0];
}
}  // namespace

size_t dtype_size(DType t) { return info(t).size; }
std::string_view dtype_name(DType t) { return info(t).name; }
std::string_view dtype_ctype(DType t) { return info(t).ctype; }
uint8_t dtype_dlpack_code(DType t) { return info(t).dl_code; }
uint8_t dtype_bits(DType t) { return static_cast<uint8_t>(t == DType::Bool ? 8 : info(t).size * 8); }

DType dtype_from_name(std::string_view name) {
  for (const auto& i : kInfo)
    if (i.name == name && i.t != DType::Undefined) return i.t;
  return DType::Undefined;
}

bool dtype_is_float(DType t) {
  return t == DType::Float32 || t == DType::Float16 || t == DType::BFloat16 || t == DType::Float64;
}

bool dtype_is_integer(DType t) {
  switch (t) {
    case DType::Int8: case DType::Int16: case DType::Int32: case DType::Int64:
    case DType::UInt8: case DType::UInt16: case DType::UInt32: case DType::UInt64:
      return true;
    default:
      return false;
  }
}

bool dtype_is_signed(DType t) {
  return t == DType::Int8 || t == DType::Int16 || t == DType::Int32 || t == DType::Int64 || dtype_is_float(t);
}

void fail_dtype(DType t, std::string_view what) {
  fail("{}: element type {} is not supported", what, dtype_name(t));
}

}  // namespace mlipc
