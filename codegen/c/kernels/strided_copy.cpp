#include "c/kernels/strided_copy.h"

#include "ops/broadcast.h"

namespace mlipc::c::kernels {

void set_strided_copy(KernelSpec& spec, const StridedView& v) {
  const ops::Loops l = ops::simplify_loops(v.dims, {v.strides});
  std::vector<TemplateData> loops;
  for (size_t i = 0; i < l.dims.size(); ++i) {
    TemplateData item;
    item.set("a", std::to_string(i + 1));
    item.set("p", std::to_string(i));
    item.set("dim", c_int(l.dims[i]));
    item.set("stride", c_int(l.strides[0][i]));
    loops.push_back(item);
  }
  spec.template_name = "copy_strided.c";
  spec.set("base", c_int(numel(v.dims) == 0 ? 0 : v.base));
  spec.set("r", static_cast<int64_t>(l.dims.size()));
  spec.set_list("loops", loops);
  spec.set_flag("empty", numel(v.dims) == 0);
  spec.args = {0};
  if (!v.checks.empty()) {
    std::vector<TemplateData> checks;
    for (const std::string& c : v.checks) {
      TemplateData item;
      item.set("cond", c);
      checks.push_back(item);
    }
    spec.set_list("checks", checks);
    spec.set_flag("checked", true);
    spec.returns_status = true;
    spec.includes = {"mlip/status.h"};
    spec.args = {0, v.check_input};
  } else {
    spec.set_flag("checked", false);
  }
}

}  // namespace mlipc::c::kernels
