// Slice: a strided view of the input (negative steps walk backwards), with
// the clamped starts and steps of ops::slice_params baked in. Bounds computed
// at run time (the output shape then is the model's declared one) are
// normalized and clamped by the kernel as ops::slice_params does; bounds that
// do not give the declared shape make it return MLIP_ERR_INVALID_ARG before
// it writes.
#include <fmt/format.h>

#include "c/kernels/kernels.h"
#include "c/kernels/strided_copy.h"
#include "ops/slice.h"

namespace mlipc::c::kernels {

namespace {

std::string initializer(const std::vector<int64_t>& v) {
  std::vector<std::string> items;
  for (int64_t x : v) items.push_back(c_int(x));
  return fmt::format("{{{}}}", fmt::join(items, ", "));
}

void prepare_runtime_bounds(const Graph& g, const Node& n, KernelSpec& spec) {
  const Shape& in = g.value(n.inputs[0]).shape;
  const Shape& out = g.value(n.outputs[0]).shape;
  const int rank = static_cast<int>(in.size());
  std::vector<TemplateData> loops;
  for (int d = 0; d < rank; ++d) {
    TemplateData item;
    item.set("a", std::to_string(d + 1));
    item.set("p", std::to_string(d));
    item.set("dim", c_int(out[d]));
    loops.push_back(item);
  }
  spec.template_name = "slice_runtime.c";
  spec.returns_status = true;
  spec.includes = {"mlip/status.h"};
  spec.set("rank", static_cast<int64_t>(rank));
  spec.set("n", numel(g.value(n.inputs[1]).shape));
  spec.set("dims", initializer(in));
  spec.set("outs", initializer(out));
  spec.set("strides", initializer(strides_of(in)));
  spec.set_list("loops", loops);
  spec.set("r", static_cast<int64_t>(rank));
  spec.set_flag("has_axes", n.has_input(3));
  spec.set_flag("has_steps", n.has_input(4));
  spec.args = {0, 1, 2};
  for (int i : {3, 4})
    if (n.has_input(static_cast<size_t>(i))) spec.args.push_back(i);
}

}  // namespace

void prepare_Slice(const Graph& g, const Node& n, KernelSpec& spec) {
  if (!ops::slice_bounds_constant(g, n)) return prepare_runtime_bounds(g, n, spec);
  const Shape& in = g.value(n.inputs[0]).shape;
  const ops::SliceParams p = ops::slice_params(g, n);
  const std::vector<int64_t> strides = strides_of(in);
  StridedView v;
  v.dims = p.out_shape;
  for (size_t k = 0; k < in.size(); ++k) {
    v.base += p.start[k] * strides[k];
    // A single-element axis never steps (and INT64_MIN steps must not be multiplied).
    v.strides.push_back(p.out_shape[k] > 1 ? p.step[k] * strides[k] : 0);
  }
  set_strided_copy(spec, v);
}

}  // namespace mlipc::c::kernels
