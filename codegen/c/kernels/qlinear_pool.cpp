// QLinearGlobalAveragePool (NCHW): per plane an int32 sum of x - zx, one
// requantization by x_scale / (y_scale * plane size), baked in; on
// mlip/kq8.h's mlip_kq8_gap (Helium and DSP variants); int16 (16x8): an
// int64 sum in reference loops.
// QLinearAveragePool: AveragePool's loops on integers, one baked (q, shift)
// per window count; int16 (16x8): the sum in int64, mlip_requantize64.
// mlipc.QLinearLookup: the table lookup (int16: mlip/lut16.h's interpolation).
#include <fmt/format.h>

#include "c/kernels/kernels.h"
#include "ops/spatial.h"
#include "ops/qlinear.h"
#include "support/error.h"

namespace mlipc::c::kernels {

void prepare_QLinearGlobalAveragePool(const Graph& g, const Node& n, KernelSpec& spec) {
  const Value& x = g.value(n.inputs[0]);
  const DType t = x.dtype;
  auto c = [&](int i) -> const TensorData* {
    return n.has_input(static_cast<size_t>(i)) ? g.value(n.inputs[static_cast<size_t>(i)]).constant.get() : nullptr;
  };
  if (!c(1) || !c(3)) fail("internal: QLinearGlobalAveragePool scales are not constants");
  const int32_t zx = c(2) ? static_cast<int32_t>(c(2)->as_int64()[0]) : 0;
  const int32_t zy = c(4) ? static_cast<int32_t>(c(4)->as_int64()[0]) : 0;
  const int64_t planes = x.shape[0] * x.shape[1];
  const int64_t size = planes == 0 ? 0 : numel(x.shape) / planes;
  const ops::Requant r = size == 0 ? ops::Requant{}
                                   : ops::mean_requant(c(1)->data<float>()[0], c(3)->data<float>()[0], size,
                                                       ops::requant_mode(n.attrs), "the mean");
  // 16x8 (int16): the reference loops, an int64 sum (kq8.h's is 8-bit).
  spec.template_name = t == DType::Int16 ? "qlinear_global_avgpool16.c" : "qlinear_global_avgpool.c";
  spec.args = {0};
  spec.set("PLANES", planes);
  spec.set("SIZE", size);
  spec.set("ZX", c_int(zx));
  spec.set("ZY", c_int(zy));
  spec.set("Q", c_int(r.q));
  spec.set("SHIFT", c_int(r.shift));
  spec.set("LO", c_int(ops::quant_min(t)));
  spec.set("HI", c_int(ops::quant_max(t)));
  spec.set("U8", t == DType::UInt8 ? 1 : 0);
  spec.includes.push_back("mlip/requant.h");
  spec.includes.push_back("mlip/kq8.h");
}

void prepare_QLinearAveragePool(const Graph& g, const Node& n, KernelSpec& spec) {
  const Value& x = g.value(n.inputs[0]);
  const DType t = x.dtype;
  auto c = [&](int i) -> const TensorData* {
    return n.has_input(static_cast<size_t>(i)) ? g.value(n.inputs[static_cast<size_t>(i)]).constant.get() : nullptr;
  };
  if (!c(1) || !c(3)) fail("internal: QLinearAveragePool scales are not constants");
  const ops::Geometry3 geo = ops::to_3d(ops::resolve_geometry(
      n.attrs, ops::spatial_of(x.shape), {}, {/*dilations=*/true, /*ceil_mode=*/true, /*pads_below_window=*/true}));
  const std::vector<ops::Requant> r =
      ops::average_requant(c(1)->data<float>()[0], c(3)->data<float>()[0], geo.kernel[0] * geo.kernel[1] * geo.kernel[2],
                           ops::requant_mode(n.attrs));
  std::vector<std::string> qs, shifts;
  for (const ops::Requant& q : r) {
    qs.push_back(c_int(q.q));
    shifts.push_back(c_int(q.shift));
  }
  spec.template_name = "qlinear_averagepool.c";
  const bool wide = t == DType::Int16;
  spec.set("acc_t", wide ? "int64_t" : "int32_t");
  spec.set("requantize", wide ? "mlip_requantize64" : "mlip_requantize");
  spec.args = {0};
  spec.set("P", x.shape[0] * x.shape[1]);
  set_window(spec, geo);
  const char* axes[] = {"D", "H", "W"};
  for (int i = 0; i < ops::kMaxSpatial; ++i) spec.set(std::string("E") + axes[i], geo.in[i] + geo.pad_end[i]);
  spec.set("divisor", n.attrs.get_int("count_include_pad", 0) == 1 ? "padded" : "valid");
  spec.set("NQ", static_cast<int64_t>(r.size()));
  spec.set("q_list", fmt::format("{}", fmt::join(qs, ", ")));
  spec.set("shift_list", fmt::format("{}", fmt::join(shifts, ", ")));
  spec.set("ZX", c_int(c(2) ? static_cast<int32_t>(c(2)->as_int64()[0]) : 0));
  spec.set("ZY", c_int(c(4) ? static_cast<int32_t>(c(4)->as_int64()[0]) : 0));
  spec.set("LO", c_int(ops::quant_min(t)));
  spec.set("HI", c_int(ops::quant_max(t)));
  spec.includes.push_back("mlip/requant.h");
}

void prepare_QLinearLookup(const Graph& g, const Node& n, KernelSpec& spec) {
  expect_dtype(g, n, 0, {DType::Int8, DType::UInt8, DType::Int16});
  if (g.value(n.inputs[0]).dtype == DType::Int16) {  // 16x8: 513 knots, interpolated
    spec.template_name = "qlinear_lookup16.c";
    spec.args = {0, 1};
    spec.includes.push_back("mlip/lut16.h");
    return;
  }
  spec.template_name = "qlinear_lookup.c";
  spec.args = {0, 1};
  spec.set("LO", c_int(ops::quant_min(g.value(n.inputs[0]).dtype)));
}

}  // namespace mlipc::c::kernels
