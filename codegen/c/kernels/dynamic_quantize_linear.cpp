// DynamicQuantizeLinear: the range, scale and zero point are computed at
// run time from x, as ops::eval_DynamicQuantizeLinear does.
#include "c/kernels/kernels.h"

namespace mlipc::c::kernels {

void prepare_DynamicQuantizeLinear(const Graph& g, const Node& n, KernelSpec& spec) {
  expect_float(g, n, 0);
  spec.template_name = "dynamic_quantize_linear.c";
  spec.args = {0};
}

}  // namespace mlipc::c::kernels
