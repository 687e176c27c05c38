#include "ops/qlinear.h"

#include <algorithm>
#include <cmath>

#include <fmt/format.h>

#include "mlip/requant.h"
#include "support/error.h"

namespace mlipc::ops {

QParam read_qparam(const InferContext& ctx, int s, int z, DType t, std::string_view name) {
  const std::string sname = fmt::format("{}_scale", name), zname = fmt::format("{}_zero_point", name);
  ctx.expect_dtype(s, {DType::Float32});
  expect_one_value(ctx.in_shape(s), sname);
  const TensorData& st = ctx.require_const(s, sname);
  check_scale_values(st, sname);
  QParam p;
  p.dtype = t;
  p.scale = st.data<float>()[0];
  if (ctx.has_input(z)) {
    expect_same_type(ctx, z, zname, t, name);
    expect_one_value(ctx.in_shape(z), zname);
    p.zero_point = static_cast<int32_t>(ctx.require_const(z, zname).as_int64()[0]);
  }
  return p;
}

QParam range_qparam(float lo, float hi, DType t) {
  QParam p;
  p.dtype = t;
  lo = lo < 0.0f ? lo : 0.0f;
  hi = hi > 0.0f ? hi : 0.0f;
  p.scale = (hi - lo) / 255.0f;
  p.zero_point = 0;
  if (p.scale > 0.0f)
    p.zero_point = quantize_value(static_cast<float>(quant_min(t)) - lo / p.scale, 1.0f, 0, p.lo(), p.hi());
  return p;
}

TensorData bias_int32(const std::vector<double>& real, float x_scale, const std::vector<float>& w_scale,
                      std::string_view what, DType type) {
  const int64_t m = static_cast<int64_t>(real.size());
  const bool wide = type == DType::Int64;
  // int64: the 16x8 sum's headroom, 2^62 (mlip_requantize64's bound).
  const double lim = wide ? 4611686018427387904.0 : 2147483647.0;
  TensorData t(wide ? DType::Int64 : DType::Int32, {m});
  for (size_t c = 0; c < real.size(); ++c) {
    const float ws = w_scale[c % w_scale.size()];  // one scale, or one per channel (repeating per group)
    const float step = x_scale * ws;
    const double r = std::nearbyint(real[c] / static_cast<double>(step));
    if (!(r >= -lim - 1.0 && r <= lim))
      fail("{}: bias[{}] = {} is {:.4g} steps of x_scale * w_scale[{}] = {:.4g}, beyond {}: quantize its weights "
           "with a scale at least {:.4g} (mlipc's --quantize int8 does)",
           what, c, real[c], real[c] / static_cast<double>(step), c % w_scale.size(), static_cast<double>(step),
           wide ? "2^62" : "int32", std::fabs(real[c]) / (static_cast<double>(x_scale) * lim));
    if (wide)
      t.data<int64_t>()[c] = static_cast<int64_t>(r);
    else
      t.data<int32_t>()[c] = static_cast<int32_t>(r);
  }
  return t;
}

QParam eval_qparam(const EvalContext& ctx, int s, int z, DType t) {
  QParam p;
  p.dtype = t;
  p.scale = ctx.in(s).data<float>()[0];
  if (ctx.has_input(z)) p.zero_point = static_cast<int32_t>(ctx.in(z).as_int64()[0]);
  return p;
}

Requant requant_of(double m, std::string_view what) {
  Requant r;
  if (mlip_quantize_multiplier(m, &r.q, &r.shift) != 0)
    fail("the requantization multiplier of {} ({}) is out of range (it must be below 2^30)", what, m);
  return r;
}

AddRequant add_requant(const QParam& a, const QParam& b, const QParam& y) {
  const double twice = 2.0 * std::max<double>(a.scale, b.scale);
  AddRequant r;
  r.a = requant_of(a.scale / twice, "input A");
  r.b = requant_of(b.scale / twice, "input B");
  const int shift = a.dtype == DType::Int16 ? MLIP_QADD16_LEFT_SHIFT : MLIP_QADD_LEFT_SHIFT;  // 16x8: 2^15
  r.out = requant_of(twice / (static_cast<double>(1 << shift) * y.scale), "the output");
  return r;
}

std::vector<int32_t> lookup_table(const QParam& x, const QParam& y, const std::function<double(double)>& f) {
  std::vector<int32_t> t;
  for (int32_t q = x.lo(); q <= x.hi(); ++q) {
    const float real = static_cast<float>(q - x.zero_point) * x.scale;
    t.push_back(quantize_value(static_cast<float>(f(real)), y.scale, y.zero_point, y.lo(), y.hi()));
  }
  return t;
}

std::vector<int32_t> lookup_table16(const QParam& x, const QParam& y, const std::function<double(double)>& f) {
  // The function at input q, in output steps (unrounded, unclamped).
  auto at = [&](int32_t q) {
    return f(static_cast<double>(q - x.zero_point) * static_cast<double>(x.scale)) / static_cast<double>(y.scale) +
           y.zero_point;
  };
  auto clamp = [&](double v) { return static_cast<int32_t>(std::min<double>(std::max<double>(v, y.lo()), y.hi())); };
  std::vector<int32_t> t;
  for (int32_t k = 0; k < 512; ++k) {
    const int32_t q0 = -32768 + 128 * k;
    const double sample = std::round(at(q0));
    // The segment's midpoint as the lookup interpolates it, against the
    // function there: half that error moves the knot (TFLite's LUTPopulate).
    const double interp = std::round((at(q0 + 128) + sample) / 2.0);
    const double bias = std::round((interp - std::round(at(q0 + 64))) / 2.0);
    t.push_back(clamp(sample - bias));
  }
  t.push_back(clamp(std::round(at(32768))));
  return t;
}

TensorData lookup_tensor(const std::vector<int32_t>& table, DType t) {
  TensorData d(t, {static_cast<int64_t>(table.size())});
  for (size_t i = 0; i < table.size(); ++i) {
    if (t == DType::Int16)
      d.data<int16_t>()[i] = static_cast<int16_t>(table[i]);
    else if (t == DType::Int8)
      d.data<int8_t>()[i] = static_cast<int8_t>(table[i]);
    else
      d.data<uint8_t>()[i] = static_cast<uint8_t>(table[i]);
  }
  return d;
}

std::function<double(double)> activation_function(std::string_view op, const Attrs& attrs, double lo, double hi) {
  if (op == "Relu") return [](double v) { return v > 0 ? v : 0.0; };
  if (op == "Clip") return [lo, hi](double v) { return std::min(std::max(v, lo), hi); };
  if (op == "Sigmoid") return [](double v) { return 1.0 / (1.0 + std::exp(-v)); };
  if (op == "Tanh") return [](double v) { return std::tanh(v); };
  if (op == "LeakyRelu") {
    const double alpha = attrs.get_float("alpha", 0.01f);
    return [alpha](double v) { return v >= 0 ? v : v * alpha; };
  }
  if (op == "HardSigmoid") {
    const double alpha = attrs.get_float("alpha", 0.2f), beta = attrs.get_float("beta", 0.5f);
    return [alpha, beta](double v) { return std::min(1.0, std::max(0.0, alpha * v + beta)); };
  }
  if (op == "HardSwish") return [](double v) { return v * std::min(1.0, std::max(0.0, v / 6.0 + 0.5)); };
  return {};
}

}  // namespace mlipc::ops
