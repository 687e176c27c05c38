// MeanVarianceNormalization: the reduce family's loop nests
// (ops::mvn_loops); per kept index one pass for the sums of x and x * x,
// one to write the normalized elements. Same order as ops/mvn.cpp.
#include "c/kernels/kernels.h"
#include "ops/mvn.h"

namespace mlipc::c::kernels {

void prepare_MeanVarianceNormalization(const Graph& g, const Node& n, KernelSpec& spec) {
  expect_float(g, n, 0);
  const ops::ReduceLoops l = ops::mvn_loops(n.attrs, g.value(n.inputs[0]).shape);
  std::vector<TemplateData> kept, reduced;
  size_t d = 0;
  auto add = [&](std::vector<TemplateData>& list, int64_t dim, int64_t stride) {
    ++d;
    TemplateData item;
    item.set("d", std::to_string(d));
    item.set("p", std::to_string(d - 1));
    item.set("dim", c_int(dim));
    item.set("stride", c_int(stride));
    list.push_back(item);
  };
  for (size_t i = 0; i < l.kept_dims.size(); ++i) add(kept, l.kept_dims[i], l.kept_strides[i]);
  for (size_t i = 0; i < l.reduced_dims.size(); ++i) add(reduced, l.reduced_dims[i], l.reduced_strides[i]);
  spec.set("r", std::to_string(d));
  spec.set_list("kept", kept);
  spec.set_list("reduced", reduced);
  spec.set("count", c_float(static_cast<float>(l.count)));
  spec.set("eps", c_float(ops::kMvnEpsilon));
  spec.template_name = "mvn.c";
  spec.args = {0};
}

}  // namespace mlipc::c::kernels
