// BatchNormalization (inference) that could not be folded into a Conv or
// Gemm: y = x * scale[c] + shift[c], then the fused activation. With
// constant parameters the per-channel factors are computed here and baked
// into .rodata (either layout); otherwise the kernel computes them from the
// four pointers (row-major).
#include "c/kernels/kernels.h"
#include "ops/batchnorm.h"

namespace mlipc::c::kernels {

namespace {
std::string c_floats(const std::vector<float>& v) {
  std::string s;
  for (size_t i = 0; i < v.size(); ++i) s += (i ? (i % 8 ? ", " : ",\n    ") : "") + c_float(v[i]);
  return s;
}
}  // namespace

void prepare_BatchNormalization(const Graph& g, const Node& n, KernelSpec& spec) {
  for (int i = 0; i < 5; ++i) expect_float(g, n, i);
  const Shape& x = g.value(n.inputs[0]).shape;
  const int64_t channels = x[1];
  const float eps = n.attrs.get_float("epsilon", 1e-5f);
  bool constant = channels > 0;  // C forbids zero-length arrays
  for (int i = 1; i < 5; ++i) constant = constant && g.value(n.inputs[static_cast<size_t>(i)]).is_constant();
  spec.set("N", x[0]);
  spec.set("C", channels);
  spec.set("S", x[0] * channels == 0 ? 0 : numel(x) / (x[0] * channels));
  if (constant) {
    auto param = [&](int i) { return g.value(n.inputs[static_cast<size_t>(i)]).constant->data<float>(); };
    ops::BatchNormFactors f = ops::batchnorm_factors(param(1), param(2), param(3), param(4), channels, eps);
    spec.template_name = "batchnorm_const.c";
    // Either layout, the output's (c/layout.h): a Concat's channels-last
    // output goes on channels-last to the convolution after it.
    spec.layouts = {{}, {0}, true};
    spec.set_flag("cl", spec.output_cl(0));
    spec.set("scale_values", c_floats(f.scale));
    spec.set("shift_values", c_floats(f.shift));
    spec.args = {0};
  } else {
    spec.template_name = "batchnorm.c";
    spec.set("epsilon", c_float(eps));
    spec.args = {0, 1, 2, 3, 4};
  }
}

}  // namespace mlipc::c::kernels
