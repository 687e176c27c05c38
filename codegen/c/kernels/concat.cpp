// Concat: every output row (the dims before the axis, as stored) is the
// inputs' chunks in order; chunk sizes and offsets are baked in. Zero-size
// inputs are not passed at all. Channels-last (c/layout.h) where every input
// is too: the channel axis is then the last one stored, and a Concat of
// channels is one chunk per input and pixel. Not where an input has fewer
// than kMinClChannels channels: a pixel's chunk of 1 to 7 floats copies a
// few bytes per loop where the row-major planes are long runs.
#include "c/kernels/kernels.h"
#include "c/layout.h"
#include "ops/concat.h"

namespace mlipc::c::kernels {

namespace {
constexpr int64_t kMinClChannels = 8;
}  // namespace

void prepare_Concat(const Graph& g, const Node& n, KernelSpec& spec) {
  const Shape& out = g.value(n.outputs[0]).shape;
  const int axis = ops::concat_axis(n.attrs, static_cast<int>(out.size()));
  if (n.outputs.size() == 1 && out.size() >= 3) {
    bool wide = true;
    for (ValueId v : n.inputs) wide = wide && (axis != 1 || g.value(v).shape[1] >= kMinClChannels);
    if (wide) {
      spec.layouts.output = true;
      for (size_t i = 0; i < n.inputs.size(); ++i) spec.layouts.tied.push_back(static_cast<int>(i));
    }
  }
  // The stored shapes: channels-last moves axis 1 last (an input whose
  // bytes are the same either way reads as the output's layout).
  const bool cl = spec.output_cl(0);
  const Shape so = stored_shape(out, out.size(), cl);
  const int sa = !cl || axis == 0 ? axis : axis == 1 ? static_cast<int>(out.size()) - 1 : axis - 1;
  int64_t outer = 1, inner = 1;
  for (int d = 0; d < sa; ++d) outer *= so[d];
  for (size_t d = sa + 1; d < so.size(); ++d) inner *= so[d];
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
