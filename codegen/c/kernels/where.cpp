// Where: nested loops over the output in order, each input's offset built
// from baked strides (0 on its broadcast axes), axes simplified as for the
// elementwise kernels.
#include <fmt/format.h>

#include "c/kernels/kernels.h"
#include "ops/broadcast.h"

namespace mlipc::c::kernels {

void prepare_Where(const Graph& g, const Node& n, KernelSpec& spec) {
  const Shape& out = g.value(n.outputs[0]).shape;
  std::vector<std::vector<int64_t>> strides;
  for (int i = 0; i < 3; ++i) strides.push_back(ops::broadcast_strides(g.value(n.inputs[i]).shape, out));
  const ops::Loops l = ops::simplify_loops(out, strides);
  std::vector<TemplateData> loops;
  for (size_t d = 1; d <= l.dims.size(); ++d) {
    TemplateData item;
    item.set("d", std::to_string(d));
    item.set("p", std::to_string(d - 1));
    item.set("dim", c_int(l.dims[d - 1]));
    item.set("cs", c_int(l.strides[0][d - 1]));
    item.set("as", c_int(l.strides[1][d - 1]));
    item.set("bs", c_int(l.strides[2][d - 1]));
    loops.push_back(item);
  }
  spec.template_name = "where.c";
  spec.set_list("loops", loops);
  spec.set("r", static_cast<int64_t>(l.dims.size()));
  spec.set_flag("empty", numel(out) == 0);
  spec.args = {0, 1, 2};
}

}  // namespace mlipc::c::kernels
