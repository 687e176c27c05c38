// DepthToSpace and SpaceToDepth: each is a reshape, a 6-D transpose and a
// reshape, so the copy is a strided view of the input over the output's
// 6-D form (n, c', h, i, w, j) resp. (n, i, j, c, h', w').
#include "c/kernels/kernels.h"
#include "c/kernels/strided_copy.h"
#include "ops/depth_space.h"

namespace mlipc::c::kernels {

void prepare_DepthToSpace(const Graph& g, const Node& n, KernelSpec& spec) {
  const Shape& in = g.value(n.inputs[0]).shape;
  bool crd;
  const int64_t b = ops::depth_space_block(n.attrs, in, true, &crd);
  const int64_t C = in[1], H = in[2], W = in[3], oc = C / (b * b), plane = H * W;
  StridedView v;
  v.dims = {in[0], oc, H, b, W, b};
  // Input channel of (c', i, j): DCR (i*b + j)*C' + c', CRD (c'*b + i)*b + j.
  if (crd) v.strides = {C * plane, b * b * plane, W, b * plane, 1, plane};
  else v.strides = {C * plane, plane, W, b * oc * plane, 1, oc * plane};
  set_strided_copy(spec, v);
}

void prepare_SpaceToDepth(const Graph& g, const Node& n, KernelSpec& spec) {
  const Shape& in = g.value(n.inputs[0]).shape;
  bool crd;
  const int64_t b = ops::depth_space_block(n.attrs, in, false, &crd);
  const int64_t C = in[1], H = in[2], W = in[3];
  StridedView v;
  v.dims = {in[0], b, b, C, H / b, W / b};
  v.strides = {C * H * W, W, 1, H * W, b * W, b};
  set_strided_copy(spec, v);
}

}  // namespace mlipc::c::kernels
