// MatMul: nested loops over the (simplified) broadcast batch axes with baked
// matrix offsets for A and B, then one dot product per output element. Same
// order as ops::eval_MatMul.
#include "c/kernels/kernels.h"
#include "c/kernels/matmul_loops.h"
#include "ops/matmul.h"

namespace mlipc::c::kernels {

void prepare_MatMul(const Graph& g, const Node& n, KernelSpec& spec) {
  expect_float(g, n, 0);
  expect_float(g, n, 1);
  const ops::MatMulDims d = ops::matmul_dims(g.value(n.inputs[0]).shape, g.value(n.inputs[1]).shape);
  spec.template_name = "matmul.c";
  set_matmul_loops(spec, d);
  spec.args = {0, 1};
}

}  // namespace mlipc::c::kernels
