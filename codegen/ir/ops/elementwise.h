// Add, Sub, Mul, Div: the arithmetic shared by the reference kernels and the
// C kernel, so both define integer overflow and division the same way.
#pragma once

#include <type_traits>

#include "ir/dtype.h"

namespace mlipc::ops {

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
    // At least unsigned int wide, so that uint16 * uint16 cannot overflow int.
    using U = std::conditional_t<(sizeof(T) > 4), uint64_t, uint32_t>;
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

}  // namespace mlipc::ops
