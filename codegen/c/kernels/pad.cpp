// Pad: nested loops over the output; per axis, the input index is mapped by
// the mode (constant: a validity flag, edge: clamp, reflect: fold) with the
// pads, crops and strides baked in. Same mapping as ops::pad_source.
#include "c/kernels/kernels.h"
#include "ops/pad.h"
#include "support/error.h"

namespace mlipc::c::kernels {

namespace {

const TensorData* const_input(const Graph& g, const Node& n, size_t i, const char* what) {
  if (!n.has_input(i)) return nullptr;
  const Value& v = g.value(n.inputs[i]);
  if (!v.is_constant()) fail("input '{}' ({}) must be a constant", v.name, what);
  return v.constant.get();
}

}  // namespace

void prepare_Pad(const Graph& g, const Node& n, KernelSpec& spec) {
  const Value& x = g.value(n.inputs[0]);
  const ops::PadParams p = ops::pad_params(n.attrs, x.dtype, x.shape, *const_input(g, n, 1, "pads"),
                                           const_input(g, n, 2, "constant_value"), const_input(g, n, 3, "axes"));
  const std::vector<int64_t> strides = strides_of(x.shape);
  std::vector<TemplateData> loops;
  for (size_t k = 0; k < x.shape.size(); ++k) {
    const int64_t pre = p.begin[k] > 0 ? p.begin[k] : 0;
    TemplateData item;
    item.set("a", std::to_string(k + 1));
    item.set("p", std::to_string(k));
    item.set("dim", c_int(p.out_shape[k]));
    item.set("stride", c_int(strides[k]));
    // An axis neither padded nor cropped reads its index as is.
    const bool plain = p.begin[k] == 0 && p.end[k] == 0;
    item.set("plain", plain ? TemplateData(TemplateData::type::bool_true) : TemplateData(TemplateData::type::bool_false));
    item.set("single", p.kept[k] == 1 ? TemplateData(TemplateData::type::bool_true)
                                      : TemplateData(TemplateData::type::bool_false));
    item.set("pre", c_int(pre));
    item.set("lo", c_int(p.lo[k]));
    item.set("kept", c_int(p.kept[k]));
    item.set("last", c_int(p.kept[k] - 1));
    item.set("period", c_int(2 * (p.kept[k] - 1)));
    loops.push_back(item);
  }
  spec.template_name = "pad.c";
  spec.set("r", static_cast<int64_t>(x.shape.size()));
  spec.set_flag("constant", p.mode == ops::PadMode::Constant);
  spec.set_flag("edge", p.mode == ops::PadMode::Edge);
  spec.set_flag("reflect", p.mode == ops::PadMode::Reflect);
  spec.set("value", c_scalar(p.value));
  spec.set_list("loops", loops);
  spec.args = {0};
}

}  // namespace mlipc::c::kernels
