// QuantizeLinear and DequantizeLinear: x viewed as [OUTER, C, INNER] with
// one scale (and zero point) per C (C = 1 per tensor); the scale and zero
// point are pointers, so they may be computed at run time.
#include "c/kernels/kernels.h"
#include "ops/quant.h"

namespace mlipc::c::kernels {

namespace {

void set_axis(const Graph& g, const Node& n, KernelSpec& spec) {
  const ops::QuantAxis q = ops::quant_axis(g.value(n.inputs[0]).shape, g.value(n.inputs[1]).shape,
                                           n.attrs.get_int("axis", 1), "scale");
  spec.set("OUTER", q.outer);
  spec.set("C", q.count);
  spec.set("INNER", q.inner);
  const bool has_zp = n.has_input(2);
  spec.set_flag("has_zp", has_zp);
  spec.args = {0, 1};
  if (has_zp) spec.args.push_back(2);
}

}  // namespace

void prepare_QuantizeLinear(const Graph& g, const Node& n, KernelSpec& spec) {
  expect_float(g, n, 0);
  const DType out = g.value(n.outputs[0]).dtype;
  spec.template_name = "quantize_linear.c";
  set_axis(g, n, spec);
  spec.set("LO", c_float(static_cast<float>(ops::quant_min(out))));
  spec.set("HI", c_float(static_cast<float>(ops::quant_max(out))));
}

void prepare_DequantizeLinear(const Graph& g, const Node& n, KernelSpec& spec) {
  expect_dtype(g, n, 0, {DType::Int8, DType::UInt8, DType::Int16, DType::Int32});
  spec.template_name = "dequantize_linear.c";
  set_axis(g, n, spec);
}

}  // namespace mlipc::c::kernels
