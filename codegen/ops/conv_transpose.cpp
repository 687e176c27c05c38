// ConvTranspose: the transpose (gradient) of Conv, 1-D to 3-D, with groups,
// strides, dilations, pads or auto_pad, output_padding, output_shape and an
// optional bias. float32 only.
//
// Output extent of axis i (ONNX):
//   out = stride * (in - 1) + output_padding + (kernel - 1) * dilation + 1 - pad_begin - pad_end
// With output_shape (or auto_pad SAME_*, where output_shape = in * stride) the
// pads are derived from the total padding
//   total = stride * (in - 1) + output_padding + (kernel - 1) * dilation + 1 - output_shape
// SAME_UPPER: begin = floor(total / 2), end = total - begin; otherwise
// (NOTSET, SAME_LOWER): end = floor(total / 2), begin = total - end: the ONNX
// specification and its reference, and onnxruntime 1.30 on the cases it
// accepts. A negative total (output_shape beyond the kernel's reach) gives
// negative pads: cells no input reaches, holding the bias; onnxruntime
// refuses such an output_shape once the excess reaches the stride.
#include "ops/conv_transpose.h"

#include <algorithm>
#include <cmath>
#include <string>

#include <fmt/format.h>

#include "ops/ops.h"
#include "support/error.h"

