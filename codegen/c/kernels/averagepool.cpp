// AveragePool: one template for 1-D to 3-D (as 3-D with size-1 leading
// axes), geometry baked in. float32.
#include "c/kernels/kernels.h"
#include "ir/ops/spatial.h"

namespace mlipc::c::kernels {

void prepare_AveragePool(const Graph& g, const Node& n, KernelSpec& spec) {
  expect_float(g, n, 0);
  const Shape& x = g.value(n.inputs[0]).shape;
  const ops::Geometry3 geo = ops::to_3d(
      ops::resolve_geometry(n.attrs, ops::spatial_of(x), {}, {/*dilations=*/true, /*ceil_mode=*/true}));
  spec.template_name = "averagepool.c";
  spec.set("P", x[0] * x[1]);
  // Products as single literals: C evaluates `a * b` of literals in int.
  spec.set("ISIZE", geo.in[0] * geo.in[1] * geo.in[2]);
  spec.set("OSIZE", geo.out[0] * geo.out[1] * geo.out[2]);
  const char* axes[] = {"D", "H", "W"};
  for (int i = 0; i < ops::kMaxSpatial; ++i) {
    const std::string a = axes[i];
    spec.set("I" + a, geo.in[i]);
    spec.set("O" + a, geo.out[i]);
    spec.set("K" + a, geo.kernel[i]);
    spec.set("S" + a, geo.stride[i]);
    spec.set("D" + a, geo.dilation[i]);
    spec.set("P" + a, geo.pad_begin[i]);
    spec.set("E" + a, geo.in[i] + geo.pad_end[i]);  // end of the padded extent
  }
  spec.set("divisor", n.attrs.get_int("count_include_pad", 0) == 1 ? "padded" : "valid");
  spec.args = {0};
}

}  // namespace mlipc::c::kernels
