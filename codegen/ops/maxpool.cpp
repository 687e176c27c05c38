// MaxPool: 1-D to 3-D max pooling with strides, dilations, pads or auto_pad
// and ceil_mode, on float and 8-bit integer data, with the optional Indices
// output (flat positions in X; storage_order 1 numbers the spatial axes
// column-major).
#include <cmath>
#include <limits>
#include <type_traits>

#include "ops/conv.h"
#include "ops/ops.h"
#include "ops/spatial.h"
#include "ops/window.h"
#include "support/error.h"

namespace mlipc::ops {

namespace {

const GeometryRules kMaxPoolRules{/*dilations=*/true, /*ceil_mode=*/true, /*pads_below_window=*/true};

template <class T>
bool is_nan(T v) {
  if constexpr (std::is_floating_point_v<T>) return std::isnan(v);
  return false;
}

bool has_indices(const Node& n) { return n.outputs.size() > 1 && n.outputs[1] != kNoValue; }

}  // namespace

Geometry maxpool_geometry(const Attrs& pool, const Shape& x) {
  return resolve_geometry(pool, spatial_of(x), {}, kMaxPoolRules);
}

void infer_MaxPool(InferContext& ctx) {
  ctx.expect_inputs(1, 1);
  if (ctx.num_outputs() > 2) fail("expects at most 2 outputs (Y, Indices), got {}", ctx.num_outputs());
  ctx.expect_dtype(0, {DType::Float32, DType::Float64, DType::Int8, DType::UInt8, DType::Int16});
  const Shape& x = ctx.in_shape(0);
  if (x.size() < 3 || x.size() > 2 + kMaxSpatial)
    fail("input X has shape {}; MaxPool supports 1-D to 3-D data: [N, C, D1 (, D2 (, D3))]", shape_str(x));
  const int64_t order = ctx.attrs().get_int("storage_order", 0);
  if (order != 0 && order != 1) fail("attribute storage_order is {}; it must be 0 (row major) or 1 (column major)", order);
  Geometry g = resolve_geometry(ctx.attrs(), spatial_of(x), {}, kMaxPoolRules);
  store_geometry(ctx.attrs(), g, kMaxPoolRules);
  Shape out = {x[0], x[1]};
  out.insert(out.end(), g.out.begin(), g.out.end());
  ctx.set_output(0, ctx.in_dtype(0), out);
  if (ctx.num_outputs() > 1) ctx.set_output(1, DType::Int64, out);
}

// Same loop nest as templates/kernels/maxpool.c: the first maximum in window
// order wins, and a NaN wins over any number (numpy's max; the last NaN in
// window order, its index); padding taps are skipped; an all-padding window
// gives the type's lowest value and index -1.
void eval_MaxPool(EvalContext& ctx) {
  const TensorData& xt = ctx.in(0);
  const Geometry3 g = to_3d(resolve_geometry(ctx.attrs(), spatial_of(xt.shape()), {}, kMaxPoolRules));
  const bool col_major = ctx.attrs().get_int("storage_order", 0) == 1;
  const bool want_indices = has_indices(ctx.node);
  const int64_t planes = xt.shape()[0] * xt.shape()[1];
  const int64_t isize = input_plane(g), osize = output_plane(g);
  int64_t* yi = want_indices ? ctx.outputs[1].data<int64_t>() : nullptr;
  visit_numeric(xt.dtype(), "MaxPool", [&](auto tag) {
    using T = typename decltype(tag)::type;
    const T lowest = std::numeric_limits<T>::has_infinity ? -std::numeric_limits<T>::infinity()
                                                          : std::numeric_limits<T>::lowest();
    const T* x = xt.data<T>();
    T* y = ctx.outputs[0].data<T>();
    for (int64_t p = 0; p < planes; ++p) {
      const T* xp = x + p * isize;
      for_each_output(g, [&](int64_t o, int64_t od, int64_t oh, int64_t ow) {
        T best = lowest;
        int64_t at = -1;
        for_each_tap(g, od, oh, ow, [&](const WindowTap& t) {
          const T v = xp[t.x];
          if (at < 0 || v > best || is_nan(v)) {
            best = v;
            at = col_major ? (t.w * g.in[1] + t.h) * g.in[0] + t.d : t.x;
          }
        });
        y[p * osize + o] = best;
        if (yi) yi[p * osize + o] = at < 0 ? -1 : p * isize + at;
      });
    }
  });
}

}  // namespace mlipc::ops
