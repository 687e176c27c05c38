// Integer arithmetic of the elementwise operators, written once for the
// reference kernels; the C kernels (c/kernels/elementwise.cpp and the
// operators' prepare functions) spell the same operations, so both define
// overflow, division by zero and negative powers the same way.
#pragma once

#include <cmath>
#include <cstdint>
#include <type_traits>

#include "ir/dtype.h"

namespace mlipc::ops {

// The unsigned type integer T's arithmetic wraps in: at least unsigned int
// wide, so that uint16 * uint16 cannot overflow int.
template <class T>
using wrap_t = std::conditional_t<(sizeof(T) > 4), uint64_t, uint32_t>;

// -v, wrapping (-INT_MIN is INT_MIN).
template <class T>
T neg_wrap(T v) {
  return static_cast<T>(wrap_t<T>(0) - static_cast<wrap_t<T>>(v));
}

template <class T>
T mul_wrap(T a, T b) {
  return static_cast<T>(static_cast<wrap_t<T>>(a) * static_cast<wrap_t<T>>(b));
}

enum class BinaryOp { Add, Sub, Mul, Div };

// Integer arithmetic wraps (computed in unsigned, as ONNX runtimes and numpy
// do); integer Div truncates toward zero like C (the ONNX reference casts
// numpy's true division back to the integer type), x / 0 is 0 (numpy's
// result) and INT_MIN / -1 wraps, instead of trapping.
template <class T>
T binary_apply(BinaryOp op, T a, T b) {
  if constexpr (std::is_floating_point_v<T>) {
    switch (op) {
      case BinaryOp::Add: return a + b;
      case BinaryOp::Sub: return a - b;
      case BinaryOp::Mul: return a * b;
      default: return a / b;
    }
  } else {
    using U = wrap_t<T>;
    const U ua = static_cast<U>(a), ub = static_cast<U>(b);
    switch (op) {
      case BinaryOp::Add: return static_cast<T>(ua + ub);
      case BinaryOp::Sub: return static_cast<T>(ua - ub);
      case BinaryOp::Mul: return static_cast<T>(ua * ub);
      default:
        if (b == 0) return T(0);
        if constexpr (std::is_signed_v<T>) {
          if (b == T(-1)) return static_cast<T>(U(0) - ua);
        }
        return static_cast<T>(a / b);
    }
  }
}

// Mod: with fmod, C's remainder (the dividend's sign); without, Python's
// (the divisor's sign, integers only). x mod 0 is 0 (numpy's result) and
// INT_MIN mod -1 is 0, where C would trap.
template <class T>
T mod_apply(T a, T b, bool fmod) {
  (void)fmod;  // floats always take fmod, unsigned integers have no sign to choose
  if constexpr (std::is_floating_point_v<T>) {
    return std::fmod(a, b);
  } else {
    if (b == T(0)) return T(0);
    if constexpr (std::is_signed_v<T>) {
      if (b == T(-1)) return T(0);
    }
    T r = static_cast<T>(a % b);
    if constexpr (std::is_signed_v<T>) {
      if (!fmod && r != T(0) && ((r < T(0)) != (b < T(0)))) r = static_cast<T>(r + b);
    }
    return r;
  }
}

// x^y for integers by repeated squaring, wrapping. A negative exponent gives
// the truncated real result: 1 for x = 1, +-1 for x = -1, else 0.
template <class T, class E>
T int_pow(T x, E y) {
  if constexpr (std::is_signed_v<E>) {
    if (y < E(0)) {
      if (x == T(1)) return T(1);
      if constexpr (std::is_signed_v<T>) {
        if (x == T(-1)) return (y & E(1)) ? T(-1) : T(1);
      }
      return T(0);
    }
  }
  using U = wrap_t<T>;
  U r = 1, b = static_cast<U>(x);
  for (uint64_t e = static_cast<uint64_t>(y); e != 0; e >>= 1) {
    if (e & 1u) r *= b;
    b *= b;
  }
  return static_cast<T>(r);
}

}  // namespace mlipc::ops
