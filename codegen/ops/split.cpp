// Split: cuts the input along `axis` into its outputs. The part sizes come
// from the `split` input (opset 13 on; frontend/opset.cpp moves the older
// attribute there), from opset 18's `num_outputs` (ceil(length / n) each, the
// last part takes what is left), or else are equal, one part per output.
#include "ops/split.h"

#include <cstring>

#include "ops/ops.h"
#include "support/error.h"

namespace mlipc::ops {

SplitParams split_params(const Attrs& attrs, const Shape& in, const TensorData* split, int outputs) {
  const int rank = static_cast<int>(in.size());
  if (rank == 0) fail("the input is a scalar; Split needs rank 1 or more");
  SplitParams p;
  p.axis = normalize_axis(attrs.get_int("axis", 0), rank);
  const int64_t dim = in[p.axis];
  if (outputs < 1) fail("expects at least 1 output");
  if (split) {
    if (attrs.has("num_outputs")) fail("'split' and 'num_outputs' are both given; give one");
    if (split->dtype() != DType::Int64) fail("split has element type {}; supported: int64", dtype_name(split->dtype()));
    if (split->rank() != 1) fail("split must be 1-D, got shape {}", shape_str(split->shape()));
    p.sizes = split->as_int64();
    if (static_cast<int>(p.sizes.size()) != outputs)
      fail("split has {} entries but the node has {} outputs; they must match", p.sizes.size(), outputs);
    int64_t sum = 0;
    for (int64_t s : p.sizes) {
      if (s < 0) fail("split {} has a negative entry", shape_str(p.sizes));
      sum += s;
    }
    if (sum != dim) fail("split {} sums to {} but axis {} has length {}", shape_str(p.sizes), sum, p.axis, dim);
    return p;
  }
  if (attrs.has("num_outputs")) {
    const int64_t n = attrs.get_int("num_outputs");
    if (n != outputs) fail("num_outputs is {} but the node has {} outputs; they must match", n, outputs);
    const int64_t chunk = (dim + n - 1) / n;
    if (chunk * (n - 1) > dim)
      fail("axis {} of length {} cannot be split into {} parts of {} (the last part would be negative)", p.axis, dim,
           n, chunk);
    p.sizes.assign(static_cast<size_t>(n), chunk);
    p.sizes.back() = dim - chunk * (n - 1);
    return p;
  }
  if (dim % outputs != 0)
    fail("axis {} of length {} does not split into {} equal parts; give 'split'", p.axis, dim, outputs);
  p.sizes.assign(static_cast<size_t>(outputs), dim / outputs);
  return p;
}

SplitParams split_params(const Graph& g, const Node& n) {
  const Shape& in = g.value(n.inputs[0]).shape;
  if (n.has_input(1) && !g.value(n.inputs[1]).is_constant()) {
    // Sizes computed at run time: the outputs have their declared shapes.
    SplitParams p;
    p.axis = normalize_axis(n.attrs.get_int("axis", 0), static_cast<int>(in.size()));
    for (ValueId out : n.outputs) p.sizes.push_back(g.value(out).shape[p.axis]);
    return p;
  }
  const TensorData* split = n.has_input(1) ? g.value(n.inputs[1]).constant.get() : nullptr;
  return split_params(n.attrs, in, split, static_cast<int>(n.outputs.size()));
}

namespace {

// Sizes computed at run time: every output must have a declared static
// shape, the input's but along the axis, the lengths summing to the axis'
// (the kernel checks the sizes give them).
void infer_runtime_sizes(InferContext& ctx) {
  const Shape& in = ctx.in_shape(0);
  for (int i = 0; i < ctx.num_outputs(); ++i)
    if (!ctx.declared_output(i)) ctx.require_shape_const(1, "split");
  ctx.expect_dtype(1, {DType::Int64});
  if (ctx.in_shape(1) != Shape{ctx.num_outputs()})
    fail("split {} must have one entry per output ({})", shape_str(ctx.in_shape(1)), ctx.num_outputs());
  if (in.empty()) fail("the input is a scalar; Split needs rank 1 or more");
  const int axis = normalize_axis(ctx.attrs().get_int("axis", 0), static_cast<int>(in.size()));
  int64_t sum = 0;
  for (int i = 0; i < ctx.num_outputs(); ++i) {
    const Shape& d = *ctx.declared_output(i);
    bool ok = d.size() == in.size();
    for (size_t k = 0; ok && k < in.size(); ++k) ok = static_cast<int>(k) == axis || d[k] == in[k];
    if (!ok) fail("the model declares output #{} {}, which is no part of the input {} along axis {}", i, shape_str(d),
                  shape_str(in), axis);
    sum += d[axis];
  }
  if (sum != in[axis])
    fail("the model declares outputs whose lengths along axis {} sum to {}, not {}", axis, sum, in[axis]);
  for (int i = 0; i < ctx.num_outputs(); ++i) ctx.set_output(i, ctx.in_dtype(0), *ctx.declared_output(i));
}

}  // namespace

void infer_Split(InferContext& ctx) {
  ctx.expect_inputs(1, 2);
  if (ctx.has_input(1) && !ctx.in_const(1)) return infer_runtime_sizes(ctx);
  const TensorData* split = ctx.has_input(1) ? ctx.in_const(1) : nullptr;
  const SplitParams p = split_params(ctx.attrs(), ctx.in_shape(0), split, ctx.num_outputs());
  for (int i = 0; i < ctx.num_outputs(); ++i) {
    Shape s = ctx.in_shape(0);
    s[p.axis] = p.sizes[i];
    ctx.set_output(i, ctx.in_dtype(0), s);
  }
}

void eval_Split(EvalContext& ctx) {
  const TensorData& x = ctx.in(0);
  const SplitParams p = split_params(ctx.attrs(), x.shape(), ctx.has_input(1) ? &ctx.in(1) : nullptr,
                                     static_cast<int>(ctx.outputs.size()));
  for (size_t k = 0; k < ctx.outputs.size(); ++k)
    if (ctx.outputs[k].dtype() != DType::Undefined && ctx.outputs[k].shape()[p.axis] != p.sizes[k])
      fail("the run-time split {} does not give the declared output #{} {}", shape_str(p.sizes), k,
           shape_str(ctx.outputs[k].shape()));
  int64_t outer = 1, inner = 1;
  for (int d = 0; d < p.axis; ++d) outer *= x.shape()[d];
  for (int d = p.axis + 1; d < x.rank(); ++d) inner *= x.shape()[d];
  const size_t esize = dtype_size(x.dtype());
  const size_t row = static_cast<size_t>(x.shape()[p.axis] * inner) * esize;
  size_t offset = 0;
  for (size_t k = 0; k < ctx.outputs.size(); ++k) {
    const size_t chunk = static_cast<size_t>(p.sizes[k] * inner) * esize;
    if (ctx.outputs[k].dtype() != DType::Undefined && chunk > 0)
      for (int64_t o = 0; o < outer; ++o)
        std::memcpy(ctx.outputs[k].raw() + o * chunk, x.raw() + o * row + offset, chunk);
    offset += chunk;
  }
}

}  // namespace mlipc::ops
