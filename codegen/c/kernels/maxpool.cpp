// MaxPool: one template for 1-D to 3-D (as 3-D with size-1 leading axes) and
// every element type the shape rule accepts; the Indices output too.
#include "c/kernels/kernels.h"
#include "ops/spatial.h"

namespace mlipc::c::kernels {

void prepare_MaxPool(const Graph& g, const Node& n, KernelSpec& spec) {
  expect_dtype(g, n, 0, {DType::Float32, DType::Float64, DType::Int8, DType::UInt8, DType::Int16});
  const Value& xv = g.value(n.inputs[0]);
  const Shape& x = xv.shape;
  const ops::Geometry3 geo = ops::to_3d(
      ops::resolve_geometry(n.attrs, ops::spatial_of(x), {}, {/*dilations=*/true, /*ceil_mode=*/true}));
  switch (xv.dtype) {
    case DType::Int8: spec.set("lowest", "(-128)"); break;
    case DType::UInt8: spec.set("lowest", "0"); break;
    case DType::Int16: spec.set("lowest", "(-32768)"); break;  // 16x8 activations
    default: spec.set("lowest", "(-INFINITY)"); break;
  }
  // A NaN tap wins over any number (ops/maxpool.cpp); integers have none.
  spec.set_flag("nan", xv.dtype == DType::Float32 || xv.dtype == DType::Float64);
  if (set_pool_cl(g, n, spec, geo)) {
    spec.set_flag("max", true);
    return;
  }
  spec.template_name = "maxpool.c";
  spec.set("P", x[0] * x[1]);
  set_window(spec, geo);
  const bool indices = n.outputs.size() > 1 && n.outputs[1] != kNoValue;
  spec.set_flag("indices", indices);
  spec.set_flag("col_major", n.attrs.get_int("storage_order", 0) == 1);
  spec.args = {0};
}

}  // namespace mlipc::c::kernels
