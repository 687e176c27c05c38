// Pad (opset 11+ form: pads and constant_value are inputs): constant, reflect
// and edge modes on any element type; negative pads crop. The frontend turns
// opset < 11 attributes into constant inputs.
#include "ops/pad.h"

#include <cstring>

#include "ops/ops.h"
#include "support/error.h"

namespace mlipc::ops {

namespace {

PadMode parse_mode(const Attrs& attrs) {
  const std::string mode = attrs.get_string("mode", "constant");
  if (mode == "constant") return PadMode::Constant;
  if (mode == "reflect") return PadMode::Reflect;
  if (mode == "edge") return PadMode::Edge;
  fail("mode '{}' is not supported (supported: constant, reflect, edge)", mode);
}

const char* mode_name(PadMode m) {
  return m == PadMode::Constant ? "constant" : m == PadMode::Reflect ? "reflect" : "edge";
}

void expect_int_list(const TensorData& t, const char* what) {
  if (t.dtype() != DType::Int64 && t.dtype() != DType::Int32)
    fail("{} has element type {}; supported: int64, int32", what, dtype_name(t.dtype()));
  if (t.rank() != 1) fail("{} must be 1-D, got shape {}", what, shape_str(t.shape()));
}

}  // namespace

PadParams pad_params(const Attrs& attrs, DType dtype, const Shape& in_shape, const TensorData& pads,
                     const TensorData* value, const TensorData* axes) {
  PadParams p;
  p.mode = parse_mode(attrs);
  const int rank = static_cast<int>(in_shape.size());
  expect_int_list(pads, "pads");
  const std::vector<int64_t> pv = pads.as_int64();

  // Which axes the pads cover: all of them, or those of the axes input (opset 18).
  std::vector<int> ax;
  if (axes) {
    expect_int_list(*axes, "axes");
    std::vector<bool> seen(static_cast<size_t>(rank), false);
    for (int64_t a : axes->as_int64()) {
      if (a < -rank || a >= rank) fail("axes entry {} is out of range for rank {}", a, rank);
      const int k = static_cast<int>(a < 0 ? a + rank : a);
      if (seen[k]) fail("axes {} name axis {} twice", shape_str(axes->as_int64()), k);
      seen[k] = true;
      ax.push_back(k);
    }
  } else {
    for (int k = 0; k < rank; ++k) ax.push_back(k);
  }
  const size_t na = ax.size();
  if (pv.size() != 2 * na)
    fail("pads has {} entries; expected 2 * {} = {} (all begins, then all ends)", pv.size(), na, 2 * na);
  p.begin.assign(static_cast<size_t>(rank), 0);
  p.end.assign(static_cast<size_t>(rank), 0);
  for (size_t i = 0; i < na; ++i) {
    p.begin[ax[i]] = pv[i];
    p.end[ax[i]] = pv[i + na];
  }

  for (int k = 0; k < rank; ++k) {
    const int64_t crop_lo = p.begin[k] < 0 ? -p.begin[k] : 0;
    const int64_t crop_hi = p.end[k] < 0 ? -p.end[k] : 0;
    const int64_t kept = in_shape[k] - crop_lo - crop_hi;
    if (kept < 0)
      fail("pads {} crop {} elements from axis {}, which has only {}", shape_str(pv), crop_lo + crop_hi, k,
           in_shape[k]);
    const int64_t grow = (p.begin[k] > 0 ? p.begin[k] : 0) + (p.end[k] > 0 ? p.end[k] : 0);
    if (kept == 0 && grow > 0 && p.mode != PadMode::Constant)
      fail("{} padding of axis {} needs at least one element, but it has none left after cropping", mode_name(p.mode), k);
    p.lo.push_back(crop_lo);
    p.kept.push_back(kept);
    p.out_shape.push_back(kept + grow);
  }

  if (value && value->numel() > 1)
    fail("constant_value must be a scalar, got shape {}", shape_str(value->shape()));
  if (value && value->numel() == 1) {
    // Opset < 11 models give the value as a float32 attribute: cast it to the data's type.
    p.value = value->reshaped({}).cast(dtype);
  } else {
    p.value = TensorData(dtype, {});  // the ONNX default: 0 (false)
  }
  return p;
}

int64_t pad_source(int64_t j, int64_t kept, PadMode mode) {
  if (j >= 0 && j < kept) return j;
  switch (mode) {
    case PadMode::Constant: return -1;
    case PadMode::Edge: return j < 0 ? 0 : kept - 1;
    case PadMode::Reflect: {
      // numpy's 'reflect' (edge not repeated), periodic when pads exceed the axis.
      if (kept == 1) return 0;
      const int64_t period = 2 * (kept - 1);
      int64_t r = j % period;
      if (r < 0) r += period;
      return r >= kept ? period - r : r;
    }
  }
  return -1;
}

namespace {
PadParams params_of(InferContext& ctx) {
  const TensorData& pads = ctx.require_const(1, "pads");
  const TensorData* value = ctx.has_input(2) ? &ctx.require_const(2, "constant_value") : nullptr;
  const TensorData* axes = ctx.has_input(3) ? &ctx.require_const(3, "axes") : nullptr;
  return pad_params(ctx.attrs(), ctx.in_dtype(0), ctx.in_shape(0), pads, value, axes);
}
}  // namespace

void infer_Pad(InferContext& ctx) {
  ctx.expect_inputs(2, 4);
  PadParams p = params_of(ctx);
  ctx.set_output(0, ctx.in_dtype(0), p.out_shape);
}

void eval_Pad(EvalContext& ctx) {
  const TensorData& x = ctx.in(0);
  const PadParams p = pad_params(ctx.attrs(), x.dtype(), x.shape(), ctx.in(1),
                                 ctx.has_input(2) ? &ctx.in(2) : nullptr, ctx.has_input(3) ? &ctx.in(3) : nullptr);
  const int rank = x.rank();
  const std::vector<int64_t> in_strides = strides_of(x.shape());
  // For each axis, the input offset each output position reads (-1: constant).
  std::vector<std::vector<int64_t>> src(static_cast<size_t>(rank));
  for (int k = 0; k < rank; ++k) {
    const int64_t pre = p.begin[k] > 0 ? p.begin[k] : 0;
    for (int64_t o = 0; o < p.out_shape[k]; ++o) {
      const int64_t s = pad_source(o - pre, p.kept[k], p.mode);
      src[k].push_back(s < 0 ? -1 : (p.lo[k] + s) * in_strides[k]);
    }
  }
  visit_bytes(x.dtype(), [&](auto tag) {
    using T = typename decltype(tag)::type;
    const T* in = x.raw_as<T>();
    T* out = ctx.outputs[0].raw_as<T>();
    T fill;
    std::memcpy(&fill, p.value.raw(), sizeof(T));
    const int64_t n = ctx.outputs[0].numel();
    std::vector<int64_t> idx(static_cast<size_t>(rank), 0);
    for (int64_t o = 0; o < n; ++o) {
      int64_t s = 0;
      bool inside = true;
      for (int k = 0; k < rank && inside; ++k) {
        const int64_t v = src[k][idx[k]];
        if (v < 0) inside = false;
        else s += v;
      }
      out[o] = inside ? in[s] : fill;
      for (int d = rank - 1; d >= 0; --d) {
        if (++idx[d] < p.out_shape[d]) break;
        idx[d] = 0;
      }
    }
  });
}

// Constant padding adds one value, quantized to the tensor's scale; the
// other modes are not checked on the integers.
std::string pad_qdq_refusal(const Node& n) {
  return n.attrs.get_string("mode", "constant") != "constant" ? "only constant padding folds" : "";
}

}  // namespace mlipc::ops
