// Split: each output row (the axes before the split axis) is one chunk of
// the input row, at an offset baked in per output; the inverse of Concat.
// Sizes computed at run time are checked against the declared ones first.
#include "c/kernels/kernels.h"
#include "ops/split.h"

namespace mlipc::c::kernels {

void prepare_Split(const Graph& g, const Node& n, KernelSpec& spec) {
  const Shape& in = g.value(n.inputs[0]).shape;
  const ops::SplitParams p = ops::split_params(g, n);
  int64_t outer = 1, inner = 1;
  for (int d = 0; d < p.axis; ++d) outer *= in[d];
  for (size_t d = p.axis + 1; d < in.size(); ++d) inner *= in[d];
  std::vector<TemplateData> outs;
  int64_t offset = 0;
  for (size_t i = 0; i < p.sizes.size(); ++i) {
    const int64_t chunk = p.sizes[i] * inner;
    TemplateData item;
    item.set("k", std::to_string(i));
    item.set("t", std::string(dtype_ctype(g.value(n.outputs[i]).dtype)));
    item.set("chunk", c_int(chunk));
    item.set("offset", c_int(offset));
    if (chunk > 0 && outer > 0) item.set("copy", TemplateData(TemplateData::type::bool_true));
    else item.set("copy", TemplateData(TemplateData::type::bool_false));
    outs.push_back(item);
    offset += chunk;
  }
  // Sizes read at run time must be the declared ones.
  const bool runtime = n.has_input(1) && !g.value(n.inputs[1]).is_constant();
  spec.set_flag("checked", runtime);
  if (runtime) {
    std::vector<TemplateData> checks;
    for (size_t i = 0; i < p.sizes.size(); ++i) {
      TemplateData item;
      item.set("i", std::to_string(i));
      item.set("size", c_int(p.sizes[i]));
      checks.push_back(item);
    }
    spec.set_list("checks", checks);
    spec.returns_status = true;
    spec.includes = {"mlip/status.h"};
  }
  spec.template_name = "split.c";
  spec.set("outer", c_int(outer));
  spec.set("row", c_int(in.empty() ? 0 : in[p.axis] * inner));
  spec.set_list("outs", outs);
  spec.args = runtime ? std::vector<int>{0, 1} : std::vector<int>{0};
}

}  // namespace mlipc::c::kernels
