// Resize (opset 11-19 forms) and Upsample (opset 7-9): nearest (any element
// type), linear and cubic (float32) interpolation along every axis whose
// length or coordinates change. The coordinate rules follow the ONNX
// specification and its reference implementation (which generated the
// backend tests):
// - a scale s per axis, from `scales` (output length floor(in * s)) or from
//   `sizes` (s = out / in; keep_aspect_ratio_policy not_larger/not_smaller
//   use one scale, the min/max of those, and round the lengths);
// - output index o maps to input coordinate x by coordinate_transformation_mode,
//   with "length_resized" = in * s (not rounded), as the reference computes it;
// - nearest rounds x by nearest_mode; linear and cubic take the 2 or 4
//   nearest input indices (preferring the lower ones; for an integral x,
//   x - 1 and x for linear) with weights [1 - r, r] or Keys' cubic of
//   cubic_coeff_a, indices clamped to the edges; exclude_outside zeroes the
//   weights of indices outside the input and renormalizes;
// - tf_crop_and_resize maps into roi and writes extrapolation_value where x
//   falls outside the input on any axis.
// The output length with `scales` and tf_crop_and_resize is floor(in * s), as
// in the reference implementation and onnxruntime (the specification's text
// also multiplies by the roi's extent).
// Not supported: antialias = 1 (opset 18).
#include "ops/resize.h"

#include <algorithm>
#include <cmath>
#include <cstring>

#include "ops/cast.h"
#include "ops/ops.h"
#include "support/error.h"

