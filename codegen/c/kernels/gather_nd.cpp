// GatherND: per batch and index tuple, the tuple's coordinates (read at run
// time, negative counting from the end) give the offset of a contiguous
// chunk of the data. Out-of-range coordinates make the kernel return
// MLIP_ERR_INVALID_ARG before it writes.
#include <fmt/format.h>

#include "c/kernels/kernels.h"
#include "ops/gather_nd.h"

namespace mlipc::c::kernels {

void set_nd_geometry(KernelSpec& spec, const ops::NdGeometry& geo) {
  std::vector<std::string> dims, strides;
  for (int j = 0; j < geo.k; ++j) {
    dims.push_back(c_int(geo.dims[j]));
    strides.push_back(c_int(geo.strides[j]));
  }
  spec.set("k", static_cast<int64_t>(geo.k));
  spec.set("dims", fmt::format("{{{}}}", fmt::join(dims, ", ")));  // C initializers
  spec.set("strides", fmt::format("{{{}}}", fmt::join(strides, ", ")));
  spec.set("batches", c_int(geo.batches));
  spec.set("tuples", c_int(geo.tuples));
  spec.set("chunk", c_int(geo.chunk));
  spec.set("batch_stride", c_int(geo.batch_stride));
}

void prepare_GatherND(const Graph& g, const Node& n, KernelSpec& spec) {
  expect_dtype(g, n, 1, {DType::Int64, DType::Int32});
  set_nd_geometry(spec, ops::nd_geometry(g.value(n.inputs[0]).shape, g.value(n.inputs[1]).shape,
                                         n.attrs.get_int("batch_dims", 0)));
  spec.template_name = "gather_nd.c";
  spec.returns_status = true;
  spec.includes = {"mlip/status.h"};
  spec.args = {0, 1};
}

}  // namespace mlipc::c::kernels
