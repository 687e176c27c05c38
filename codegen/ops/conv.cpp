// Conv: 1-D to 3-D convolution with groups, strides, dilations, pads or
// auto_pad, an optional bias and a fused activation. float32 only. After
// passes/fuse_residual, input 3 is a tensor of the output's shape added
// before the activation (attribute mlipc_residual = 1; an ONNX model's Conv
// has at most 3 inputs). After passes/fuse_pool, the output is a MaxPool of
// the convolution (ops/conv.h).
#include <algorithm>

#include "ops/activation.h"
#include "ops/conv.h"
#include "ops/ops.h"
#include "ops/spatial.h"
#include "ops/window.h"
#include "support/error.h"

namespace mlipc::ops {

namespace {

const GeometryRules kConvRules{/*dilations=*/true, /*ceil_mode=*/false};

Geometry conv_geometry(const Attrs& attrs, const Shape& x, const Shape& w) {
  return resolve_geometry(attrs, spatial_of(x), spatial_of(w), kConvRules);
}

}  // namespace

bool has_fused_pool(const Attrs& conv) { return conv.has(std::string(kFusedPoolPrefix) + "kernel_shape"); }

Attrs fused_pool_attrs(const Attrs& conv) {
  const std::string prefix = kFusedPoolPrefix;
  Attrs pool;
  for (const auto& [name, value] : conv.all())
    if (name.compare(0, prefix.size(), prefix) == 0) pool.set(name.substr(prefix.size()), value);
  return pool;
}

void set_fused_pool(Attrs& conv, const Attrs& pool) {
  for (const auto& [name, value] : pool.all()) conv.set(kFusedPoolPrefix + name, value);
}

void infer_Conv(InferContext& ctx) {
  ctx.expect_inputs(2, ctx.attrs().get_int("mlipc_residual", 0) == 1 ? 4 : 3);
  if (ctx.num_outputs() != 1) fail("expects 1 output, got {}", ctx.num_outputs());
  ctx.expect_dtype(0, {DType::Float32});
  ctx.expect_dtype(1, {DType::Float32});
  if (ctx.has_input(2)) ctx.expect_dtype(2, {DType::Float32});
  const Shape& x = ctx.in_shape(0);
  const Shape& w = ctx.in_shape(1);
  if (x.size() < 3 || x.size() > 2 + kMaxSpatial)
    fail("input X has shape {}; Conv supports 1-D to 3-D data: [N, C, D1 (, D2 (, D3))]", shape_str(x));
  if (w.size() != x.size())
    fail("weights W have shape {}; for input {} they must be [M, C/group{}] with rank {}", shape_str(w), shape_str(x),
         x.size() == 3 ? ", k" : (x.size() == 4 ? ", kH, kW" : ", kD, kH, kW"), x.size());
  const int64_t group = ctx.attrs().get_int("group", 1);
  const int64_t c = x[1], m = w[0];
  if (group < 1 || c % group != 0 || m % group != 0)
    fail("group {} must be positive and divide both the input channels ({}) and the output channels ({})", group, c,
         m);
  if (w[1] != c / group)
    fail("weights W {} have {} input channels per group; input X {} with group {} needs {}", shape_str(w), w[1],
         shape_str(x), group, c / group);
  if (ctx.has_input(2) && ctx.in_shape(2) != Shape{m})
    fail("bias B has shape {}; it must be [{}] (one value per output channel)", shape_str(ctx.in_shape(2)), m);

  Geometry g = conv_geometry(ctx.attrs(), x, w);
  store_geometry(ctx.attrs(), g, kConvRules);
  ctx.attrs().set("group", group);
  Shape out = {x[0], m};
  out.insert(out.end(), g.out.begin(), g.out.end());
  if (has_fused_pool(ctx.attrs())) {
    const Geometry p = maxpool_geometry(fused_pool_attrs(ctx.attrs()), out);
    out.resize(2);
    out.insert(out.end(), p.out.begin(), p.out.end());
  }
  if (ctx.has_input(3)) {
    ctx.expect_dtype(3, {DType::Float32});
    if (ctx.in_shape(3) != out) fail("internal: residual {} is not the output's shape {}", shape_str(ctx.in_shape(3)), shape_str(out));
  }
  ctx.set_output(0, DType::Float32, out);
}

// The summation order of templates/kernels/conv.c (which sums tap by tap): for each
// output, sum over input channels of the group, then kd, kh, kw; padding
// taps are skipped (ops/window.h, conv_sums); then the bias, the residual,
// the activation.
void eval_Conv(EvalContext& ctx) {
  if (has_fused_pool(ctx.attrs())) {
    // The convolution, then MaxPool's own reference on it.
    Node conv = ctx.node;
    Node pool;
    pool.op = "MaxPool";
    pool.attrs = fused_pool_attrs(conv.attrs);
    for (const auto& [name, value] : pool.attrs.all()) conv.attrs.erase(kFusedPoolPrefix + name);
    const TensorData& xt = ctx.in(0);
    const Geometry g = conv_geometry(conv.attrs, xt.shape(), ctx.in(1).shape());
    Shape shape = {xt.shape()[0], ctx.in(1).shape()[0]};
    shape.insert(shape.end(), g.out.begin(), g.out.end());
    std::vector<TensorData> conv_out = {TensorData(DType::Float32, shape)};
    EvalContext c{conv, ctx.inputs, conv_out};
    eval_Conv(c);
    EvalContext p{pool, {&conv_out[0]}, ctx.outputs};
    eval_MaxPool(p);
    return;
  }
  const TensorData& xt = ctx.in(0);
  const TensorData& wt = ctx.in(1);
  const Geometry3 g = to_3d(conv_geometry(ctx.attrs(), xt.shape(), wt.shape()));
  const Activation act = activation_of(ctx.attrs());
  const int64_t group = ctx.attrs().get_int("group", 1);
  const int64_t n_batch = xt.shape()[0], c = xt.shape()[1], m = wt.shape()[0];
  const int64_t icg = c / group, ksize = kernel_size(g);
  const float* x = xt.data<float>();
  const float* w = wt.data<float>();
  const float* b = ctx.has_input(2) ? ctx.in(2).data<float>() : nullptr;
  const float* res = ctx.has_input(3) ? ctx.in(3).data<float>() : nullptr;
  float* y = ctx.outputs[0].data<float>();
  conv_sums<float>(g, n_batch, c, m, group, x, [&](int64_t oc, int64_t ic, int64_t k) { return w[(oc * icg + ic) * ksize + k]; },
                   [&](int64_t k, int64_t oc, float sum) {
                     float v = b ? sum + b[oc] : sum;
                     if (res) v += res[k];
                     y[k] = act.apply(v);
                   });
}

// Each output element sums its output channel's weights: [M, C/group, k...]
// has numel / M of them (Conv, ConvInteger, QLinearConv: the weights are
// the input OpTraits::weight names). With a fused pool the node's output is
// the pool's: the convolution's own plane, larger, is what is summed.
uint64_t conv_macs(const Graph& g, const Node& n) {
  const ValueId w = weight_of(n);
  if (w == kNoValue || n.outputs.empty() || n.outputs[0] == kNoValue) return 0;
  const Shape& ws = g.value(w).shape;
  if (ws.size() < 2) return 0;
  const uint64_t per_channel = static_cast<uint64_t>(numel(ws) / std::max<int64_t>(1, ws[0]));
  int64_t outputs = numel(g.value(n.outputs[0]).shape);
  if (has_fused_pool(n.attrs)) {
    const Shape& x = g.value(n.inputs[0]).shape;
    outputs = x[0] * ws[0];
    for (int64_t d : conv_geometry(n.attrs, x, ws).out) outputs *= d;
  }
  return static_cast<uint64_t>(outputs) * per_channel;
}

}  // namespace mlipc::ops
