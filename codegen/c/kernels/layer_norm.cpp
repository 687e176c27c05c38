// LayerNormalization: rows and row length (ops::layer_norm_dims) baked into
// the row-normalization template shared with InstanceNormalization; Scale
// and B indexed by the element's position in the row (modulo their size
// when they cover a trailing block of it). Same order as ops/normalize.h
// (dividing by the standard deviation with mlipc_divide: passes/fuse_layer_norm).
// Over the channels of [N, C, S...] (a Transpose fused before it, and
// perhaps one after: passes/fuse_transpose_norm): layer_norm_cf.c, the
// positions in vector lanes.
#include <fmt/format.h>

#include "c/kernels/kernels.h"
#include "ops/layer_norm.h"
#include "support/error.h"

namespace mlipc::c::kernels {

void prepare_LayerNormalization(const Graph& g, const Node& n, KernelSpec& spec) {
  for (size_t i = 0; i < n.inputs.size(); ++i)
    if (n.has_input(i)) expect_float(g, n, static_cast<int>(i));
  const bool has_bias = n.has_input(2);
  const Shape& x = g.value(n.inputs[0]).shape;
  const ops::LayerNormDims d = ops::layer_norm_dims(n.attrs, ops::layer_norm_rows_shape(n.attrs, x),
                                                    g.value(n.inputs[1]).shape,
                                                    has_bias ? &g.value(n.inputs[2]).shape : nullptr);
  if (n.attrs.get_int("mlipc_channels_in", 0) != 0 && x.size() >= 3) {
    // The rows are x's positions (a Transpose fused): positions in lanes.
    if (n.outputs.size() > 1 || d.scale_n != x[1] || (has_bias && d.bias_n != x[1]))
      fail("internal: a LayerNormalization over channels with Mean or InvStdDev, or a Scale or B of its own shape");
    spec.template_name = "layer_norm_cf.c";
    spec.includes.push_back("mlip/kvec.h");
    spec.set("op", n.op);
    spec.set("N", x[0]);
    spec.set("C", x[1]);
    spec.set("P", numel(x) / (x[0] * x[1]));
    spec.set("NF", c_float(static_cast<float>(x[1])));
    spec.set("EPS", c_float(n.attrs.get_float("epsilon", 1e-5f)));
    spec.set_flag("div", n.attrs.get_int("mlipc_divide", 0) != 0);
    spec.set_flag("bias", has_bias);
    spec.set_flag("cout", n.attrs.get_int("mlipc_channels_out", 0) != 0);
    spec.args = has_bias ? std::vector<int>{0, 1, 2} : std::vector<int>{0, 1};
    return;
  }
  auto at = [&](int64_t block) { return block == d.n ? std::string("j") : fmt::format("j % {}", c_int(block)); };
  spec.template_name = "normalize_rows.c";
  spec.set("op", n.op);
  spec.set("ROWS", c_int(d.rows));
  spec.set("N", c_int(d.n));
  spec.set("NF", c_float(static_cast<float>(d.n)));
  spec.set("EPS", c_float(n.attrs.get_float("epsilon", 1e-5f)));
  spec.set_flag("per_row", false);
  spec.set_flag("div", n.attrs.get_int("mlipc_divide", 0) != 0);
  spec.set_flag("bias", has_bias);
  spec.set("scale_at", at(d.scale_n));
  spec.set("bias_at", at(d.bias_n));
  spec.set_flag("mean", n.outputs.size() > 1);
  spec.set_flag("inv", n.outputs.size() > 2);
  spec.args = has_bias ? std::vector<int>{0, 1, 2} : std::vector<int>{0, 1};
}

}  // namespace mlipc::c::kernels
