// Concat: every output row (the dims before the axis) is the inputs' chunks
// in order; chunk sizes and offsets are baked in. Zero-size inputs are not
// passed at all.
#include "c/kernels/kernels.h"
#include "ops/concat.h"

namespace mlipc::c::kernels {

void prepare_Concat(const Graph& g, const Node& n, KernelSpec& spec) {
  const Shape& out = g.value(n.outputs[0]).shape;
  const int axis = ops::concat_axis(n.attrs, static_cast<int>(out.size()));
  int64_t outer = 1, inner = 1;
  for (int d = 0; d < axis; ++d) outer *= out[d];
  for (size_t d = axis + 1; d < out.size(); ++d) inner *= out[d];
  const std::string t(dtype_ctype(g.value(n.outputs[0]).dtype));
  std::vector<TemplateData> ins;
  int64_t offset = 0;
  for (size_t i = 0; i < n.inputs.size(); ++i) {
    const int64_t chunk = g.value(n.inputs[i]).shape[axis] * inner;
    if (chunk == 0 || outer == 0) continue;
    TemplateData item;
    item.set("k", std::to_string(spec.args.size()));
    item.set("t", t);
    item.set("chunk", c_int(chunk));
    item.set("offset", c_int(offset));
    ins.push_back(item);
    spec.args.push_back(static_cast<int>(i));
    offset += chunk;
  }
  spec.template_name = "concat.c";
  spec.set("outer", outer);
  spec.set("out_chunk", c_int(offset));
  spec.set_list("ins", ins);
}

}  // namespace mlipc::c::kernels
