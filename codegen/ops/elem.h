// Element access for the elementwise operators' reference kernels: how each
// element type is stored, the type its arithmetic runs in, and the
// conversions between the two. The C kernels spell the same conversions
// (c/kernels/elementwise.h), so both compute the same bits.
//   float16  stored as its IEEE bits, computed in float and rounded back
//            after every operation (numpy's and the ONNX reference's float16
//            arithmetic: float has enough bits that +, -, *, / and sqrt
//            rounded twice equal the float16 operation rounded once)
//   bool     stored as a byte, read as 0 or 1 (any non-zero byte is true)
//   others   stored and computed as themselves
#pragma once

#include <cmath>
#include <limits>
#include <type_traits>
#include <vector>

#include "ops/op.h"
#include "ops/broadcast.h"
#include "mlip/kmath.h"

namespace mlipc::ops {

struct Half {};   // tag of float16
struct Bool8 {};  // tag of bool

template <class T>
struct Elem {
  using Storage = T;
  using Compute = T;
  static Compute load(Storage v) { return v; }
  static Storage store(Compute v) { return v; }
  static Compute round(Compute v) { return v; }
};

template <>
struct Elem<Half> {
  using Storage = uint16_t;
  using Compute = float;
  static Compute load(Storage v) { return mlip_f16_to_f32(v); }
  static Storage store(Compute v) { return mlip_f32_to_f16(v); }
  static Compute round(Compute v) { return load(store(v)); }
};

template <>
struct Elem<Bool8> {
  using Storage = uint8_t;
  using Compute = int;
  static Compute load(Storage v) { return v != 0; }
  static Storage store(Compute v) { return v != 0; }
  static Compute round(Compute v) { return v; }
};

// The compute type of tag T (float for float16, int for bool).
template <class T> using compute_t = typename Elem<T>::Compute;

// True for the tags whose compute type is floating point.
template <class T> constexpr bool is_float_tag = std::is_floating_point_v<compute_t<T>>;

// Calls f(TypeTag<T>{}) with the element tag of `t`: float16 and bool
// included, unlike visit_numeric.
template <class F>
decltype(auto) visit_elem(DType t, std::string_view what, F&& f) {
  if (t == DType::Float16) return f(TypeTag<Half>{});
  if (t == DType::Bool) return f(TypeTag<Bool8>{});
  return visit_numeric(t, what, std::forward<F>(f));
}

// Element type sets of the ONNX type constraints.
const std::vector<DType>& float_types();     // float16, float32, float64
const std::vector<DType>& signed_types();    // int8 .. int64
const std::vector<DType>& unsigned_types();  // uint8 .. uint64
const std::vector<DType>& numeric_types();   // the three above
std::vector<DType> join(std::initializer_list<std::vector<DType>> sets);

// Throws "input #i ('name') has element type X; supported: ..." unless input
// i has one of `allowed`.
void expect_elem_dtype(const InferContext& ctx, int i, const std::vector<DType>& allowed);
// Throws unless every input has input 0's element type.
void expect_same_dtype(const InferContext& ctx);
// Two-input operators before opset 7 broadcast B along A's axes from
// `legacy_axis` (frontend/opset.cpp); accepts the numpy case and drops the
// attribute, refuses the others.
void resolve_legacy_broadcast(InferContext& ctx);

// y = f(x) elementwise; In and Out are element tags, f maps compute types.
template <class In, class Out, class F>
void map_unary(const TensorData& x, TensorData& y, F f) {
  const auto* px = x.raw_as<typename Elem<In>::Storage>();
  auto* py = y.raw_as<typename Elem<Out>::Storage>();
  for (int64_t i = 0, n = x.numel(); i < n; ++i) py[i] = Elem<Out>::store(f(Elem<In>::load(px[i])));
}

// y = f(a, b) with numpy broadcasting, A, B, Out element tags.
template <class A, class B, class Out, class F>
void map_binary(const TensorData& a, const TensorData& b, TensorData& y, F f) {
  const auto* pa = a.raw_as<typename Elem<A>::Storage>();
  const auto* pb = b.raw_as<typename Elem<B>::Storage>();
  auto* py = y.raw_as<typename Elem<Out>::Storage>();
  const std::vector<std::vector<int64_t>> strides = {broadcast_strides(a.shape(), y.shape()),
                                                     broadcast_strides(b.shape(), y.shape())};
  for_each_broadcast(y.shape(), strides, [&](int64_t o, const std::vector<int64_t>& off) {
    py[o] = Elem<Out>::store(f(Elem<A>::load(pa[off[0]]), Elem<B>::load(pb[off[1]])));
  });
}

// A floating-point value converted to integer type T as the kernels do it:
// NaN becomes 0 and values beyond T's range saturate (C leaves both undefined).
template <class T, class F>
T saturate_cast(F v) {
  static_assert(std::is_integral_v<T> && std::is_floating_point_v<F>);
  using L = std::numeric_limits<T>;
  if (v != v) return T(0);
  if (v <= static_cast<F>(L::lowest())) return L::lowest();
  if (v >= static_cast<F>(L::max())) return L::max();
  return static_cast<T>(v);
}

}  // namespace mlipc::ops