namespace mlipc::ops {

namespace {

std::string list_str(const std::vector<int64_t>& v) { return fmt::format("[{}]", fmt::join(v, ",")); }

int64_t floor_div2(int64_t v) { return v >= 0 ? v / 2 : -((-v + 1) / 2); }

std::vector<int64_t> ints_of(const Attrs& a, const std::string& name, size_t n, int64_t def, int64_t min) {
  std::vector<int64_t> v = a.get_ints(name, std::vector<int64_t>(n, def));
  if (v.size() != n) fail("attribute {} has {} values; the input has {} spatial axes", name, v.size(), n);
  for (int64_t x : v)
    if (x < min) fail("attribute {} {} must be {}", name, list_str(v), min == 0 ? "non-negative" : "positive");
  return v;
}

}  // namespace

TransposeGeometry resolve_transpose_geometry(const Attrs& attrs, const std::vector<int64_t>& in,
                                             const std::vector<int64_t>& kernel) {
  const size_t n = in.size();
  TransposeGeometry g;
  g.in = in;
  g.kernel = kernel;
  if (attrs.has("kernel_shape") && attrs.get_ints("kernel_shape") != kernel)
    fail("attribute kernel_shape {} does not match the weights' spatial shape {}",
         list_str(attrs.get_ints("kernel_shape")), list_str(kernel));
  g.strides = ints_of(attrs, "strides", n, 1, 1);
  g.dilations = ints_of(attrs, "dilations", n, 1, 1);
  g.output_padding = ints_of(attrs, "output_padding", n, 0, 0);

  // The extent the kernel reaches without padding, per axis.
  std::vector<int64_t> full(n);
  for (size_t i = 0; i < n; ++i)
    full[i] = g.strides[i] * (in[i] - 1) + g.output_padding[i] + (kernel[i] - 1) * g.dilations[i] + 1;

  const std::string auto_pad = attrs.get_string("auto_pad", "NOTSET");
  if (auto_pad != "NOTSET" && auto_pad != "VALID" && auto_pad != "SAME_UPPER" && auto_pad != "SAME_LOWER")
    fail("attribute auto_pad '{}' is not one of NOTSET, SAME_UPPER, SAME_LOWER, VALID", auto_pad);
  std::vector<int64_t> wanted;  // output_shape, explicit or implied by SAME_*
  if (attrs.has("output_shape")) {
    wanted = attrs.get_ints("output_shape");
    // Some exporters write the whole output shape [N, C, spatial...].
    if (wanted.size() == n + 2) wanted.erase(wanted.begin(), wanted.begin() + 2);
    if (wanted.size() != n)
      fail("attribute output_shape {} has {} values; the input has {} spatial axes",
           list_str(attrs.get_ints("output_shape")), attrs.get_ints("output_shape").size(), n);
    for (int64_t v : wanted)
      if (v < 1) fail("attribute output_shape {} must be positive", list_str(wanted));
  } else if (auto_pad == "SAME_UPPER" || auto_pad == "SAME_LOWER") {
    for (size_t i = 0; i < n; ++i) wanted.push_back(in[i] * g.strides[i]);
  }

  if (!wanted.empty()) {
    for (int64_t p : attrs.get_ints("pads", {}))
      if (p != 0) fail("attribute pads cannot be used together with output_shape or auto_pad {}", auto_pad);
    g.pads.assign(2 * n, 0);
    for (size_t i = 0; i < n; ++i) {
      const int64_t total = full[i] - wanted[i];
      const int64_t half = floor_div2(total);
      g.pads[i] = auto_pad == "SAME_UPPER" ? half : total - half;
      g.pads[n + i] = total - g.pads[i];
    }
  } else if (auto_pad == "VALID") {
    for (int64_t p : attrs.get_ints("pads", {}))
      if (p != 0) fail("attribute pads cannot be used together with auto_pad VALID");
    g.pads.assign(2 * n, 0);
  } else {
    g.pads = attrs.get_ints("pads", std::vector<int64_t>(2 * n, 0));
    if (g.pads.size() != 2 * n)
      fail("attribute pads has {} values; {} spatial axes need {} (begins, then ends)", g.pads.size(), n, 2 * n);
  }
  for (size_t i = 0; i < n; ++i) {
    g.out.push_back(full[i] - g.pads[i] - g.pads[n + i]);
    if (g.out[i] < 1)
      fail("output extent {} of spatial axis {} is not positive (input {}, kernel {}, stride {}, dilation {}, pads {})",
           g.out[i], i, in[i], kernel[i], g.strides[i], g.dilations[i], list_str(g.pads));
  }
  return g;
}

Geometry3 transpose_to_3d(const TransposeGeometry& g) {
  Geometry3 r{};
  const int rank = static_cast<int>(g.in.size());
  const int lead = kMaxSpatial - rank;
  if (lead < 0) fail("internal: {} spatial axes; at most {} are supported", rank, kMaxSpatial);
  for (int i = 0; i < kMaxSpatial; ++i) {
    const int k = i - lead;
    const bool real = k >= 0;
    const size_t s = static_cast<size_t>(real ? k : 0);
    r.in[i] = real ? g.in[s] : 1;
    r.out[i] = real ? g.out[s] : 1;
    r.kernel[i] = real ? g.kernel[s] : 1;
    r.stride[i] = real ? g.strides[s] : 1;
    r.dilation[i] = real ? g.dilations[s] : 1;
    r.pad_begin[i] = real ? g.pads[s] : 0;
    r.pad_end[i] = real ? g.pads[static_cast<size_t>(rank) + s] : 0;
  }
  return r;
}

void store_transpose_geometry(Attrs& a, const TransposeGeometry& g, int64_t group) {
  a.set("kernel_shape", g.kernel);
  a.set("strides", g.strides);
  a.set("dilations", g.dilations);
  a.set("output_padding", g.output_padding);
  a.set("pads", g.pads);
  a.set("group", group);
  a.erase("auto_pad");
  a.erase("output_shape");
}

int64_t transpose_source(const Geometry3& g, int axis, int64_t o, int64_t k) {
  const int64_t p = o + g.pad_begin[axis] - k * g.dilation[axis];
  if (p < 0 || p % g.stride[axis] != 0) return -1;
  const int64_t i = p / g.stride[axis];
  return i < g.in[axis] ? i : -1;
}

void infer_ConvTranspose(InferContext& ctx) {
  ctx.expect_inputs(2, 3);
  if (ctx.num_outputs() != 1) fail("expects 1 output, got {}", ctx.num_outputs());
  ctx.expect_dtype(0, {DType::Float32});
  ctx.expect_dtype(1, {DType::Float32});
  if (ctx.has_input(2)) ctx.expect_dtype(2, {DType::Float32});
  const Shape& x = ctx.in_shape(0);
  const Shape& w = ctx.in_shape(1);
  if (x.size() < 3 || x.size() > 2 + kMaxSpatial)
    fail("input X has shape {}; ConvTranspose supports 1-D to 3-D data: [N, C, D1 (, D2 (, D3))]", shape_str(x));
  if (w.size() != x.size())
    fail("weights W have shape {}; for input {} they must be [C, M/group{}] with rank {}", shape_str(w), shape_str(x),
         x.size() == 3 ? ", k" : (x.size() == 4 ? ", kH, kW" : ", kD, kH, kW"), x.size());
  const int64_t group = ctx.attrs().get_int("group", 1);
  if (group < 1 || x[1] % group != 0)
    fail("group {} must be positive and divide the input channels ({})", group, x[1]);
  if (w[0] != x[1])
    fail("weights W {} have {} input channels; input X {} has {}", shape_str(w), w[0], shape_str(x), x[1]);
  const int64_t m = w[1] * group;
  if (ctx.has_input(2) && ctx.in_shape(2) != Shape{m})
    fail("bias B has shape {}; it must be [{}] (one value per output channel)", shape_str(ctx.in_shape(2)), m);

  TransposeGeometry g = resolve_transpose_geometry(ctx.attrs(), spatial_of(x), spatial_of(w));
  store_transpose_geometry(ctx.attrs(), g, group);
  Shape out = {x[0], m};
  out.insert(out.end(), g.out.begin(), g.out.end());
  ctx.set_output(0, DType::Float32, out);
}

// Each output sums, from 0.0f, x * w by fused multiply-adds (one rounding:
// std::fma, the kernels' mlip_fmaf and MLIP_VFMAS) over the input channels of its group,
// then the taps kd, kh, kw in that order, taking only the taps whose input
// position od + pad_begin - kd * dilation is a multiple of the stride inside
// the input; then the bias. templates/kernels/conv_transpose.c scatters in
// the same order (for one output and one tap there is at most one input);
// conv_transpose_packed.c gathers each output's taps in it (stride phases).
void eval_ConvTranspose(EvalContext& ctx) {
  const TensorData& xt = ctx.in(0);
  const TensorData& wt = ctx.in(1);
  const Geometry3 g =
      transpose_to_3d(resolve_transpose_geometry(ctx.attrs(), spatial_of(xt.shape()), spatial_of(wt.shape())));
  const int64_t group = ctx.attrs().get_int("group", 1);
  const int64_t n_batch = xt.shape()[0], c = xt.shape()[1], ocg = wt.shape()[1];
  const float* x = xt.data<float>();
  const float* w = wt.data<float>();
  const float* b = ctx.has_input(2) ? ctx.in(2).data<float>() : nullptr;
  float* y = ctx.outputs[0].data<float>();
  transpose_gather<float>(
      g, n_batch, c, group, ocg, [&](float& sum, int64_t xi, int64_t wi, int64_t) { sum = std::fma(x[xi], w[wi], sum); },
      [&](int64_t yi, int64_t oc, float sum) { y[yi] = b ? sum + b[oc] : sum; });
}

// Each input element scatters into numel / C outputs of its weights [C,
// M/group, k...] (ConvTranspose, mlipc.QLinearConvTranspose).
uint64_t conv_transpose_macs(const Graph& g, const Node& n) {
  const ValueId w = weight_of(n);
  if (w == kNoValue || n.outputs.empty() || n.outputs[0] == kNoValue) return 0;
  const Shape& ws = g.value(w).shape;
  if (ws.size() < 2) return 0;
  const uint64_t per_channel = static_cast<uint64_t>(numel(ws) / std::max<int64_t>(1, ws[0]));
  return static_cast<uint64_t>(numel(g.value(n.inputs[0]).shape)) * per_channel;
}

}  // namespace mlipc::ops
