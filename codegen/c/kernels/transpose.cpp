// Transpose: nested loops over the output in order, the input offset built
// from baked-in strides. Size-1 axes are dropped and output axes that stay
// adjacent in the input are merged, so e.g. NCHW->NHWC is a 3-deep loop.
// Where the input's contiguous axis is not the output's last, the two are
// walked in tiles (transpose_blocked.c): both read and written in runs.
#include <algorithm>

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
  // The output axis with input stride 1 (the input's last kept axis).
  int q = -1;
  for (size_t i = 0; i < axes.size(); ++i)
    if (axes[i].second == 1) q = static_cast<int>(i);
  const int last = static_cast<int>(axes.size()) - 1;
  // Tiles where that axis is not the last and both are long enough to fill
  // a tile's row (a 64-byte line of elements) at least once.
  const int64_t esize = static_cast<int64_t>(dtype_size(g.value(n.inputs[0]).dtype));
  const int64_t tile = std::max<int64_t>(4, 64 / std::max<int64_t>(1, esize));
  if (q >= 0 && q < last && axes[static_cast<size_t>(q)].first >= tile && axes.back().first >= tile) {
    std::vector<int64_t> ostride(axes.size(), 1);
    for (int i = last - 1; i >= 0; --i) ostride[i] = ostride[i + 1] * axes[static_cast<size_t>(i) + 1].first;
    std::vector<TemplateData> outer;
    for (int i = 0; i < last; ++i) {
      if (i == q) continue;
      TemplateData item;
      item.set("a", std::to_string(outer.size() + 1));
      item.set("p", std::to_string(outer.size()));
      item.set("dim", c_int(axes[static_cast<size_t>(i)].first));
      item.set("stride", c_int(axes[static_cast<size_t>(i)].second));
      item.set("ostride", c_int(ostride[static_cast<size_t>(i)]));
      outer.push_back(item);
    }
    spec.template_name = "transpose_blocked.c";
    spec.set("r", static_cast<int64_t>(outer.size()));
    spec.set_list("loops", outer);
    spec.set("T", tile);
    spec.set("DQ", c_int(axes[static_cast<size_t>(q)].first));
    spec.set("OQ", c_int(ostride[static_cast<size_t>(q)]));
    spec.set("DL", c_int(axes.back().first));
    spec.set("SL", c_int(axes.back().second));
    spec.args = {0};
    return;
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
