// Transpose: nested loops over the output in order, the input offset built
// from baked-in strides. Size-1 axes are dropped and output axes that stay
// adjacent in the input are merged, so e.g. NCHW->NHWC is a 3-deep loop.
#include "c/kernels/kernels.h"
#include "ops/transpose.h"

namespace mlipc::c::kernels {

void prepare_Transpose(const Graph& g, const Node& n, KernelSpec& spec) {
  const Shape& in = g.value(n.inputs[0]).shape;
  const int rank = static_cast<int>(in.size());
  const std::vector<int> perm = ops::transpose_perm(n.attrs, rank);
  const std::vector<int64_t> in_strides = strides_of(in);
  // (size, input stride) of each output axis, simplified.
  std::vector<std::pair<int64_t, int64_t>> axes;
  int prev = -2;  // input axis of the last kept output axis
  for (int a = 0; a < rank; ++a) {
    const int k = perm[a];
    if (in[k] == 1) continue;
    if (!axes.empty() && k == prev + 1) {
      // The input axis k follows the previous one: one loop covers both.
      axes.back().first *= in[k];
      axes.back().second = in_strides[k];
    } else {
      axes.emplace_back(in[k], in_strides[k]);
    }
    prev = k;
  }
  std::vector<TemplateData> loops;
  for (size_t i = 0; i < axes.size(); ++i) {
    TemplateData item;
    item.set("a", std::to_string(i + 1));
    item.set("p", std::to_string(i));
    item.set("dim", c_int(axes[i].first));
    item.set("stride", c_int(axes[i].second));
    loops.push_back(item);
  }
  spec.template_name = "transpose.c";
  spec.set("r", static_cast<int64_t>(axes.size()));
  spec.set_list("loops", loops);
  spec.args = {0};
}

}  // namespace mlipc::c::kernels
