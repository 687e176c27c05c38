// Element types of tensors. Names follow numpy ("float32") because that is
// what users see in .npz files and in metadata.json.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>
#include <type_traits>
#include <utility>

namespace mlipc {

enum class DType : uint8_t {
  Undefined,
  Float32,
  Float16,
  BFloat16,
  Float64,
  Int8,
  Int16,
  Int32,
  Int64,
  UInt8,
  UInt16,
  UInt32,
  UInt64,
  Bool,
};

size_t dtype_size(DType t);
std::string_view dtype_name(DType t);   // "float32", "int64", "bool", ...
std::string_view dtype_ctype(DType t);  // "float", "int64_t", "uint8_t" (bool is uint8_t)
DType dtype_from_name(std::string_view name);  // inverse of dtype_name; Undefined if unknown
bool dtype_is_float(DType t);    // float16/bfloat16/float32/float64
bool dtype_is_integer(DType t);  // signed or unsigned integer (not bool)
bool dtype_is_signed(DType t);
uint8_t dtype_dlpack_code(DType t);  // kDLInt=0, kDLUInt=1, kDLFloat=2, kDLBfloat=4 (bool: kDLUInt)
uint8_t dtype_bits(DType t);

// Compile-time mapping from C++ types to DType.
template <class T> constexpr DType dtype_of();
template <> constexpr DType dtype_of<float>() { return DType::Float32; }
template <> constexpr DType dtype_of<double>() { return DType::Float64; }
template <> constexpr DType dtype_of<int8_t>() { return DType::Int8; }
template <> constexpr DType dtype_of<int16_t>() { return DType::Int16; }
template <> constexpr DType dtype_of<int32_t>() { return DType::Int32; }
template <> constexpr DType dtype_of<int64_t>() { return DType::Int64; }
template <> constexpr DType dtype_of<uint8_t>() { return DType::UInt8; }
template <> constexpr DType dtype_of<uint16_t>() { return DType::UInt16; }
template <> constexpr DType dtype_of<uint32_t>() { return DType::UInt32; }
template <> constexpr DType dtype_of<uint64_t>() { return DType::UInt64; }

template <class T> struct TypeTag { using type = T; };

// Calls f(TypeTag<T>{}) with the C++ type of a numeric dtype that reference
// kernels compute in (float32/64 and the integer types). Float16, BFloat16 and
// Bool have no arithmetic here; `visit_numeric` throws for them, naming `what`.
template <class F>
decltype(auto) visit_numeric(DType t, std::string_view what, F&& f);

// Calls f(TypeTag<T>{}) with an unsigned integer type of the dtype's size:
// for operators that only move bytes (Transpose, Concat, Pad ...).
template <class F>
decltype(auto) visit_bytes(DType t, F&& f) {
  switch (dtype_size(t)) {
    case 1: return f(TypeTag<uint8_t>{});
    case 2: return f(TypeTag<uint16_t>{});
    case 4: return f(TypeTag<uint32_t>{});
    default: return f(TypeTag<uint64_t>{});
  }
}

[[noreturn]] void fail_dtype(DType t, std::string_view what);

template <class F>
decltype(auto) visit_numeric(DType t, std::string_view what, F&& f) {
  switch (t) {
    case DType::Float32: return f(TypeTag<float>{});
    case DType::Float64: return f(TypeTag<double>{});
    case DType::Int8: return f(TypeTag<int8_t>{});
    case DType::Int16: return f(TypeTag<int16_t>{});
    case DType::Int32: return f(TypeTag<int32_t>{});
    case DType::Int64: return f(TypeTag<int64_t>{});
    case DType::UInt8: return f(TypeTag<uint8_t>{});
    case DType::UInt16: return f(TypeTag<uint16_t>{});
    case DType::UInt32: return f(TypeTag<uint32_t>{});
    case DType::UInt64: return f(TypeTag<uint64_t>{});
    default: fail_dtype(t, what);
  }
}

}  // namespace mlipc
