// CumSum: for each (outer, inner) position, a running sum along the axis in
// the reference's order. A constant axis is baked; an axis computed at run
// time is checked (MLIP_ERR_INVALID_ARG when out of range) and the loop
// bounds come from the baked input dims.
#include <fmt/format.h>

#include "c/kernels/kernels.h"
#include "ops/op.h"

namespace mlipc::c::kernels {

void prepare_CumSum(const Graph& g, const Node& n, KernelSpec& spec) {
  const Value& x = g.value(n.inputs[0]);
  const Value& axis = g.value(n.inputs[1]);
  const int rank = static_cast<int>(x.shape.size());
  const DType t = x.dtype;
  spec.template_name = "cumsum.c";
  spec.returns_status = true;
  spec.includes = {"mlip/status.h"};
  if (axis.is_constant()) {
    const int a = normalize_axis(axis.constant->as_int64()[0], rank);
    int64_t outer = 1, inner = 1;
    for (int d = 0; d < a; ++d) outer *= x.shape[d];
    for (int d = a + 1; d < rank; ++d) inner *= x.shape[d];
    spec.set("outer", c_int(outer));
    spec.set("len", c_int(x.shape[a]));
    spec.set("inner", c_int(inner));
    spec.set_flag("const_axis", true);
    spec.args = {0};
  } else {
    std::vector<std::string> dims;
    for (int64_t d : x.shape) dims.push_back(c_int(d));
    spec.set("rank", static_cast<int64_t>(rank));
    spec.set("dims", fmt::format("{{{}}}", fmt::join(dims, ", ")));
    spec.set_flag("const_axis", false);
    spec.args = {0, 1};
  }
  const std::string u = dtype_size(t) > 4 ? "uint64_t" : "uint32_t";
  spec.set("add", dtype_is_float(t) ? std::string("acc + v")
                                    : fmt::format("({})(({})acc + ({})v)", dtype_ctype(t), u, u));
  spec.set_flag("exclusive", n.attrs.get_int("exclusive", 0) != 0);
  spec.set_flag("reverse", n.attrs.get_int("reverse", 0) != 0);
}

}  // namespace mlipc::c::kernels
