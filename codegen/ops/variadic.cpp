// Max, Min, Sum, Mean: one or more inputs of one type, broadcast together
// (numpy's rule, pairwise over all inputs), folded from the first input to
// the last: y = f(...f(f(x0, x1), x2)..., xn). Sum and Mean add in that order
// in the element type (float16 rounded after every addition, as numpy's
// float16 adds do); Mean divides the sum by the input count. Max and Min
// propagate NaN, as numpy's maximum and minimum do.
#include "ops/elem.h"
#include "ops/ops.h"

namespace mlipc::ops {

namespace {

void infer_variadic(InferContext& ctx, const std::vector<DType>& allowed) {
  if (ctx.num_inputs() < 1) ctx.expect_inputs(1, 1);  // says "expects 1 input(s), got 0"
  expect_elem_dtype(ctx, 0, allowed);
  expect_same_dtype(ctx);
  Shape out = ctx.in_shape(0);
  for (int i = 1; i < ctx.num_inputs(); ++i) out = broadcast_shapes(out, ctx.in_shape(i));
  ctx.set_output(0, ctx.in_dtype(0), out);
}

// y = finish(fold(combine, x0, ..., xn)) in the compute type of tag T.
template <class T, class Combine, class Finish>
void fold(EvalContext& ctx, Combine combine, Finish finish) {
  using E = Elem<T>;
  TensorData& y = ctx.outputs[0];
  const int n = static_cast<int>(ctx.inputs.size());
  std::vector<std::vector<int64_t>> strides;
  std::vector<const typename E::Storage*> ptr;
  for (int i = 0; i < n; ++i) {
    strides.push_back(broadcast_strides(ctx.in(i).shape(), y.shape()));
    ptr.push_back(ctx.in(i).raw_as<typename E::Storage>());
  }
  auto* py = y.raw_as<typename E::Storage>();
  for_each_broadcast(y.shape(), strides, [&](int64_t o, const std::vector<int64_t>& off) {
    compute_t<T> acc = E::load(ptr[0][off[0]]);
    for (int i = 1; i < n; ++i) acc = combine(acc, E::load(ptr[i][off[static_cast<size_t>(i)]]));
    py[o] = E::store(finish(acc));
  });
}

template <class F>
void eval_select(EvalContext& ctx, F pick_first) {
  visit_elem(ctx.in(0).dtype(), ctx.node.op, [&](auto tag) {
    using T = typename decltype(tag)::type;
    using C = compute_t<T>;
    fold<T>(
        ctx,
        [&](C a, C b) {
          if constexpr (std::is_floating_point_v<C>) {
            if (a != a) return a;
          }
          return pick_first(a, b) ? a : b;
        },
        [](C v) { return v; });
  });
}

// The sum, divided by the input count for Mean.
void eval_sum(EvalContext& ctx, bool mean) {
  const int count = static_cast<int>(ctx.inputs.size());
  visit_elem(ctx.in(0).dtype(), ctx.node.op, [&](auto tag) {
    using T = typename decltype(tag)::type;
    using C = compute_t<T>;
    if constexpr (is_float_tag<T>) {
      fold<T>(ctx, [](C a, C b) { return Elem<T>::round(a + b); },
              [=](C v) { return mean ? v / static_cast<C>(count) : v; });
    }
  });
}

}  // namespace

void infer_Max(InferContext& ctx) { infer_variadic(ctx, numeric_types()); }
void eval_Max(EvalContext& ctx) {
  eval_select(ctx, [](auto a, auto b) { return a > b; });
}

void infer_Min(InferContext& ctx) { infer_variadic(ctx, numeric_types()); }
void eval_Min(EvalContext& ctx) {
  eval_select(ctx, [](auto a, auto b) { return a < b; });
}

void infer_Sum(InferContext& ctx) { infer_variadic(ctx, float_types()); }
void eval_Sum(EvalContext& ctx) { eval_sum(ctx, false); }

void infer_Mean(InferContext& ctx) { infer_variadic(ctx, float_types()); }
void eval_Mean(EvalContext& ctx) { eval_sum(ctx, true); }

}  // namespace mlipc::ops
