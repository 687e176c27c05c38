// MatMulInteger (int32 output) and QLinearMatMul (requantized int8/uint8
// output; its 16x8 form int16 too, in int64). Integer sums are exact, so
// any summation order gives the same bits; the shape rule bounds K so that
// no int32 sum can overflow.
#include "ops/matmul_integer.h"

#include "ops/broadcast.h"
#include "ops/ops.h"
#include "mlip/requant.h"
#include "support/error.h"

namespace mlipc::ops {

int64_t per_row_count(const Shape& s, int64_t m, std::string_view name) {
  if (numel(s) == 1 && s.size() <= 1) return 1;
  if (s == Shape{m} || s == Shape{m, 1}) return m;
  fail("{} has shape {}; it must be one value or one per row of A ([{}] or [{},1])", name, shape_str(s), m, m);
}

int64_t per_column_count(const Shape& s, int64_t n, std::string_view name) {
  if (numel(s) == 1 && s.size() <= 1) return 1;
  if (s == Shape{n} || s == Shape{1, n}) return n;
  fail("{} has shape {}; it must be one value or one per column of B ([{}] or [1,{}])", name, shape_str(s), n, n);
}

bool qmatmul_wide(DType a, DType b, DType y) {
  return a == DType::Int16 || b == DType::Int16 || y == DType::Int16;
}

MatMulRequant matmul_requant(const TensorData& a_scale, const TensorData& b_scale, const TensorData& y_scale,
                             int64_t m, int64_t n, RequantMode mode) {
  MatMulRequant q;
  q.rows = per_row_count(a_scale.shape(), m, "a_scale");
  q.cols = per_column_count(b_scale.shape(), n, "b_scale");
  const float ys = y_scale.data<float>()[0];
  for (int64_t i = 0; i < q.rows; ++i)
    for (int64_t j = 0; j < q.cols; ++j)
      q.r.push_back(requant_multiplier(a_scale.data<float>()[i], b_scale.data<float>()[j], ys, mode));
  return q;
}

namespace {

MatMulDims checked_dims(const InferContext& ctx, int a, int b, bool wide = false) {
  const MatMulDims d = matmul_dims(ctx.in_shape(a), ctx.in_shape(b));
  if (!wide && d.k > kMaxAccumulatedProducts)  // 16x8: an int64 sum of products below 2^32
    fail("K = {} products per output could overflow the int32 accumulator (at most {})", d.k,
         kMaxAccumulatedProducts);
  return d;
}

// acc(i, j) = sum_p (a[i, p] - za[i]) * (b[p, j] - zb[j]) for every output
// matrix; store(flat output index, i, j, acc).
template <class Acc = int32_t, class F>
void int_matmul(const MatMulDims& d, const TensorData& at, const TensorData& bt, const std::vector<int32_t>& za,
                const std::vector<int32_t>& zb, F&& store) {
  const std::vector<int32_t> a = int32_values(at), b = int32_values(bt);
  for_each_broadcast(d.batch, {d.a_batch_stride, d.b_batch_stride},
                     [&](int64_t batch, const std::vector<int64_t>& off) {
                       for (int64_t i = 0; i < d.m; ++i)
                         for (int64_t j = 0; j < d.n; ++j) {
                           const int32_t zai = za.size() > 1 ? za[static_cast<size_t>(i)] : za[0];
                           const int32_t zbj = zb.size() > 1 ? zb[static_cast<size_t>(j)] : zb[0];
                           Acc acc = 0;
                           for (int64_t p = 0; p < d.k; ++p)
                             acc += static_cast<Acc>(a[static_cast<size_t>(off[0] + i * d.k + p)] - zai) *
                                    (b[static_cast<size_t>(off[1] + p * d.n + j)] - zbj);
                           store((batch * d.m + i) * d.n + j, i, j, acc);
                         }
                     });
}

std::vector<int32_t> zero_points(const EvalContext& ctx, int i) {
  return ctx.has_input(i) ? int32_values(ctx.in(i)) : std::vector<int32_t>(1, 0);
}

}  // namespace

void infer_MatMulInteger(InferContext& ctx) {
  ctx.expect_inputs(2, 4);
  if (ctx.num_outputs() != 1) fail("expects 1 output, got {}", ctx.num_outputs());
  expect_quant_type(ctx, 0, "A");
  expect_quant_type(ctx, 1, "B");
  expect_same_type(ctx, 2, "a_zero_point", ctx.in_dtype(0), "A");
  expect_same_type(ctx, 3, "b_zero_point", ctx.in_dtype(1), "B");
  const MatMulDims d = checked_dims(ctx, 0, 1);
  if (ctx.has_input(2)) per_row_count(ctx.in_shape(2), d.m, "a_zero_point");
  if (ctx.has_input(3)) per_column_count(ctx.in_shape(3), d.n, "b_zero_point");
  ctx.set_output(0, DType::Int32, d.out);
}

void eval_MatMulInteger(EvalContext& ctx) {
  const MatMulDims d = matmul_dims(ctx.in(0).shape(), ctx.in(1).shape());
  int32_t* y = ctx.outputs[0].data<int32_t>();
  int_matmul(d, ctx.in(0), ctx.in(1), zero_points(ctx, 2), zero_points(ctx, 3),
             [&](int64_t k, int64_t, int64_t, int32_t acc) { y[k] = acc; });
}

// Inputs: a, a_scale, a_zero_point, b, b_scale, b_zero_point, y_scale,
// y_zero_point. Scales must be constants: their quotient becomes the
// kernel's fixed-point multipliers.
void infer_QLinearMatMul(InferContext& ctx) {
  ctx.expect_inputs(8, 8);
  if (ctx.num_outputs() != 1) fail("expects 1 output, got {}", ctx.num_outputs());
  const bool wide = qmatmul_wide(ctx.in_dtype(0), ctx.in_dtype(3), ctx.in_dtype(7));
  if (wide) {  // 16x8: int16 and int8 only
    for (auto [i, name] : {std::pair{0, "a"}, std::pair{3, "b"}, std::pair{7, "y_zero_point"}})
      if (ctx.in_dtype(i) != DType::Int16 && ctx.in_dtype(i) != DType::Int8)
        fail("{} is {}; with int16 (16x8) operands every type is int16 or int8", name, dtype_name(ctx.in_dtype(i)));
  } else {
    expect_quant_type(ctx, 0, "a");
    expect_quant_type(ctx, 3, "b");
    expect_quant_type(ctx, 7, "y_zero_point");
  }
  expect_same_type(ctx, 2, "a_zero_point", ctx.in_dtype(0), "a");
  expect_same_type(ctx, 5, "b_zero_point", ctx.in_dtype(3), "b");
  for (int i : {1, 4, 6}) ctx.expect_dtype(i, {DType::Float32});
  const MatMulDims d = checked_dims(ctx, 0, 3, wide);
  per_row_count(ctx.in_shape(1), d.m, "a_scale");
  per_column_count(ctx.in_shape(4), d.n, "b_scale");
  expect_one_value(ctx.in_shape(6), "y_scale");
  // A zero point is per tensor or per row (column) independently of its scale.
  per_row_count(ctx.in_shape(2), d.m, "a_zero_point");
  per_column_count(ctx.in_shape(5), d.n, "b_zero_point");
  expect_one_value(ctx.in_shape(7), "y_zero_point");
  const TensorData& as = ctx.require_const(1, "a_scale");
  const TensorData& bs = ctx.require_const(4, "b_scale");
  const TensorData& ys = ctx.require_const(6, "y_scale");
  check_scale_values(as, "a_scale");
  check_scale_values(bs, "b_scale");
  check_scale_values(ys, "y_scale");
  matmul_requant(as, bs, ys, d.m, d.n);  // throws when a multiplier is out of range
  ctx.set_output(0, ctx.in_dtype(7), d.out);
}

void eval_QLinearMatMul(EvalContext& ctx) {
  const MatMulDims d = matmul_dims(ctx.in(0).shape(), ctx.in(3).shape());
  const MatMulRequant q = matmul_requant(ctx.in(1), ctx.in(4), ctx.in(6), d.m, d.n, requant_mode(ctx.attrs()));
  const int32_t zy = zero_points(ctx, 7)[0];
  TensorData& yt = ctx.outputs[0];
  const int32_t lo = quant_min(yt.dtype()), hi = quant_max(yt.dtype());
  auto requant = [&](int64_t i, int64_t j) -> const Requant& {
    return q.r[static_cast<size_t>((q.rows > 1 ? i : 0) * q.cols + (q.cols > 1 ? j : 0))];
  };
  if (qmatmul_wide(ctx.in(0).dtype(), ctx.in(3).dtype(), yt.dtype())) {
    int_matmul<int64_t>(d, ctx.in(0), ctx.in(3), zero_points(ctx, 2), zero_points(ctx, 5),
                        [&](int64_t k, int64_t i, int64_t j, int64_t acc) {
                          const Requant& r = requant(i, j);
                          const int32_t v = mlip_requantize64(acc, r.q, r.shift, zy, lo, hi);
                          if (yt.dtype() == DType::Int16)
                            yt.data<int16_t>()[k] = static_cast<int16_t>(v);
                          else
                            yt.data<int8_t>()[k] = static_cast<int8_t>(v);
                        });
    return;
  }
  int_matmul(d, ctx.in(0), ctx.in(3), zero_points(ctx, 2), zero_points(ctx, 5),
             [&](int64_t k, int64_t i, int64_t j, int32_t acc) {
               const Requant& r = q.r[static_cast<size_t>((q.rows > 1 ? i : 0) * q.cols + (q.cols > 1 ? j : 0))];
               const int32_t v = mlip_requantize(acc, r.q, r.shift, zy, lo, hi);
               if (yt.dtype() == DType::Int8)
                 yt.data<int8_t>()[k] = static_cast<int8_t>(v);
               else
                 yt.data<uint8_t>()[k] = static_cast<uint8_t>(v);
             });
}

}  // namespace mlipc::ops
