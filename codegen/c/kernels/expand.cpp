// Expand: a strided view with stride 0 on the broadcast axes. A shape
// computed at run time must give the declared output shape: per entry, the
// values that do are checked before the copy.
#include <fmt/format.h>

#include "c/kernels/kernels.h"
#include "c/kernels/strided_copy.h"
#include "ops/broadcast.h"

namespace mlipc::c::kernels {

void prepare_Expand(const Graph& g, const Node& n, KernelSpec& spec) {
  const Shape& in = g.value(n.inputs[0]).shape;
  StridedView v;
  v.dims = g.value(n.outputs[0]).shape;
  v.strides = ops::broadcast_strides(in, v.dims);
  if (!g.value(n.inputs[1]).is_constant()) {
    // Entry i of the shape lines up with output axis d (from the right): it
    // must be that axis' length where the input has 1 (or lacks the axis),
    // else 1 or the input's length.
    const size_t k = static_cast<size_t>(numel(g.value(n.inputs[1]).shape)), r = v.dims.size();
    for (size_t i = 0; i < k; ++i) {
      const size_t d = r - k + i;
      const int64_t din = d + in.size() >= r ? in[d + in.size() - r] : 1;
      v.checks.push_back(din == 1 ? fmt::format("v[{}] == {}", i, c_int(v.dims[d]))
                                  : fmt::format("v[{0}] == 1 || v[{0}] == {1}", i, c_int(din)));
    }
  }
  set_strided_copy(spec, v);
}

}  // namespace mlipc::c::kernels
