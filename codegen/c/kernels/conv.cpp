// Conv: one template for 1-D, 2-D and 3-D (as 3-D with size-1 leading axes),
// all geometry baked in; x, w and the optional bias are pointers, so the
// weights may be constants (.rodata) or computed at run time.
#include "c/kernels/kernels.h"
#include "ir/ops/spatial.h"

namespace mlipc::c::kernels {

void prepare_Conv(const Graph& g, const Node& n, KernelSpec& spec) {
  expect_float(g, n, 0);
  expect_float(g, n, 1);
  const bool has_bias = n.has_input(2);
  if (has_bias) expect_float(g, n, 2);
  const Shape& x = g.value(n.inputs[0]).shape;
  const Shape& w = g.value(n.inputs[1]).shape;
  const ops::Geometry3 geo = ops::to_3d(ops::resolve_geometry(n.attrs, ops::spatial_of(x), ops::spatial_of(w),
                                                              {/*dilations=*/true, /*ceil_mode=*/false}));
  const int64_t group = n.attrs.get_int("group", 1);
  spec.template_name = "conv.c";
  spec.set("N", x[0]);
  spec.set("C", x[1]);
  spec.set("M", w[0]);
  spec.set("ICG", x[1] / group);
  spec.set("OCG", w[0] / group);
  set_window(spec, geo);
  spec.set("WSIZE", x[1] / group * geo.kernel[0] * geo.kernel[1] * geo.kernel[2]);
  // Output channels per pass: up to 4 of one group share each input read.
  const int64_t ocg = w[0] / group;
  const int64_t mb = ocg % 4 == 0 ? 4 : ocg % 2 == 0 ? 2 : 1;  // 8 measured no faster
  spec.set("MB", mb);
  spec.set("MOSIZE", mb * geo.out[0] * geo.out[1] * geo.out[2]);
  spec.set_flag("has_bias", has_bias);
  spec.args = {0, 1};
  if (has_bias) spec.args.push_back(2);
}

}  // namespace mlipc::c::kernels
