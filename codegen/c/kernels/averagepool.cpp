// AveragePool: one template for 1-D to 3-D (as 3-D with size-1 leading
// axes), geometry baked in. float32.
#include "c/kernels/kernels.h"
#include "ops/spatial.h"

namespace mlipc::c::kernels {

void prepare_AveragePool(const Graph& g, const Node& n, KernelSpec& spec) {
  expect_float(g, n, 0);
  const Shape& x = g.value(n.inputs[0]).shape;
  const ops::Geometry3 geo = ops::to_3d(
      ops::resolve_geometry(n.attrs, ops::spatial_of(x), {}, {/*dilations=*/true, /*ceil_mode=*/true}));
  if (set_pool_cl(g, n, spec, geo)) {
    spec.set_flag("max", false);
    spec.set_flag("include_pad", n.attrs.get_int("count_include_pad", 0) == 1);
    return;
  }
  spec.template_name = "averagepool.c";
  spec.set("P", x[0] * x[1]);
  set_window(spec, geo);
  const char* axes[] = {"D", "H", "W"};
  for (int i = 0; i < ops::kMaxSpatial; ++i)
    spec.set(std::string("E") + axes[i], geo.in[i] + geo.pad_end[i]);  // end of the padded extent
  spec.set("divisor", n.attrs.get_int("count_include_pad", 0) == 1 ? "padded" : "valid");
  spec.args = {0};
}

}  // namespace mlipc::c::kernels
