// ConvInteger and QLinearConv: one template for 1-D to 3-D (as 3-D with
// size-1 leading axes), geometry baked in, zero points and bias as
// pointers, and for QLinearConv the per-channel requantization constants
// baked in.
#include <fmt/format.h>

#include "c/kernels/kernels.h"
#include "ops/conv_integer.h"
#include "support/error.h"

namespace mlipc::c::kernels {

namespace {

// x and w are node inputs ix and iw, their zero points zx and zw.
void set_common(const Graph& g, const Node& n, KernelSpec& spec, int ix, int iw, int zx, int zw) {
  const Shape& x = g.value(n.inputs[static_cast<size_t>(ix)]).shape;
  const Shape& w = g.value(n.inputs[static_cast<size_t>(iw)]).shape;
  const ops::Geometry3 geo = ops::to_3d(ops::int_conv_geometry(n.attrs, x, w));
  const int64_t group = n.attrs.get_int("group", 1);
  spec.template_name = "conv_integer.c";
  spec.set("N", x[0]);
  spec.set("C", x[1]);
  spec.set("M", w[0]);
  spec.set("ICG", x[1] / group);
  spec.set("OCG", w[0] / group);
  set_window(spec, geo);
  spec.set("WSIZE", x[1] / group * geo.kernel[0] * geo.kernel[1] * geo.kernel[2]);
  set_integer_operands(g, n, spec, {ix, iw, zx, zw}, "m");
}

}  // namespace

void set_integer_operands(const Graph& g, const Node& n, KernelSpec& spec, const std::array<int, 4>& in,
                          const char* channel) {
  const auto [ix, iw, zx, zw] = in;
  spec.set("x_t", std::string(dtype_ctype(g.value(n.inputs[static_cast<size_t>(ix)]).dtype)));
  spec.set("w_t", std::string(dtype_ctype(g.value(n.inputs[static_cast<size_t>(iw)]).dtype)));
  spec.args = {ix, iw};
  const bool has_zx = n.has_input(static_cast<size_t>(zx)), has_zw = n.has_input(static_cast<size_t>(zw));
  spec.set_flag("has_zx", has_zx);
  spec.set_flag("has_zw", has_zw);
  if (has_zx) spec.args.push_back(zx);
  if (has_zw) {
    spec.args.push_back(zw);
    spec.set("zw_index", numel(g.value(n.inputs[static_cast<size_t>(zw)]).shape) > 1 ? channel : "0");
  }
}

void prepare_ConvInteger(const Graph& g, const Node& n, KernelSpec& spec) {
  expect_dtype(g, n, 0, {DType::Int8, DType::UInt8});
  expect_dtype(g, n, 1, {DType::Int8, DType::UInt8});
  set_common(g, n, spec, 0, 1, 2, 3);
  spec.set_flag("qlinear", false);
  spec.set_flag("has_bias", false);
  spec.set("y_t", "int32_t");
}

void set_qlinear_conv_requant(const Graph& g, const Node& n, KernelSpec& spec, const char* channel) {
  auto constant = [&](int i) -> const TensorData& {
    const TensorData* t = g.value(n.inputs[static_cast<size_t>(i)]).constant.get();
    if (!t) fail("internal: {} scale #{} is not a constant", n.op, i);
    return *t;
  };
  const std::vector<ops::Requant> q = ops::conv_requant(constant(1), constant(4), constant(6));
  std::vector<std::string> qs, shifts;
  for (const ops::Requant& r : q) {
    qs.push_back(c_int(r.q));
    shifts.push_back(c_int(r.shift));
  }
  const DType out = g.value(n.outputs[0]).dtype;
  spec.set("y_t", std::string(dtype_ctype(out)));
  spec.set("NQ", static_cast<int64_t>(q.size()));
  spec.set("q_list", fmt::format("{}", fmt::join(qs, ", ")));
  spec.set("shift_list", fmt::format("{}", fmt::join(shifts, ", ")));
  spec.set("q_index", q.size() > 1 ? channel : "0");
  spec.set("LO", c_int(ops::clamp_lo(n.attrs, out)));
  spec.set("HI", c_int(ops::clamp_hi(n.attrs, out)));
  spec.args.push_back(7);
  const bool has_bias = n.has_input(8);
  spec.set_flag("has_bias", has_bias);
  if (has_bias) spec.args.push_back(8);
  spec.includes.push_back("mlip/requant.h");
}

void prepare_QLinearConv(const Graph& g, const Node& n, KernelSpec& spec) {
  expect_dtype(g, n, 0, {DType::Int8, DType::UInt8});
  expect_dtype(g, n, 3, {DType::Int8, DType::UInt8});
  set_common(g, n, spec, 0, 3, 2, 5);
  spec.set_flag("qlinear", true);
  set_qlinear_conv_requant(g, n, spec, "m");
}

}  // namespace mlipc::c::kernels
