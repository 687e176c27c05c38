// DepthToSpace and SpaceToDepth on NCHW tensors of any element type.
// DepthToSpace moves blocks of b*b channels into b x b spatial blocks:
// DCR (default) reads channel (i*b + j)*C' + c for output channel c at block
// offset (i, j); CRD reads channel (c*b + i)*b + j. SpaceToDepth is the
// inverse of DCR: output channel (i*b + j)*C + c takes pixel (h*b + i, w*b + j).
#include "ops/depth_space.h"

#include <cstring>

#include "ops/ops.h"
#include "support/error.h"

namespace mlipc::ops {

int64_t depth_space_block(const Attrs& attrs, const Shape& in, bool to_space, bool* crd) {
  if (!attrs.has("blocksize")) fail("attribute 'blocksize' is required");
  const int64_t b = attrs.get_int("blocksize");
  if (b < 1) fail("blocksize {} must be positive", b);
  if (in.size() != 4) fail("the input {} must be 4-D (NCHW)", shape_str(in));
  *crd = false;
  if (to_space) {
    const std::string mode = attrs.get_string("mode", "DCR");
    if (mode != "DCR" && mode != "CRD") fail("mode '{}' is not supported (supported: DCR, CRD)", mode);
    *crd = mode == "CRD";
    if (in[1] % (b * b) != 0) fail("channels {} are not a multiple of blocksize^2 = {}", in[1], b * b);
  } else if (in[2] % b != 0 || in[3] % b != 0) {
    fail("height {} and width {} must be multiples of blocksize {}", in[2], in[3], b);
  }
  return b;
}

void infer_DepthToSpace(InferContext& ctx) {
  ctx.expect_inputs(1, 1);
  bool crd;
  const Shape& in = ctx.in_shape(0);
  const int64_t b = depth_space_block(ctx.attrs(), in, true, &crd);
  ctx.set_output(0, ctx.in_dtype(0), {in[0], in[1] / (b * b), in[2] * b, in[3] * b});
}

void infer_SpaceToDepth(InferContext& ctx) {
  ctx.expect_inputs(1, 1);
  bool crd;
  const Shape& in = ctx.in_shape(0);
  const int64_t b = depth_space_block(ctx.attrs(), in, false, &crd);
  ctx.set_output(0, ctx.in_dtype(0), {in[0], in[1] * b * b, in[2] / b, in[3] / b});
}

namespace {

// Copies y[n][c][h][w] = x[n][src_c][src_h][src_w] for every output element.
template <class F>
void remap(EvalContext& ctx, F source) {
  const TensorData& x = ctx.in(0);
  const Shape& is = x.shape();
  const Shape& os = ctx.outputs[0].shape();
  const size_t esize = dtype_size(x.dtype());
  uint8_t* y = ctx.outputs[0].raw();
  for (int64_t n = 0; n < os[0]; ++n)
    for (int64_t c = 0; c < os[1]; ++c)
      for (int64_t h = 0; h < os[2]; ++h)
        for (int64_t w = 0; w < os[3]; ++w) {
          int64_t sc, sh, sw;
          source(c, h, w, &sc, &sh, &sw);
          const int64_t s = ((n * is[1] + sc) * is[2] + sh) * is[3] + sw;
          std::memcpy(y, x.raw() + s * esize, esize);
          y += esize;
        }
}

}  // namespace

void eval_DepthToSpace(EvalContext& ctx) {
  bool crd;
  const int64_t b = depth_space_block(ctx.attrs(), ctx.in(0).shape(), true, &crd);
  const int64_t oc = ctx.outputs[0].shape()[1];
  remap(ctx, [&](int64_t c, int64_t h, int64_t w, int64_t* sc, int64_t* sh, int64_t* sw) {
    const int64_t i = h % b, j = w % b;
    *sc = crd ? (c * b + i) * b + j : (i * b + j) * oc + c;
    *sh = h / b;
    *sw = w / b;
  });
}

void eval_SpaceToDepth(EvalContext& ctx) {
  bool crd;
  const int64_t b = depth_space_block(ctx.attrs(), ctx.in(0).shape(), false, &crd);
  const int64_t ic = ctx.in(0).shape()[1];
  remap(ctx, [&](int64_t c, int64_t h, int64_t w, int64_t* sc, int64_t* sh, int64_t* sw) {
    const int64_t blk = c / ic;  // (i * b + j)
    *sc = c % ic;
    *sh = h * b + blk / b;
    *sw = w * b + blk % b;
  });
}

}  // namespace mlipc::ops
