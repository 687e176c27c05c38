// Cast and CastLike: convert the element type (Cast's `to`, an ONNX
// TensorProto.DataType code; CastLike takes the type of its second input).
// Strings and complex numbers are not supported.
//
// The rules, shared bit for bit with the C kernel (c/kernels/cast.cpp) through
// include/mlip/kconvert.h:
// - float to float: rounded to nearest even once (float16 and bfloat16 from
//   the double value); out of range becomes infinity.
// - float to integer: truncated toward zero, saturated at the type's limits,
//   NaN becomes 0 (ONNX leaves out-of-range values undefined; this is what
//   the kernel does everywhere).
// - integer to integer: two's-complement wrap-around, as numpy does.
// - integer to float: rounded to nearest even from the integer.
// - to bool: non-zero (NaN included) is true; bool reads as 0 or 1.
#include <cmath>
#include <limits>

#include "ops/cast.h"
#include "ops/ops.h"
#include "mlip/kconvert.h"
#include "support/error.h"

namespace mlipc::ops {

DType dtype_of_code(int64_t code, std::string_view attr) {
  // TensorProto.DataType codes (onnx.proto).
  switch (code) {
    case 1: return DType::Float32;
    case 2: return DType::UInt8;
    case 3: return DType::Int8;
    case 4: return DType::UInt16;
    case 5: return DType::Int16;
    case 6: return DType::Int32;
    case 7: return DType::Int64;
    case 9: return DType::Bool;
    case 10: return DType::Float16;
    case 11: return DType::Float64;
    case 12: return DType::UInt32;
    case 13: return DType::UInt64;
    case 16: return DType::BFloat16;
    case 8: fail("'{}' = 8 is the string type; mlipc has no string tensors", attr);
    case 14:
    case 15: fail("'{}' = {} is a complex type; mlipc has no complex tensors", attr, code);
    default: break;
  }
  fail("'{}' = {} is not an element type mlipc supports (supported: numeric types and bool)", attr, code);
}

namespace {

DType cast_target(const Attrs& attrs) {
  if (!attrs.has("to")) fail("attribute 'to' is required");
  return dtype_of_code(attrs.get_int("to"), "to");
}

void expect_castable(const InferContext& ctx, int i) {
  const DType t = ctx.in_dtype(i);
  if (t == DType::Undefined) fail("input #{} ('{}') has no element type", i, ctx.input(i).name);
}

// A float element as double (exact for every float format).
double float_at(const TensorData& x, int64_t i) {
  switch (x.dtype()) {
    case DType::Float16: return mlip_f16_to_f32(x.raw_as<uint16_t>()[i]);
    case DType::BFloat16: return mlip_bf16_to_f32(x.raw_as<uint16_t>()[i]);
    case DType::Float32: return x.raw_as<float>()[i];
    default: return x.raw_as<double>()[i];
  }
}

template <class T>
T saturate(double v) {
  if (std::isnan(v)) return 0;
  const double lo = static_cast<double>(std::numeric_limits<T>::lowest());
  const double hi = static_cast<double>(std::numeric_limits<T>::max());
  if (v <= lo) return std::numeric_limits<T>::lowest();
  if (v >= hi) return std::numeric_limits<T>::max();
  return static_cast<T>(v);
}

void from_float(const TensorData& x, TensorData& y) {
  const int64_t n = x.numel();
  for (int64_t i = 0; i < n; ++i) {
    const double v = float_at(x, i);
    switch (y.dtype()) {
      case DType::Float16: y.raw_as<uint16_t>()[i] = mlip_f64_to_f16(v); break;
      case DType::BFloat16: y.raw_as<uint16_t>()[i] = mlip_f64_to_bf16(v); break;
      case DType::Float32: y.raw_as<float>()[i] = static_cast<float>(v); break;
      case DType::Float64: y.raw_as<double>()[i] = v; break;
      case DType::Bool: y.raw()[i] = v != 0.0; break;
      default:
        visit_numeric(y.dtype(), "Cast", [&](auto tag) {
          using D = typename decltype(tag)::type;
          y.raw_as<D>()[i] = saturate<D>(v);
        });
    }
  }
}

template <class S>
void from_int(const S* x, TensorData& y) {
  const int64_t n = y.numel();
  for (int64_t i = 0; i < n; ++i) {
    const S v = x[i];
    switch (y.dtype()) {
      case DType::Float16: y.raw_as<uint16_t>()[i] = mlip_f64_to_f16(static_cast<double>(v)); break;
      case DType::BFloat16: y.raw_as<uint16_t>()[i] = mlip_f64_to_bf16(static_cast<double>(v)); break;
      case DType::Bool: y.raw()[i] = v != 0; break;
      default:
        visit_numeric(y.dtype(), "Cast", [&](auto tag) {
          using D = typename decltype(tag)::type;
          y.raw_as<D>()[i] = static_cast<D>(v);
        });
    }
  }
}

}  // namespace

void cast_into(const TensorData& x, TensorData& y) {
  if (dtype_is_float(x.dtype())) return from_float(x, y);
  if (x.dtype() == DType::Bool) return from_int(x.raw_as<uint8_t>(), y);
  visit_numeric(x.dtype(), "Cast", [&](auto tag) {
    using S = typename decltype(tag)::type;
    from_int(x.raw_as<S>(), y);
  });
}

void infer_Cast(InferContext& ctx) {
  ctx.expect_inputs(1, 1);
  expect_castable(ctx, 0);
  ctx.set_output(0, cast_target(ctx.attrs()), ctx.in_shape(0));
}

void eval_Cast(EvalContext& ctx) { cast_into(ctx.in(0), ctx.outputs[0]); }

void infer_CastLike(InferContext& ctx) {
  ctx.expect_inputs(2, 2);
  expect_castable(ctx, 0);
  expect_castable(ctx, 1);
  ctx.set_output(0, ctx.in_dtype(1), ctx.in_shape(0));
}

void eval_CastLike(EvalContext& ctx) { cast_into(ctx.in(0), ctx.outputs[0]); }

}  // namespace mlipc::ops
