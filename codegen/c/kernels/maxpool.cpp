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
    // Floats of a 1-D or 2-D pool into a channels-last output, from a
    // row-major input (after a Concat, read by a convolution: the input
    // rows transposed once each) or a channels-last one of 16 channels or
    // more (whole vectors at every width): maxima along W, then across a
    // window's rows, as vectors of channels.
    const bool xcl = spec.input_cl(0);
    if (xv.dtype == DType::Float32 && geo.in[0] == 1 && geo.kernel[0] == 1 && spec.output_cl(0) &&
        (!xcl || x[1] >= 16)) {
      const int64_t rs = (geo.kernel[1] - 1) * geo.dilation[1] + 1;  // the rows one window spans
      spec.template_name = "maxpool_rows_cl.c";
      spec.set_flag("xcl", xcl);
      spec.set("IPLANE", geo.in[1] * geo.in[2]);
      spec.set("YN", x[1] * geo.out[1] * geo.out[2]);
      spec.set("RS", rs);
      // The ring of RS rows of maxima, all the channels (xcl) or as wide as
      // the widest vector (MLIP_VW_16 <= 16) beside a row channels-last;
      // 64 bytes more to start on a cache line.
      spec.scratch_bytes = static_cast<size_t>(xcl ? rs * geo.out[2] * x[1] : (geo.in[2] + rs * geo.out[2]) * 16) *
                               sizeof(float) +
                           64;
      spec.set_flag("has_scratch", true);
      spec.includes.push_back("mlip/kvec.h");
    }
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
