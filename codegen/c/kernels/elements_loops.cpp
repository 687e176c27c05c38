#include "c/kernels/elements_loops.h"

#include "ops/broadcast.h"
#include "ops/indexing.h"

namespace mlipc::c::kernels {

void set_elements_loops(KernelSpec& spec, const Shape& data, const Shape& indices, int axis) {
  // The same simplified loops as the reference's for_each_broadcast walk.
  const ops::Loops l = ops::simplify_loops(indices, {ops::elements_strides(data, axis)});
  std::vector<TemplateData> loops;
  for (size_t i = 0; i < l.dims.size(); ++i) {
    TemplateData item;
    item.set("a", std::to_string(i + 1));
    item.set("p", std::to_string(i));
    item.set("dim", c_int(l.dims[i]));
    item.set("stride", c_int(l.strides[0][i]));
    loops.push_back(item);
  }
  spec.set_list("loops", loops);
  spec.set("r", static_cast<int64_t>(l.dims.size()));
  spec.set("axis_dim", c_int(data[axis]));
  spec.set("axis_stride", c_int(strides_of(data)[axis]));
}

}  // namespace mlipc::c::kernels
