// LpPool, GlobalLpPool: one template (lp_pool.c) for 1-D to 3-D windows,
// geometry and p baked in.
#include "c/kernels/kernels.h"
#include "ops/lp_pool.h"

namespace mlipc::c::kernels {

namespace {

void prepare_lp(const Graph& g, const Node& n, KernelSpec& spec, bool global) {
  expect_float(g, n, 0);
  const Shape& x = g.value(n.inputs[0]).shape;
  const int64_t p = ops::lp_pool_p(n.attrs);
  const ops::Geometry3 geo = ops::to_3d(ops::lp_pool_geometry(n.attrs, ops::spatial_of(x), global));
  spec.template_name = "lp_pool.c";
  spec.set("P", x[0] * x[1]);
  set_window(spec, geo);
  // The same expressions as lp_term / lp_root in ops/lp_pool.cpp.
  spec.set("term", p == 1 ? "fabsf(v)" : p == 2 ? "v * v" : "mlip_powf(fabsf(v), " + c_float(static_cast<float>(p)) + ")");
  spec.set("root", p == 1 ? "sum"
                   : p == 2 ? "sqrtf(sum)"
                            : "mlip_powf(sum, " + c_float(1.0f / static_cast<float>(p)) + ")");
  spec.args = {0};
}

}  // namespace

void prepare_LpPool(const Graph& g, const Node& n, KernelSpec& spec) { prepare_lp(g, n, spec, false); }
void prepare_GlobalLpPool(const Graph& g, const Node& n, KernelSpec& spec) { prepare_lp(g, n, spec, true); }

}  // namespace mlipc::c::kernels
