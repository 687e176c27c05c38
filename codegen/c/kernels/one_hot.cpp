// OneHot: indices and values are read at run time; depth and the axis are
// baked. The index rule is the reference's (ops/one_hot.cpp): floats
// truncated toward zero, negative counting from the end, out of range
// addressing nothing.
#include <fmt/format.h>

#include "c/kernels/kernels.h"
#include "ops/op.h"
#include "ops/one_hot.h"
#include "support/error.h"

namespace mlipc::c::kernels {

void prepare_OneHot(const Graph& g, const Node& n, KernelSpec& spec) {
  const Value& depth = g.value(n.inputs[1]);
  const DType t = g.value(n.inputs[0]).dtype;
  const Shape& in = g.value(n.inputs[0]).shape;
  // A depth computed at run time is the declared output's; the kernel checks it.
  const int axis = normalize_axis(n.attrs.get_int("axis", -1), static_cast<int>(in.size()) + 1);
  const ops::OneHotParams p = ops::one_hot_params(
      n.attrs, in, depth.is_constant() ? ops::one_hot_depth(*depth.constant) : g.value(n.outputs[0]).shape[axis]);
  const std::string D = c_int(p.depth);
  std::string index;  // sets int64_t k from the index element v
  if (dtype_is_float(t)) {
    index = fmt::format("const double w = (double)v;\n        const int64_t k = w > -{0}.0 - 1.0 && w < {0}.0 ? "
                        "((int64_t)w < 0 ? (int64_t)w + {0} : (int64_t)w) : -1;",
                        D);
  } else if (t == DType::UInt64) {
    index = fmt::format("const int64_t k = v < (uint64_t){0} ? (int64_t)v : -1;", D);
  } else {
    index = fmt::format("const int64_t w = (int64_t)v;\n        const int64_t k = w >= -{0} && w < {0} ? "
                        "(w < 0 ? w + {0} : w) : -1;",
                        D);
  }
  spec.template_name = "one_hot.c";
  spec.set_flag("checked", !depth.is_constant());
  if (!depth.is_constant()) {
    spec.returns_status = true;
    spec.includes = {"mlip/status.h"};
  }
  spec.set("outer", c_int(p.outer));
  spec.set("depth", D);
  spec.set("inner", c_int(p.inner));
  spec.set("index", index);
  spec.args = depth.is_constant() ? std::vector<int>{0, 2} : std::vector<int>{0, 1, 2};
}

}  // namespace mlipc::c::kernels
