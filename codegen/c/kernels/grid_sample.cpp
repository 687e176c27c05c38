// GridSample: the grid is read at run time, so the kernel computes each
// sampling position as the reference does (ops/grid_sample.cpp); the
// shapes, mode, padding rule and the per-axis bounds are baked in.
#include "c/kernels/kernels.h"
#include "ops/grid_sample.h"

namespace mlipc::c::kernels {

void prepare_GridSample(const Graph& g, const Node& n, KernelSpec& spec) {
  expect_float(g, n, 0);
  expect_float(g, n, 1);
  const ops::GridSampleOptions o = ops::grid_sample_options(n.attrs);
  const Shape& x = g.value(n.inputs[0]).shape;
  const Shape& y = g.value(n.outputs[0]).shape;
  using O = ops::GridSampleOptions;
  spec.template_name = "grid_sample.c";
  spec.set("mode", o.mode == O::Bilinear ? "bilinear" : (o.mode == O::Nearest ? "nearest" : "bicubic"));
  spec.set("padding", o.padding == O::Zeros ? "zeros" : (o.padding == O::Border ? "border" : "reflection"));
  spec.set_flag("nearest", o.mode == O::Nearest);
  spec.set_flag("bilinear", o.mode == O::Bilinear);
  spec.set_flag("bicubic", o.mode == O::Bicubic);
  spec.set_flag("zeros", o.padding == O::Zeros);
  spec.set_flag("border", o.padding == O::Border);
  spec.set_flag("reflection", o.padding == O::Reflection);
  spec.set_flag("align", o.align_corners);
  spec.set("align_n", o.align_corners ? "1" : "0");
  spec.set("N", x[0]);
  spec.set("C", x[1]);
  spec.set("H", x[2]);
  spec.set("W", x[3]);
  spec.set("HW", x[2] * x[3]);
  spec.set("P", y[2] * y[3]);
  const float h = static_cast<float>(x[2]), w = static_cast<float>(x[3]);
  spec.set("hf", c_float(h));
  spec.set("wf", c_float(w));
  spec.set("hm1", c_float(static_cast<float>(x[2] - 1)));
  spec.set("wm1", c_float(static_cast<float>(x[3] - 1)));
  spec.set("ylo", c_float(o.align_corners ? 0.0f : -0.5f));
  spec.set("xlo", c_float(o.align_corners ? 0.0f : -0.5f));
  spec.set("yhi", c_float(o.align_corners ? h - 1.0f : h - 0.5f));
  spec.set("xhi", c_float(o.align_corners ? w - 1.0f : w - 0.5f));
  spec.args = {0, 1};
}

}  // namespace mlipc::c::kernels
