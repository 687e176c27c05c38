// ConvTranspose: one template for 1-D, 2-D and 3-D (as 3-D with size-1
// leading axes), geometry baked in; x and the optional bias are pointers.
// Constant finite weights are packed here into 16-channel blocks for
// conv_transpose_packed.c (stride phases, a zero-bordered copy of the input
// in the scratch); other weights go through conv_transpose.c, the portable
// reference, as a pointer. Both sum in the reference's order, by fused
// multiply-adds (mlip/kfma.h, kvec.h).
// mlipc.QLinearConvTranspose (ops/conv_transpose.h): the same geometry,
// int32 sums of products of zero-point-shifted integers, QLinearConv's
// bias and per-channel requantization constants baked in.
#include <algorithm>
#include <cmath>
#include <memory>

#include "c/kernels/kernels.h"
#include "ops/conv_transpose.h"

namespace mlipc::c::kernels {

namespace {

// x and w are node inputs 0 and iw.
ops::Geometry3 set_geometry(const Graph& g, const Node& n, KernelSpec& spec, size_t iw) {
  const Shape& x = g.value(n.inputs[0]).shape;
  const Shape& w = g.value(n.inputs[iw]).shape;
  const ops::Geometry3 geo =
      ops::transpose_to_3d(ops::resolve_transpose_geometry(n.attrs, ops::spatial_of(x), ops::spatial_of(w)));
  const int64_t group = n.attrs.get_int("group", 1);
  spec.set("N", x[0]);
  spec.set("C", x[1]);
  spec.set("M", w[1] * group);
  spec.set("ICG", x[1] / group);
  spec.set("OCG", w[1]);
  set_window(spec, geo);
  spec.set("KSIZE", geo.kernel[0] * geo.kernel[1] * geo.kernel[2]);
  return geo;
}

// w [C, OCG, K...] as [group][OCG / mb blocks][ICG][K...][mb], lanes past
// OCG 0: mb = 16 (channels in lanes) or OCG (positions in lanes: one block,
// the weights of a tap side by side).
std::shared_ptr<const TensorData> pack_weights(const TensorData& w, int64_t group, int64_t mb) {
  const int64_t c = w.shape()[0], ocg = w.shape()[1], icg = c / group, k = numel(w.shape()) / (c * ocg);
  const int64_t nb = (ocg + mb - 1) / mb;
  auto t = std::make_shared<TensorData>(DType::Float32, Shape{group * nb * icg * k * mb});
  const float* src = w.data<float>();
  float* dst = t->data<float>();
  for (int64_t g = 0; g < group; ++g)
    for (int64_t ic = 0; ic < icg; ++ic)
      for (int64_t j = 0; j < ocg; ++j)
        for (int64_t q = 0; q < k; ++q)
          dst[(((g * nb + j / mb) * icg + ic) * k + q) * mb + j % mb] = src[((g * icg + ic) * ocg + j) * k + q];
  return t;
}

}  // namespace

void prepare_ConvTranspose(const Graph& g, const Node& n, KernelSpec& spec) {
  expect_float(g, n, 0);
  expect_float(g, n, 1);
  const bool has_bias = n.has_input(2);
  if (has_bias) expect_float(g, n, 2);
  const ops::Geometry3 geo = set_geometry(g, n, spec, 1);
  spec.set_flag("has_bias", has_bias);
  const Value& wv = g.value(n.inputs[1]);
  const Shape& y = g.value(n.outputs[0]).shape;
  bool packed = wv.is_constant() && numel(y) > 0 && numel(wv.shape) > 0;
  for (int64_t i = 0; packed && i < wv.constant->numel(); ++i) packed = std::isfinite(wv.constant->data<float>()[i]);
  if (!packed) {
    spec.template_name = "conv_transpose.c";
    spec.includes.push_back("mlip/kfma.h");
    spec.args = {0, 1};
    if (has_bias) spec.args.push_back(2);
    return;
  }
  // The zero border of the input copy, per axis: wide enough that every
  // tap of every output reads inside it.
  const char* axes[] = {"D", "H", "W"};
  int64_t ipsize = 1;
  for (int a = 0; a < ops::kMaxSpatial; ++a) {
    const int64_t s = geo.stride[a], span = (geo.kernel[a] - 1) * geo.dilation[a];
    const int64_t lo = std::max<int64_t>(0, (span - geo.pad_begin[a] + s - 1) / s);
    const int64_t hi = std::max<int64_t>(0, (geo.out[a] - 1 + geo.pad_begin[a]) / s - (geo.in[a] - 1));
    spec.set(std::string("LO") + axes[a], lo);
    spec.set(std::string("I") + axes[a] + "P", geo.in[a] + lo + hi);
    ipsize *= geo.in[a] + lo + hi;
  }
  const int64_t group = n.attrs.get_int("group", 1);
  const Shape& x = g.value(n.inputs[0]).shape;
  spec.template_name = "conv_transpose_packed.c";
  spec.includes.push_back("mlip/kvec.h");
  spec.set("IPSIZE", ipsize);
  spec.set("GROUPS", group);
  spec.set("NBLK", (wv.shape[1] + 15) / 16);
  spec.set("NQMAX", (geo.out[2] + geo.stride[2] - 1) / geo.stride[2]);
  // Fewer than 8 channels per group would leave most of 16 lanes empty:
  // neighbouring positions take the lanes instead.
  const bool pos_lanes = wv.shape[1] < 8;
  spec.set_flag("pos_lanes", pos_lanes);
  spec.packed.push_back(pack_weights(*wv.constant, group, pos_lanes ? wv.shape[1] : 16));
  spec.args = {0};
  if (has_bias) spec.args.push_back(2);
  // The copy, and 16 floats of slack that the lanes past a row's end may read.
  spec.scratch_bytes = static_cast<size_t>(x[1] * ipsize + 16) * sizeof(float);
}

void prepare_QLinearConvTranspose(const Graph& g, const Node& n, KernelSpec& spec) {
  expect_dtype(g, n, 0, {DType::Int8, DType::UInt8});
  expect_dtype(g, n, 3, {DType::Int8, DType::UInt8});
  spec.template_name = "qlinear_conv_transpose.c";
  set_geometry(g, n, spec, 3);
  set_integer_operands(g, n, spec, {0, 3, 2, 5}, "j");
  set_qlinear_conv_requant(g, n, spec, "j");
}

}  // namespace mlipc::c::kernels