namespace mlipc::ops {

namespace {

enum class Coord { HalfPixel, HalfPixelSymmetric, PytorchHalfPixel, AlignCorners, Asymmetric, TfHalfPixelForNN,
                   TfCropAndResize };
enum class Round { PreferFloor, PreferCeil, Floor, Ceil };
enum class Policy { Stretch, NotLarger, NotSmaller };

struct Options {
  ResizeMode mode = ResizeMode::Nearest;
  Coord coord = Coord::HalfPixel;
  Round round = Round::PreferFloor;
  double cubic_a = -0.75;
  bool exclude_outside = false;
  float extrapolation = 0.0f;
  Policy policy = Policy::Stretch;
};

Options options_of(const Node& n) {
  const Attrs& a = n.attrs;
  Options o;
  const std::string mode = a.get_string("mode", "nearest");
  if (mode == "nearest") o.mode = ResizeMode::Nearest;
  else if (mode == "linear" || (n.op == "Upsample" && mode == "bilinear")) o.mode = ResizeMode::Linear;
  else if (mode == "cubic" && n.op == "Resize") o.mode = ResizeMode::Cubic;
  else fail("mode '{}' is not supported (supported: nearest, linear{})", mode, n.op == "Resize" ? ", cubic" : "");
  if (n.op == "Upsample") {
    o.coord = Coord::Asymmetric;
    o.round = Round::Floor;
    return o;
  }
  const std::string coord = a.get_string("coordinate_transformation_mode", "half_pixel");
  if (coord == "half_pixel") o.coord = Coord::HalfPixel;
  else if (coord == "half_pixel_symmetric") o.coord = Coord::HalfPixelSymmetric;
  else if (coord == "pytorch_half_pixel") o.coord = Coord::PytorchHalfPixel;
  else if (coord == "align_corners") o.coord = Coord::AlignCorners;
  else if (coord == "asymmetric") o.coord = Coord::Asymmetric;
  else if (coord == "tf_half_pixel_for_nn") o.coord = Coord::TfHalfPixelForNN;
  else if (coord == "tf_crop_and_resize") o.coord = Coord::TfCropAndResize;
  else
    fail("coordinate_transformation_mode '{}' is not supported (supported: half_pixel, half_pixel_symmetric, "
         "pytorch_half_pixel, align_corners, asymmetric, tf_half_pixel_for_nn, tf_crop_and_resize)", coord);
  const std::string round = a.get_string("nearest_mode", "round_prefer_floor");
  if (round == "round_prefer_floor") o.round = Round::PreferFloor;
  else if (round == "round_prefer_ceil") o.round = Round::PreferCeil;
  else if (round == "floor") o.round = Round::Floor;
  else if (round == "ceil") o.round = Round::Ceil;
  else fail("nearest_mode '{}' is not supported (supported: round_prefer_floor, round_prefer_ceil, floor, ceil)", round);
  o.cubic_a = a.get_float("cubic_coeff_a", -0.75f);
  o.exclude_outside = a.get_int("exclude_outside", 0) != 0;
  o.extrapolation = a.get_float("extrapolation_value", 0.0f);
  if (a.get_int("antialias", 0) != 0) fail("antialias = 1 is not supported (only antialias = 0)");
  const std::string policy = a.get_string("keep_aspect_ratio_policy", "stretch");
  if (policy == "stretch") o.policy = Policy::Stretch;
  else if (policy == "not_larger") o.policy = Policy::NotLarger;
  else if (policy == "not_smaller") o.policy = Policy::NotSmaller;
  else fail("keep_aspect_ratio_policy '{}' is not supported (supported: stretch, not_larger, not_smaller)", policy);
  return o;
}

// Keys' cubic convolution weights of the 4 taps around a point at distance
// `r` in (0, 1] past the second tap (the reference's cubic_coeffs).
void cubic_weights(double r, double A, double* w) {
  w[0] = ((A * (r + 1) - 5 * A) * (r + 1) + 8 * A) * (r + 1) - 4 * A;
  w[1] = ((A + 2) * r - (A + 3)) * r * r + 1;
  w[2] = ((A + 2) * (1 - r) - (A + 3)) * (1 - r) * (1 - r) + 1;
  w[3] = ((A * ((1 - r) + 1) - 5 * A) * ((1 - r) + 1) + 8 * A) * ((1 - r) + 1) - 4 * A;
}

// The input coordinate of output index o (roi: this axis' start and end).
double coordinate(const Options& opt, double o, int64_t in, int64_t out, double scale, double length,
                  const double* roi) {
  switch (opt.coord) {
    case Coord::HalfPixel: return (o + 0.5) / scale - 0.5;
    case Coord::HalfPixelSymmetric: {
      const double adjustment = static_cast<double>(out) / length;
      const double center = static_cast<double>(in) / 2;
      return center * (1 - adjustment) + (o + 0.5) / scale - 0.5;
    }
    case Coord::PytorchHalfPixel: return length > 1 ? (o + 0.5) / scale - 0.5 : 0.0;
    case Coord::AlignCorners: return length == 1 ? 0.0 : o * static_cast<double>(in - 1) / (length - 1);
    case Coord::Asymmetric: return o / scale;
    case Coord::TfHalfPixelForNN: return (o + 0.5) / scale;
    case Coord::TfCropAndResize: {
      const double start = roi[0], end = roi[1], span = static_cast<double>(in - 1);
      if (length > 1) return start * span + o * (end - start) * span / (length - 1);
      return 0.5 * (start + end) * span;
    }
  }
  return 0.0;
}

// The taps of one output index at input coordinate x.
void taps_at(const Options& opt, double x, int64_t in, int taps, int64_t* index, float* coeff) {
  const double fl = std::floor(x);
  const bool integral = fl == x;
  if (opt.mode == ResizeMode::Nearest) {
    const double r = x - fl;
    int64_t k = static_cast<int64_t>(fl);
    if (!integral) {
      switch (opt.round) {
        case Round::PreferFloor: k += r > 0.5; break;
        case Round::PreferCeil: k += r >= 0.5; break;
        case Round::Floor: break;
        case Round::Ceil: k += 1; break;
      }
    }
    index[0] = std::clamp<int64_t>(k, 0, in - 1);
    return;
  }
  // The reference takes the `taps` nearest indices of the edge-padded input
  // (pad taps/2), preferring lower ones: for an integral x the window ends at
  // x, and the weights see r = 1.
  const int64_t f = integral ? static_cast<int64_t>(x) - 1 : static_cast<int64_t>(fl);
  const double r = integral ? 1.0 : x - fl;
  double w[4];
  if (opt.mode == ResizeMode::Linear) {
    w[0] = 1 - r;
    w[1] = r;
  } else {
    cubic_weights(r, opt.cubic_a, w);
  }
  const int64_t half = taps / 2;
  const int64_t base = std::clamp<int64_t>(f - half + 1, -half, in + half - taps);
  double sum = 0;
  for (int t = 0; t < taps; ++t) {
    const int64_t nb = base + t;
    if (opt.exclude_outside && (nb < 0 || nb >= in)) w[t] = 0;
    sum += w[t];
  }
  for (int t = 0; t < taps; ++t) {
    index[t] = std::clamp<int64_t>(base + t, 0, in - 1);
    coeff[t] = static_cast<float>(opt.exclude_outside ? w[t] / sum : w[t]);
  }
}

std::vector<double> float_list(const TensorData& t, const char* what) {
  if (!dtype_is_float(t.dtype())) fail("{} has element type {}; it must be a float type", what, dtype_name(t.dtype()));
  if (t.rank() != 1) fail("{} must be 1-D, got shape {}", what, shape_str(t.shape()));
  return t.as_double();
}

}  // namespace

std::vector<int> resize_axes(const Node& n, int rank) {
  std::vector<int> axes;
  const std::vector<int64_t> given = n.attrs.get_ints("axes", {});
  if (given.empty() || n.op != "Resize") {
    for (int d = 0; d < rank; ++d) axes.push_back(d);
    return axes;
  }
  std::vector<bool> seen(static_cast<size_t>(rank), false);
  for (int64_t a : given) {
    const int d = normalize_axis(a, rank, "axes entry");
    if (seen[d]) fail("axes name axis {} twice", d);
    seen[d] = true;
    axes.push_back(d);
  }
  return axes;
}

TensorData declared_sizes(const Node& n, const Shape& out) {
  const std::vector<int> axes = resize_axes(n, static_cast<int>(out.size()));
  std::vector<int64_t> sizes;
  for (int d : axes) sizes.push_back(out[d]);
  return TensorData::from<int64_t>({static_cast<int64_t>(sizes.size())}, sizes);
}

ResizePlan resize_plan(const Node& n, const Shape& in, const TensorData* roi_t, const TensorData* scales_t,
                       const TensorData* sizes_t) {
  const Options opt = options_of(n);
  const int rank = static_cast<int>(in.size());
  const std::vector<int> axes = resize_axes(n, rank);
  const size_t na = axes.size();
  if (scales_t && sizes_t) fail("scales and sizes are both given; give one");
  if (!scales_t && !sizes_t) fail("needs scales or sizes (both are absent or empty)");
  std::vector<double> scales(na, 1.0), lengths(na);
  Shape out = in;
  if (scales_t) {
    const std::vector<double> s = float_list(*scales_t, "scales");
    if (s.size() != na) fail("scales has {} entries but {} axes are resized", s.size(), na);
    for (size_t j = 0; j < na; ++j) {
      if (!(s[j] > 0)) fail("scales {} must be positive", s[j]);
      scales[j] = s[j];
      lengths[j] = static_cast<double>(in[axes[j]]) * s[j];
      if (lengths[j] > 1e9) fail("scale {} makes axis {} too long", s[j], axes[j]);
      out[axes[j]] = static_cast<int64_t>(std::floor(lengths[j]));
    }
  } else {
    if (sizes_t->dtype() != DType::Int64) fail("sizes has element type {}; supported: int64", dtype_name(sizes_t->dtype()));
    if (sizes_t->rank() != 1) fail("sizes must be 1-D, got shape {}", shape_str(sizes_t->shape()));
    const std::vector<int64_t> s = sizes_t->as_int64();
    if (s.size() != na) fail("sizes has {} entries but {} axes are resized", s.size(), na);
    for (size_t j = 0; j < na; ++j)
      if (s[j] < 0 || s[j] > 1000000000) fail("sizes entry {} must be in [0, 1e9]", s[j]);
    double common = opt.policy == Policy::NotLarger ? 1e300 : 0.0;
    for (size_t j = 0; j < na; ++j) {
      const int64_t i = in[axes[j]];
      scales[j] = i == 0 ? 1.0 : static_cast<double>(s[j]) / static_cast<double>(i);
      common = opt.policy == Policy::NotLarger ? std::min(common, scales[j]) : std::max(common, scales[j]);
    }
    for (size_t j = 0; j < na; ++j) {
      const int64_t i = in[axes[j]];
      if (opt.policy != Policy::Stretch) {
        scales[j] = common;
        out[axes[j]] = static_cast<int64_t>(std::floor(common * static_cast<double>(i) + 0.5));
      } else {
        out[axes[j]] = s[j];
      }
      lengths[j] = opt.policy == Policy::Stretch ? static_cast<double>(s[j]) : common * static_cast<double>(i);
    }
  }
  std::vector<double> roi;
  if (opt.coord == Coord::TfCropAndResize) {
    if (!roi_t) fail("coordinate_transformation_mode tf_crop_and_resize needs roi");
    roi = float_list(*roi_t, "roi");
    if (roi.size() != 2 * na) fail("roi has {} entries; it needs {} (start and end per resized axis)", roi.size(), 2 * na);
  }

  ResizePlan p;
  p.mode = opt.mode;
  p.taps = opt.mode == ResizeMode::Nearest ? 1 : (opt.mode == ResizeMode::Linear ? 2 : 4);
  p.extrapolation_value = opt.extrapolation;
  p.out_shape = out;
  p.axes.resize(static_cast<size_t>(rank));
  for (int d = 0; d < rank; ++d) {
    p.axes[d].in = in[d];
    p.axes[d].out = out[d];
  }
  for (size_t j = 0; j < na; ++j) {
    ResizeAxis& ax = p.axes[axes[j]];
    if (ax.in == 0 || ax.out == 0) {
      if (ax.out != 0) fail("axis {} of length 0 cannot be resized to {}", axes[j], ax.out);
      continue;
    }
    const size_t taps = static_cast<size_t>(p.taps);
    ax.index.resize(static_cast<size_t>(ax.out) * taps);
    ax.coeff.resize(p.mode == ResizeMode::Nearest ? 0 : ax.index.size());
    ax.outside.assign(static_cast<size_t>(ax.out), 0);
    bool identity = ax.in == ax.out;
    // roi holds every start, then every end: this axis' pair is (roi[j], roi[na + j]).
    const double span[2] = {roi.empty() ? 0.0 : roi[j], roi.empty() ? 0.0 : roi[na + j]};
    for (int64_t o = 0; o < ax.out; ++o) {
      const double x = coordinate(opt, static_cast<double>(o), ax.in, ax.out, scales[j], lengths[j], span);
      if (opt.coord == Coord::TfCropAndResize && (x < 0 || x > static_cast<double>(ax.in - 1))) {
        ax.outside[o] = 1;
        p.extrapolates = true;
        identity = false;
        continue;  // its taps stay index 0, weight 0: never read
      }
      taps_at(opt, x, ax.in, p.taps, &ax.index[o * taps], p.mode == ResizeMode::Nearest ? nullptr : &ax.coeff[o * taps]);
      // Nearest maps o to o when its index is o (tf_half_pixel_for_nn's o + 0.5 floors to o).
      identity = identity && (p.mode == ResizeMode::Nearest ? ax.index[o * taps] == o : x == static_cast<double>(o));
    }
    ax.resized = !identity;
  }
  return p;
}

namespace {

const TensorData* present(const TensorData* t) { return t && t->numel() > 0 ? t : nullptr; }

// Input slots of roi, scales and sizes (-1: the operator has none).
struct Slots {
  int roi, scales, sizes;
};
Slots slots(const Node& n) { return n.op == "Upsample" ? Slots{-1, 1, -1} : Slots{1, 2, 3}; }

bool uses_roi(const Node& n) {
  return n.op == "Resize" && n.attrs.get_string("coordinate_transformation_mode", "") == "tf_crop_and_resize";
}

// `sizes` is given and computed at run time.
bool runtime_sizes(const InferContext& ctx) {
  const int i = slots(ctx.node()).sizes;
  return i >= 0 && ctx.has_input(i) && numel(ctx.in_shape(i)) > 0 && !ctx.in_const(i);
}

void infer_resize(InferContext& ctx) {
  const Node& n = ctx.node();
  const Slots sl = slots(n);
  if (n.op == "Upsample") ctx.expect_inputs(2, 2);
  else ctx.expect_inputs(1, 4);
  // An empty scales/sizes/roi tensor is as good as an omitted one; the
  // others set the output shape (roi the coordinates), so they are constants.
  auto get = [&](int i, const char* what, bool shape) -> const TensorData* {
    if (i < 0 || !ctx.has_input(i) || numel(ctx.in_shape(i)) == 0) return nullptr;
    return present(shape ? &ctx.require_shape_const(i, what) : &ctx.require_const(i, what));
  };
  const TensorData* roi = uses_roi(n) ? get(sl.roi, "roi", false) : nullptr;
  if (runtime_sizes(ctx) && ctx.declared_output(0)) {
    // Sizes computed at run time give the declared output (the kernel checks
    // them); with the output known, so are the scales and the whole plan.
    const Shape& declared = *ctx.declared_output(0);
    if (declared.size() != ctx.in_shape(0).size())
      fail("the model declares the output {}, of another rank than the input {}", shape_str(declared),
           shape_str(ctx.in_shape(0)));
    if (ctx.attrs().get_string("keep_aspect_ratio_policy", "stretch") != "stretch")
      ctx.require_shape_const(sl.sizes, "sizes");  // the scales would depend on the values
    const TensorData sizes = declared_sizes(n, declared);
    if (numel(ctx.in_shape(sl.sizes)) != sizes.numel())
      fail("sizes has {} entries but {} axes are resized", numel(ctx.in_shape(sl.sizes)), sizes.numel());
    ctx.expect_dtype(sl.sizes, {DType::Int64});
    const ResizePlan p = resize_plan(n, ctx.in_shape(0), roi, get(sl.scales, "scales", true), &sizes);
    if (p.out_shape != declared)
      fail("the model declares the output {}, but axes that are not resized keep the input's {}", shape_str(declared),
           shape_str(ctx.in_shape(0)));
    if (p.mode != ResizeMode::Nearest && ctx.in_dtype(0) != DType::Float32)
      fail("linear and cubic interpolation support float32 input, got {} (nearest supports every type)",
           dtype_name(ctx.in_dtype(0)));
    return ctx.set_output(0, ctx.in_dtype(0), declared);
  }
  const ResizePlan p = resize_plan(n, ctx.in_shape(0), roi, get(sl.scales, "scales", true), get(sl.sizes, "sizes", true));
  if (p.mode != ResizeMode::Nearest && ctx.in_dtype(0) != DType::Float32)
    fail("linear and cubic interpolation support float32 input, got {} (nearest supports every type)",
         dtype_name(ctx.in_dtype(0)));
  ctx.set_output(0, ctx.in_dtype(0), p.out_shape);
}

void eval_resize(EvalContext& ctx) {
  const Node& n = ctx.node;
  const Slots sl = slots(n);
  auto get = [&](int i) { return i >= 0 && ctx.has_input(i) ? present(&ctx.in(i)) : nullptr; };
  const TensorData& x = ctx.in(0);
  const ResizePlan p = resize_plan(n, x.shape(), uses_roi(n) ? get(sl.roi) : nullptr, get(sl.scales), get(sl.sizes));
  TensorData& y = ctx.outputs[0];
  if (p.out_shape != y.shape())
    fail("the run-time sizes give the output shape {} but the model declares {}", shape_str(p.out_shape),
         shape_str(y.shape()));
  const int rank = x.rank();
  const std::vector<int64_t> stride = strides_of(x.shape());
  // The extrapolation value in the output's element type (Cast's rules).
  TensorData extrap(y.dtype(), {});
  cast_into(TensorData::scalar<float>(p.extrapolation_value), extrap);
  std::vector<int> resized;
  for (int d = 0; d < rank; ++d)
    if (p.axes[d].resized) resized.push_back(d);
  const size_t esize = dtype_size(x.dtype());
  std::vector<int64_t> o(static_cast<size_t>(rank), 0);
  const float* xf = p.mode == ResizeMode::Nearest ? nullptr : x.data<float>();
  // The weighted sum over the taps of resized axes level.., outermost first:
  // the C kernel's loop nest (c/kernels/resize.cpp).
  auto interp = [&](auto& self, size_t level, int64_t off) -> float {
    if (level == resized.size()) return xf[off];
    const ResizeAxis& ax = p.axes[resized[level]];
    const int64_t at = o[resized[level]] * p.taps;
    float s = 0.0f;
    for (int t = 0; t < p.taps; ++t)
      s += ax.coeff[at + t] * self(self, level + 1, off + ax.index[at + t] * stride[resized[level]]);
    return s;
  };
  for (int64_t i = 0, total = y.numel(); i < total; ++i) {
    bool outside = false;
    int64_t off = 0;
    for (int d = 0; d < rank; ++d) {
      const ResizeAxis& ax = p.axes[d];
      if (!ax.resized) off += o[d] * stride[d];
      else if (ax.outside[o[d]]) outside = true;
      else if (p.mode == ResizeMode::Nearest) off += ax.index[o[d]] * stride[d];
    }
    if (outside) std::memcpy(y.raw() + i * esize, extrap.raw(), esize);
    else if (p.mode == ResizeMode::Nearest) std::memcpy(y.raw() + i * esize, x.raw() + off * esize, esize);
    else y.data<float>()[i] = interp(interp, 0, off);
    for (int d = rank - 1; d >= 0; --d) {
      if (++o[d] < p.out_shape[d]) break;
      o[d] = 0;
    }
  }
}

}  // namespace

ResizePlan resize_plan(const Graph& g, const Node& n) {
  const Slots sl = slots(n);
  auto at = [&](int i) -> const TensorData* {
    if (i < 0 || !n.has_input(static_cast<size_t>(i))) return nullptr;
    const Value& v = g.value(n.inputs[i]);
    if (numel(v.shape) == 0) return nullptr;
    if (!v.is_constant()) fail("internal: {} input #{} is not a constant", n.op, i);
    return present(v.constant.get());
  };
  if (resize_sizes_at_run_time(g, n)) {  // the declared output's (checked by the shape rule)
    const TensorData sizes = declared_sizes(n, g.value(n.outputs[0]).shape);
    return resize_plan(n, g.value(n.inputs[0]).shape, uses_roi(n) ? at(sl.roi) : nullptr, nullptr, &sizes);
  }
  return resize_plan(n, g.value(n.inputs[0]).shape, uses_roi(n) ? at(sl.roi) : nullptr, at(sl.scales), at(sl.sizes));
}

bool resize_sizes_at_run_time(const Graph& g, const Node& n) {
  const int i = slots(n).sizes;
  return i >= 0 && n.has_input(static_cast<size_t>(i)) && numel(g.value(n.inputs[i]).shape) > 0 &&
         !g.value(n.inputs[i]).is_constant();
}

void infer_Resize(InferContext& ctx) { infer_resize(ctx); }
void eval_Resize(EvalContext& ctx) { eval_resize(ctx); }
void infer_Upsample(InferContext& ctx) { infer_resize(ctx); }
void eval_Upsample(EvalContext& ctx) { eval_resize(ctx); }

// Nearest copies input elements, exact on the integers; interpolation is not.
std::string resize_qdq_refusal(const Node& n) {
  if (n.attrs.get_string("mode", "nearest") != "nearest")
    return fmt::format("only nearest Resize folds (mode {} interpolates, and no integer interpolation kernel exists "
                       "on the CPU or the MLIP)",
                       n.attrs.get_string("mode", ""));
  if (n.attrs.get_string("coordinate_transformation_mode", "") == "tf_crop_and_resize")
    return "tf_crop_and_resize writes a float extrapolation value";
  return "";
}

}  // namespace mlipc::ops
