// RoiAlign: rois and batch_indices are read at run time, so the kernel
// computes each roi's sampling grid as the reference does
// (ops/roi_align.cpp); shapes and attributes are baked in. Bad run-time
// rois (batch index out of range, adaptive grid too large) make it return
// MLIP_ERR_INVALID_ARG before it writes.
#include "c/kernels/kernels.h"
#include "ops/roi_align.h"

namespace mlipc::c::kernels {

void prepare_RoiAlign(const Graph& g, const Node& n, KernelSpec& spec) {
  expect_float(g, n, 0);
  expect_float(g, n, 1);
  expect_dtype(g, n, 2, {DType::Int64});
  const ops::RoiAlignOptions o = ops::roi_align_options(n.attrs);
  const Shape& x = g.value(n.inputs[0]).shape;
  const Shape& y = g.value(n.outputs[0]).shape;
  spec.template_name = "roi_align.c";
  spec.set("mode", o.max ? "max" : "avg");
  spec.set("coord", o.half_pixel ? "half_pixel" : "output_half_pixel");
  spec.set_flag("max", o.max);
  spec.set_flag("half_pixel", o.half_pixel);
  spec.set_flag("fixed", o.sampling_ratio > 0);
  spec.set("ratio", o.sampling_ratio);
  spec.set("ratio_f", c_float(static_cast<float>(o.sampling_ratio)));
  spec.set("scale", c_float(o.spatial_scale));
  spec.set("offset", c_float(o.half_pixel ? 0.5f : 0.0f));
  spec.set("R", y[0]);
  spec.set("N", x[0]);
  spec.set("C", x[1]);
  spec.set("H", x[2]);
  spec.set("W", x[3]);
  spec.set("HW", x[2] * x[3]);
  spec.set("h_f", c_float(static_cast<float>(x[2])));
  spec.set("w_f", c_float(static_cast<float>(x[3])));
  spec.set("OH", o.out_h);
  spec.set("OW", o.out_w);
  spec.set("OHW", o.out_h * o.out_w);
  spec.set("oh_f", c_float(static_cast<float>(o.out_h)));
  spec.set("ow_f", c_float(static_cast<float>(o.out_w)));
  spec.set("max_gh", ops::roi_align_max_grid(x[2]));
  spec.set("max_gw", ops::roi_align_max_grid(x[3]));
  spec.set("max_gh_f", c_float(static_cast<float>(ops::roi_align_max_grid(x[2]))));
  spec.set("max_gw_f", c_float(static_cast<float>(ops::roi_align_max_grid(x[3]))));
  spec.args = {0, 1, 2};
  spec.returns_status = true;
  spec.includes = {"mlip/status.h"};
}

}  // namespace mlipc::c::kernels
