// The elementwise template's preparation (c/kernels/elementwise.h), and Add,
// Sub, Mul, Div, whose integer expressions match ops::binary_apply
// (ops/elementwise.h).
#include "c/kernels/elementwise.h"

#include <algorithm>
#include <limits>

#include <fmt/format.h>

#include "c/kernels/kernels.h"
#include "c/layout.h"
#include "ops/broadcast.h"
#include "ops/elem.h"
#include "support/error.h"

namespace mlipc::c::kernels {

std::string c_compute_type(DType t) {
  if (t == DType::Float16) return "float";
  if (t == DType::Bool) return "int";
  return std::string(dtype_ctype(t));
}

std::string c_load(DType t, const std::string& e) {
  if (t == DType::Float16) return fmt::format("mlip_f16_to_f32({})", e);
  if (t == DType::Bool) return fmt::format("({} != 0)", e);
  return e;
}

std::string c_store(DType t, const std::string& e) {
  if (t == DType::Float16) return fmt::format("mlip_f32_to_f16({})", e);
  if (t == DType::Bool) return fmt::format("(uint8_t)({} != 0)", e);
  return e;
}

std::string c_round(DType t, const std::string& e) {
  if (t == DType::Float16) return fmt::format("mlip_f16_to_f32(mlip_f32_to_f16({}))", e);
  return e;
}

std::string c_const(DType t, double v) {
  if (t == DType::Float16 || t == DType::Float32) return c_float(static_cast<float>(v));
  if (t == DType::Float64) return c_double(v);
  if (t == DType::Bool) return v != 0 ? "1" : "0";
  if (t == DType::UInt64) return fmt::format("{}ULL", static_cast<uint64_t>(v));
  return fmt::format("({}){}", dtype_ctype(t), c_int(static_cast<int64_t>(v)));
}

std::string c_saturate(DType to, DType from, const std::string& e) {
  return visit_numeric(to, "conversion", [&](auto tag) -> std::string {
    using T = typename decltype(tag)::type;
    using L = std::numeric_limits<T>;
    const std::string ct(dtype_ctype(to));
    auto lit = [&](double v) { return from == DType::Float64 ? c_double(v) : c_float(static_cast<float>(v)); };
    auto int_lit = [&](auto v) {
      if constexpr (std::is_unsigned_v<T>) return fmt::format("({}){}u{}", ct, v, sizeof(T) > 4 ? "LL" : "");
      else return fmt::format("({}){}", ct, c_int(static_cast<int64_t>(v)));
    };
    if constexpr (std::is_integral_v<T>) {
      // The bounds as the float type converts them, as ops::saturate_cast compares.
      const double lo = from == DType::Float64 ? static_cast<double>(L::lowest())
                                                : static_cast<double>(static_cast<float>(L::lowest()));
      const double hi = from == DType::Float64 ? static_cast<double>(L::max())
                                                : static_cast<double>(static_cast<float>(L::max()));
      return fmt::format("({0} != {0} ? ({1})0 : {0} <= {2} ? {3} : {0} >= {4} ? {5} : ({1}){0})", e, ct, lit(lo),
                         int_lit(L::lowest()), lit(hi), int_lit(L::max()));
    } else {
      fail("internal: saturating conversion to {}", dtype_name(to));
    }
  });
}

void expect_dtype_in(const Graph& g, const Node& n, int input, const std::vector<DType>& allowed) {
  const DType t = g.value(n.inputs.at(static_cast<size_t>(input))).dtype;
  if (std::find(allowed.begin(), allowed.end(), t) != allowed.end()) return;
  std::string names;
  for (DType a : allowed) names += (names.empty() ? "" : ", ") + std::string(dtype_name(a));
  fail("element type {} is not supported by the CPU kernel (supported: {})", dtype_name(t), names);
}

std::string define_v(const Graph& g, const Node& n, const std::string& expr) {
  return fmt::format("{} v = {};", c_compute_type(g.value(n.outputs[0]).dtype), expr);
}

namespace {

// "p1_2 = p1_1 + i2 * 20" for input k after loop d (1-based).
std::string offset_line(size_t k, size_t d, int64_t stride) {
  std::string e = fmt::format("p{}_{}", k, d - 1);
  if (stride == 1) e += fmt::format(" + i{}", d);
  else if (stride != 0) e += fmt::format(" + i{} * {}", d, c_int(stride));
  return fmt::format("    const int32_t p{}_{} = {};\n", k, d, e);
}

}  // namespace

void elementwise_kernel(const Graph& g, const Node& n, KernelSpec& spec, const ElementwiseBody& b) {
  const Value& out = g.value(n.outputs[0]);
  // Any layout, as long as the inputs whose bytes depend on it share the
  // output's (c/layout.h): the loops then walk the stored shapes.
  const bool cl = spec.output_cl(0);
  if (b.read_shapes.empty() && n.outputs.size() == 1) {
    spec.layouts.output = true;
    for (int k : b.inputs)
      if (!layout_invariant(stored_shape(g.value(n.inputs.at(static_cast<size_t>(k))).shape, out.shape.size(), false)))
        spec.layouts.tied.push_back(k);
  }
  const Shape out_shape = stored_shape(out.shape, out.shape.size(), cl);
  std::vector<std::vector<int64_t>> strides;
  for (size_t k = 0; k < b.inputs.size(); ++k) {
    const Shape& s = k < b.read_shapes.size() && !b.read_shapes[k].empty()
                         ? b.read_shapes[k]
                         : g.value(n.inputs.at(static_cast<size_t>(b.inputs[k]))).shape;
    strides.push_back(ops::broadcast_strides(stored_shape(s, out.shape.size(), cl), out_shape));
  }
  const ops::Loops l = ops::simplify_loops(out_shape, strides);
  std::vector<TemplateData> loops;
  for (size_t d = 1; d <= l.dims.size(); ++d) {
    TemplateData item;
    item.set("d", std::to_string(d));
    item.set("dim", c_int(l.dims[d - 1]));
    std::string offs;
    for (size_t k = 0; k < b.inputs.size(); ++k) offs += offset_line(k, d, l.strides[k][d - 1]);
    item.set("offsets", offs);
    loops.push_back(item);
  }
  // An input of the output's shape and element size may give the output its
  // bytes: element o is read before element o is written.
  for (size_t k = 0; k < b.inputs.size(); ++k) {
    const Value& in = g.value(n.inputs.at(static_cast<size_t>(b.inputs[k])));
    if (n.outputs.size() == 1 && in.shape == out.shape && dtype_size(in.dtype) == dtype_size(out.dtype) &&
        (k >= b.read_shapes.size() || b.read_shapes[k].empty()))
      spec.in_place.push_back(b.inputs[k]);
  }
  spec.set("y_restrict", spec.in_place.empty() ? "restrict " : "");
  std::string params, start, loads;
  for (size_t k = 0; k < b.inputs.size(); ++k) {
    const DType t = g.value(n.inputs.at(static_cast<size_t>(b.inputs[k]))).dtype;
    const bool shared = std::find(spec.in_place.begin(), spec.in_place.end(), b.inputs[k]) != spec.in_place.end();
    params += fmt::format("const {}* {}x{}, ", dtype_ctype(t), shared ? "" : "restrict ", k);
    start += fmt::format("  const int32_t p{}_0 = 0;\n", k);
    loads += fmt::format("    const {} v{} = {};\n", c_compute_type(t), k,
                         c_load(t, fmt::format("x{}[p{}_{}]", k, k, l.dims.size())));
  }
  spec.template_name = "elementwise.c";
  spec.set("params", params);
  spec.set("start", start);
  spec.set_list("loops", loops);
  spec.set("loads", loads);
  spec.set("body", "    " + b.body);
  spec.set("result", c_store(out.dtype, "v"));
  spec.args = b.inputs;
}

void float32_map_f(const Graph& g, const Node& n, KernelSpec& spec, const char* map_fn) {
  expect_float(g, n, 0);
  spec.includes.push_back("mlip/kmath_f.h");
  // The loops' setup (layouts, in-place sharing, parameters); the one call
  // replaces the loops.
  elementwise_kernel(g, n, spec, {{0}, "float v = v0;", {}});
  spec.template_name = "map_f.c";
  spec.set("array_fn", map_fn);
  spec.set("n", c_int(numel(g.value(n.outputs[0]).shape)));
}

namespace {

std::string arith_expr(DType t, char op) {
  if (!dtype_is_integer(t)) return fmt::format("v0 {} v1", op);
  // Integer arithmetic in unsigned (at least int wide) wraps instead of
  // overflowing signed int; Div guards the cases that trap in C.
  const std::string ct(dtype_ctype(t));
  const std::string u = dtype_size(t) > 4 ? "uint64_t" : "uint32_t";
  if (op != '/') return fmt::format("({})(({})v0 {} ({})v1)", ct, u, op, u);
  if (!dtype_is_signed(t)) return fmt::format("v1 == 0 ? 0 : ({})(v0 / v1)", ct);
  return fmt::format("v1 == 0 ? 0 : (v1 == -1 ? ({0})(({1})0 - ({1})v0) : ({0})(v0 / v1))", ct, u);
}

void arith(const Graph& g, const Node& n, KernelSpec& spec, char op) {
  expect_dtype_in(g, n, 0, ops::numeric_types());
  elementwise_kernel(g, n, spec, {{0, 1}, define_v(g, n, arith_expr(g.value(n.inputs[0]).dtype, op)), {}});
}

}  // namespace

void prepare_Add(const Graph& g, const Node& n, KernelSpec& spec) { arith(g, n, spec, '+'); }
void prepare_Sub(const Graph& g, const Node& n, KernelSpec& spec) { arith(g, n, spec, '-'); }
void prepare_Mul(const Graph& g, const Node& n, KernelSpec& spec) { arith(g, n, spec, '*'); }
void prepare_Div(const Graph& g, const Node& n, KernelSpec& spec) { arith(g, n, spec, '/'); }

}  // namespace mlipc::c::kernels
