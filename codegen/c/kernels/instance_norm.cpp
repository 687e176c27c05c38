// InstanceNormalization: the row-normalization template shared with
// LayerNormalization, one row per (n, c) plane, scale[c] and B[c] per row.
// Same order as ops/normalize.h.
#include "c/kernels/kernels.h"

namespace mlipc::c::kernels {

void prepare_InstanceNormalization(const Graph& g, const Node& n, KernelSpec& spec) {
  for (int i = 0; i < 3; ++i) expect_float(g, n, i);
  const Shape& x = g.value(n.inputs[0]).shape;
  int64_t spatial = 1;
  for (size_t i = 2; i < x.size(); ++i) spatial *= x[i];
  spec.template_name = "normalize_rows.c";
  spec.set("op", n.op);
  spec.set("ROWS", c_int(x[0] * x[1]));
  spec.set("N", c_int(spatial));
  spec.set("NF", c_float(static_cast<float>(spatial)));
  spec.set("EPS", c_float(n.attrs.get_float("epsilon", 1e-5f)));
  spec.set_flag("per_row", true);
  spec.set("C", c_int(x[1]));
  spec.set_flag("bias", true);
  spec.set("scale_at", "c");
  spec.set("bias_at", "c");
  spec.set_flag("mean", false);
  spec.set_flag("inv", false);
  spec.args = {0, 1, 2};
}

}  // namespace mlipc::c::kernels
