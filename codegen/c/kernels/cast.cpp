// Cast and CastLike: one loop, the element conversion chosen at compile time
// for the (source, destination) pair; the rules and the 16-bit float
// conversions (include/mlip/kconvert.h) are the reference's (ops/cast.cpp).
#include <fmt/format.h>

#include <limits>

#include "c/kernels/kernels.h"
#include "support/error.h"

namespace mlipc::c::kernels {

namespace {

// The C literals of an integer type's limits, and its limits as doubles.
struct Limits {
  std::string lo, hi, lo_d, hi_d;
};

template <class T>
Limits limits_of() {
  Limits l;
  const T lo = std::numeric_limits<T>::lowest(), hi = std::numeric_limits<T>::max();
  l.lo = std::is_signed_v<T> ? c_int(static_cast<int64_t>(lo)) : "0";
  l.hi = std::is_same_v<T, uint64_t> ? "18446744073709551615ULL"
         : std::is_same_v<T, uint32_t> ? "4294967295U"
                                       : c_int(static_cast<int64_t>(hi));
  l.lo_d = c_double(static_cast<double>(lo));
  l.hi_d = c_double(static_cast<double>(hi));
  return l;
}

Limits limits(DType t) {
  return visit_numeric(t, "Cast", [](auto tag) { return limits_of<typename decltype(tag)::type>(); });
}

// The expression of the converted element from `v`, which holds the source
// element as a double (float sources) or as itself (integer and bool sources).
std::string convert(DType from, DType to) {
  const bool from_float = dtype_is_float(from);
  const std::string d = from_float ? "v" : "(double)v";
  switch (to) {
    case DType::Float16: return fmt::format("mlip_f64_to_f16({})", d);
    case DType::BFloat16: return fmt::format("mlip_f64_to_bf16({})", d);
    case DType::Float32: return "(float)v";
    case DType::Float64: return "(double)v";
    case DType::Bool: return "(uint8_t)(v != 0)";
    default: break;
  }
  const std::string t(dtype_ctype(to));
  if (!from_float) return fmt::format("({})v", t);
  // Truncation toward zero, saturated, NaN to 0: every branch is defined C.
  const Limits l = limits(to);
  return fmt::format("v != v ? ({0})0 : (v <= {1} ? ({0}){2} : (v >= {3} ? ({0}){4} : ({0})v))", t, l.lo_d, l.lo,
                     l.hi_d, l.hi);
}

std::string read(DType from) {
  switch (from) {
    case DType::Float16: return "(double)mlip_f16_to_f32(x[i])";
    case DType::BFloat16: return "(double)mlip_bf16_to_f32(x[i])";
    case DType::Float32: return "(double)x[i]";
    default: return "x[i]";
  }
}

void prepare_cast(const Graph& g, const Node& n, KernelSpec& spec) {
  const DType from = g.value(n.inputs[0]).dtype, to = g.value(n.outputs[0]).dtype;
  for (DType t : {from, to})
    if (t == DType::Undefined || dtype_size(t) == 0)
      fail("element type {} is not supported by the CPU kernel", dtype_name(t));
  spec.template_name = "cast.c";
  spec.includes = {"mlip/kconvert.h"};
  spec.set("vt", dtype_is_float(from) ? std::string("double") : std::string(dtype_ctype(from)));
  spec.set("read", read(from));
  spec.set("expr", convert(from, to));
  spec.set("rule", fmt::format("{} to {}", dtype_name(from), dtype_name(to)));
  spec.args = {0};
}

}  // namespace

void prepare_Cast(const Graph& g, const Node& n, KernelSpec& spec) { prepare_cast(g, n, spec); }
void prepare_CastLike(const Graph& g, const Node& n, KernelSpec& spec) { prepare_cast(g, n, spec); }

}  // namespace mlipc::c::kernels
