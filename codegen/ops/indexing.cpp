#include "ops/indexing.h"

#include <type_traits>

#include "ops/op.h"

namespace mlipc::ops {

int elements_axis(const Attrs& attrs, const Shape& data, const Shape& indices) {
  const int rank = static_cast<int>(data.size());
  if (rank == 0) fail("data is a scalar; it needs rank 1 or more");
  if (indices.size() != data.size())
    fail("indices {} must have the rank of data {}", shape_str(indices), shape_str(data));
  const int axis = normalize_axis(attrs.get_int("axis", 0), rank);
  for (int d = 0; d < rank; ++d)
    if (d != axis && indices[d] > data[d])
      fail("indices {} is larger than data {} at axis {} (only axis {} may be larger)", shape_str(indices),
           shape_str(data), d, axis);
  return axis;
}

std::vector<int64_t> elements_strides(const Shape& data, int axis) {
  std::vector<int64_t> s = strides_of(data);
  s[static_cast<size_t>(axis)] = 0;
  return s;
}

Reduction reduction_of(const Attrs& attrs, DType data) {
  const std::string r = attrs.get_string("reduction", "none");
  Reduction red;
  if (r == "none") red = Reduction::None;
  else if (r == "add") red = Reduction::Add;
  else if (r == "mul") red = Reduction::Mul;
  else if (r == "max") red = Reduction::Max;
  else if (r == "min") red = Reduction::Min;
  else fail("reduction '{}' is not supported (supported: none, add, mul, max, min)", r);
  if (red != Reduction::None && (data == DType::Bool || data == DType::Float16 || data == DType::BFloat16))
    fail("reduction '{}' on {} data is not supported (supported: float32, float64 and integer types)", r,
         dtype_name(data));
  return red;
}

template <class T>
T reduce_one(Reduction r, T y, T u) {
  // Integer sums and products in unsigned arithmetic at least int wide, so
  // that they wrap instead of overflowing (what the C kernel does).
  using U = std::conditional_t<std::is_floating_point_v<T>, T,
                               std::conditional_t<(sizeof(T) > 4), uint64_t, uint32_t>>;
  switch (r) {
    case Reduction::None: return u;
    case Reduction::Add: return static_cast<T>(static_cast<U>(y) + static_cast<U>(u));
    case Reduction::Mul: return static_cast<T>(static_cast<U>(y) * static_cast<U>(u));
    case Reduction::Max: return (u != u || u > y) ? u : y;
    case Reduction::Min: return (u != u || u < y) ? u : y;
  }
  return u;
}

template float reduce_one(Reduction, float, float);
template double reduce_one(Reduction, double, double);
template int8_t reduce_one(Reduction, int8_t, int8_t);
template int16_t reduce_one(Reduction, int16_t, int16_t);
template int32_t reduce_one(Reduction, int32_t, int32_t);
template int64_t reduce_one(Reduction, int64_t, int64_t);
template uint8_t reduce_one(Reduction, uint8_t, uint8_t);
template uint16_t reduce_one(Reduction, uint16_t, uint16_t);
template uint32_t reduce_one(Reduction, uint32_t, uint32_t);
template uint64_t reduce_one(Reduction, uint64_t, uint64_t);

}  // namespace mlipc::ops
