// ReduceMax, ReduceMin, ReduceSum, ReduceProd, ReduceL1, ReduceL2,
// ReduceLogSum, ReduceLogSumExp, ReduceSumSquare, ReduceMean in their opset-18
// form (ops/reduce.h). Float32 and float64 for every kind; int32 and
// int64 for Sum, Prod, L1, SumSquare, Max and Min, int8 and uint8 for Max and
// Min. Integer
// sums and products wrap around (two's complement), as onnxruntime's do.
//
// An empty reduction (a reduced axis of size 0) gives the kind's identity:
// Sum, L1, L2, SumSquare 0; Prod 1; Max -inf (the type's lowest integer);
// Min +inf (the highest); LogSum and LogSumExp -inf; Mean NaN (0 / 0).
// Max and Min return NaN when any element is NaN.
#include "ops/reduce.h"

#include <cmath>
#include <limits>
#include <type_traits>

#include "ops/ops.h"
#include "mlip/kmath.h"
#include "support/error.h"

namespace mlipc::ops {

ReduceKind reduce_kind(std::string_view op) {
  static const std::pair<std::string_view, ReduceKind> kinds[] = {
      {"ReduceMax", ReduceKind::Max},         {"ReduceMin", ReduceKind::Min},
      {"ReduceSum", ReduceKind::Sum},         {"ReduceProd", ReduceKind::Prod},
      {"ReduceL1", ReduceKind::L1},           {"ReduceL2", ReduceKind::L2},
      {"ReduceLogSum", ReduceKind::LogSum},   {"ReduceLogSumExp", ReduceKind::LogSumExp},
      {"ReduceSumSquare", ReduceKind::SumSquare}, {"ReduceMean", ReduceKind::Mean}};
  for (const auto& [name, k] : kinds)
    if (name == op) return k;
  fail("internal: {} is not a reduction", op);
}

bool reduce_allows_integers(ReduceKind k) {
  return k == ReduceKind::Max || k == ReduceKind::Min || k == ReduceKind::Sum || k == ReduceKind::Prod ||
         k == ReduceKind::L1 || k == ReduceKind::SumSquare;
}

namespace {
// Appends an axis to a loop nest, merging it into the previous loop when one
// step there equals a full sweep of this axis.
void push_loop(Shape& dims, std::vector<int64_t>& strides, int64_t dim, int64_t stride) {
  if (dim == 1) return;
  if (!dims.empty() && strides.back() == stride * dim) {
    dims.back() *= dim;
    strides.back() = stride;
    return;
  }
  dims.push_back(dim);
  strides.push_back(stride);
}
}  // namespace

ReduceLoops reduce_loops(const Attrs& attrs, const Shape& in, const TensorData* axes) {
  if (attrs.has("axes"))
    fail("the axes attribute belongs to opsets before 18 (13 for ReduceSum); from then on axes is input #1");
  if (axes && axes->rank() > 1) fail("axes must be a 1-D tensor, got shape {}", shape_str(axes->shape()));
  return reduce_loops(in, axes ? axes->as_int64() : std::vector<int64_t>{}, attrs.get_int("keepdims", 1) != 0,
                      attrs.get_int("noop_with_empty_axes", 0) != 0);
}

ReduceLoops reduce_loops(const Shape& in, const std::vector<int64_t>& axes, bool keep, bool noop) {
  const int rank = static_cast<int>(in.size());
  std::vector<bool> reduced(static_cast<size_t>(rank), false);
  for (int64_t a : axes) {
    const int ax = normalize_axis(a, rank, "axis");
    if (reduced[ax]) fail("axes {} repeats axis {}", shape_str(axes), ax);
    reduced[ax] = true;
  }
  if (axes.empty() && !noop) reduced.assign(static_cast<size_t>(rank), true);
  const std::vector<int64_t> strides = strides_of(in);
  ReduceLoops l;
  for (int i = 0; i < rank; ++i) {
    if (reduced[i]) {
      l.count *= in[i];
      // An empty axis cannot merge (its sweep is no step); a 0-trip loop keeps
      // the reduction empty.
      if (in[i] == 0) {
        l.reduced_dims.push_back(0);
        l.reduced_strides.push_back(0);
      } else {
        push_loop(l.reduced_dims, l.reduced_strides, in[i], strides[i]);
      }
      if (keep) l.out.push_back(1);
    } else {
      push_loop(l.kept_dims, l.kept_strides, in[i], strides[i]);
      l.out.push_back(in[i]);
    }
  }
  return l;
}

namespace {

const TensorData* axes_const(InferContext& ctx) { return ctx.has_input(1) ? &ctx.require_const(1, "axes") : nullptr; }

void infer_reduce(InferContext& ctx) {
  ctx.expect_inputs(1, 2);
  const ReduceKind k = reduce_kind(ctx.node().op);
  if (k == ReduceKind::Max || k == ReduceKind::Min)
    ctx.expect_dtype(0, {DType::Float32, DType::Float64, DType::Int32, DType::Int64, DType::Int8, DType::UInt8});
  else if (reduce_allows_integers(k))
    ctx.expect_dtype(0, {DType::Float32, DType::Float64, DType::Int32, DType::Int64});
  else
    ctx.expect_dtype(0, {DType::Float32, DType::Float64});
  if (ctx.has_input(1)) ctx.expect_dtype(1, {DType::Int64});
  ctx.set_output(0, ctx.in_dtype(0), reduce_loops(ctx.attrs(), ctx.in_shape(0), axes_const(ctx)).out);
}

float kexp(float v) { return mlip_expf(v); }
double kexp(double v) { return mlip_exp(v); }
float klog(float v) { return mlip_logf(v); }
double klog(double v) { return mlip_log(v); }

// One output's fold, in the order of ops/reduce.h; the same expressions as
// c/kernels/reduce.cpp writes into templates/kernels/reduce.c.
template <class T, class Each>
T fold_float(ReduceKind k, int64_t count, Each&& each) {
  T shift = 0;
  if (k == ReduceKind::LogSumExp) {
    T mx = -INFINITY;
    each([&](T v) { mx = (v > mx || std::isnan(v)) ? v : mx; });
    shift = std::isfinite(mx) ? mx : T{0};
  }
  T acc = k == ReduceKind::Max ? -INFINITY : k == ReduceKind::Min ? INFINITY : k == ReduceKind::Prod ? T{1} : T{0};
  each([&](T v) {
    switch (k) {
      case ReduceKind::Max: acc = (v > acc || std::isnan(v)) ? v : acc; break;
      case ReduceKind::Min: acc = (v < acc || std::isnan(v)) ? v : acc; break;
      case ReduceKind::Prod: acc *= v; break;
      case ReduceKind::L1: acc += std::fabs(v); break;
      case ReduceKind::L2:
      case ReduceKind::SumSquare: {
        const T sq = v * v;
        acc += sq;
        break;
      }
      case ReduceKind::LogSumExp: acc += kexp(v - shift); break;
      default: acc += v; break;  // Sum, LogSum, Mean
    }
  });
  switch (k) {
    case ReduceKind::L2: return std::sqrt(acc);
    case ReduceKind::LogSum: return klog(acc);
    case ReduceKind::LogSumExp: return klog(acc) + shift;
    case ReduceKind::Mean: return acc / static_cast<T>(count);
    default: return acc;
  }
}

// Integers: Max and Min in the type itself; sums and products in the
// unsigned type of the same width, so that overflow wraps.
template <class T, class Each>
T fold_int(ReduceKind k, Each&& each) {
  using U = std::make_unsigned_t<T>;
  if (k == ReduceKind::Max || k == ReduceKind::Min) {
    T acc = k == ReduceKind::Max ? std::numeric_limits<T>::lowest() : std::numeric_limits<T>::max();
    each([&](T v) { acc = k == ReduceKind::Max ? (v > acc ? v : acc) : (v < acc ? v : acc); });
    return acc;
  }
  U acc = k == ReduceKind::Prod ? U{1} : U{0};
  each([&](T v) {
    const U u = static_cast<U>(v);
    switch (k) {
      case ReduceKind::Prod: acc = static_cast<U>(acc * u); break;
      case ReduceKind::L1: {
        U mag = u;
        if constexpr (std::is_signed_v<T>) mag = v < 0 ? static_cast<U>(U{0} - u) : u;
        acc = static_cast<U>(acc + mag);
        break;
      }
      case ReduceKind::SumSquare: acc = static_cast<U>(acc + static_cast<U>(u * u)); break;
      default: acc = static_cast<U>(acc + u); break;  // Sum
    }
  });
  return static_cast<T>(acc);
}

void eval_reduce(EvalContext& ctx) {
  const ReduceKind k = reduce_kind(ctx.node.op);
  const TensorData& xt = ctx.in(0);
  const ReduceLoops l = reduce_loops(ctx.attrs(), xt.shape(), ctx.has_input(1) ? &ctx.in(1) : nullptr);
  visit_numeric(xt.dtype(), ctx.node.op, [&](auto tag) {
    using T = typename decltype(tag)::type;
    if constexpr (std::is_floating_point_v<T> || std::is_integral_v<T>) {
      const T* x = xt.data<T>();
      T* y = ctx.outputs[0].data<T>();
      int64_t o = 0;
      walk_loops(l.kept_dims, l.kept_strides, [&](int64_t base) {
        auto each = [&](auto&& f) {
          walk_loops(l.reduced_dims, l.reduced_strides, [&](int64_t off) { f(x[base + off]); });
        };
        if constexpr (std::is_floating_point_v<T>) y[o++] = fold_float<T>(k, l.count, each);
        else y[o++] = fold_int<T>(k, each);
      });
    } else {
      fail("element type {} is not supported", dtype_name(xt.dtype()));
    }
  });
}

}  // namespace

#define MLIPC_REDUCE_OP(name)                                   \
  void infer_##name(InferContext& ctx) { infer_reduce(ctx); } \
  void eval_##name(EvalContext& ctx) { eval_reduce(ctx); }
MLIPC_REDUCE_OP(ReduceL1)
MLIPC_REDUCE_OP(ReduceL2)
MLIPC_REDUCE_OP(ReduceLogSum)
MLIPC_REDUCE_OP(ReduceLogSumExp)
MLIPC_REDUCE_OP(ReduceMax)
MLIPC_REDUCE_OP(ReduceMean)
MLIPC_REDUCE_OP(ReduceMin)
MLIPC_REDUCE_OP(ReduceProd)
MLIPC_REDUCE_OP(ReduceSum)
MLIPC_REDUCE_OP(ReduceSumSquare)
#undef MLIPC_REDUCE_OP

}  // namespace mlipc::ops
