// ConvTranspose: one template for 1-D, 2-D and 3-D (as 3-D with size-1
// leading axes), geometry baked in; x, w and the optional bias are pointers.
// mlipc.QLinearConvTranspose (ops/conv_transpose.h): the same geometry,
// int32 sums of products of zero-point-shifted integers, QLinearConv's
// bias and per-channel requantization constants baked in.
#include "c/kernels/kernels.h"
#include "ops/conv_transpose.h"

namespace mlipc::c::kernels {

namespace {

// x and w are node inputs 0 and iw.
void set_geometry(const Graph& g, const Node& n, KernelSpec& spec, size_t iw) {
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
}

}  // namespace

void prepare_ConvTranspose(const Graph& g, const Node& n, KernelSpec& spec) {
  expect_float(g, n, 0);
  expect_float(g, n, 1);
  const bool has_bias = n.has_input(2);
  if (has_bias) expect_float(g, n, 2);
  spec.template_name = "conv_transpose.c";
  set_geometry(g, n, spec, 1);
  spec.set_flag("has_bias", has_bias);
  spec.args = {0, 1};
  if (has_bias) spec.args.push_back(2);
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
