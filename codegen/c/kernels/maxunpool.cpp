// MaxUnpool: zero the output, scatter X at the run-time indices I, checking
// each against the scatter shape; a larger output_shape maps each position's
// coordinates into the output.
#include <fmt/format.h>

#include "c/kernels/kernels.h"
#include "ops/maxunpool.h"

namespace mlipc::c::kernels {

void prepare_MaxUnpool(const Graph& g, const Node& n, KernelSpec& spec) {
  expect_dtype(g, n, 0, {DType::Float32, DType::Float64});
  expect_dtype(g, n, 1, {DType::Int64});
  const Shape scatter = ops::maxunpool_scatter_shape(n.attrs, g.value(n.inputs[0]).shape);
  const Shape& out = g.value(n.outputs[0]).shape;
  const std::vector<int64_t> ystrides = strides_of(out);
  spec.template_name = "maxunpool.c";
  spec.set("TOTAL", numel(scatter));
  spec.set_flag("same", scatter == out);
  std::vector<TemplateData> axes;  // innermost first
  for (size_t d = scatter.size(); d-- > 0;) {
    TemplateData a;
    a.set("ext", std::to_string(scatter[d]));
    a.set("stride", std::to_string(ystrides[d]));
    axes.push_back(a);
  }
  spec.set_list("axes", axes);
  spec.args = {0, 1};
  spec.returns_status = true;
  spec.includes = {"mlip/status.h"};
}

}  // namespace mlipc::c::kernels
