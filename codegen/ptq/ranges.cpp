#include "ptq/ranges.h"

#include <algorithm>
#include <cmath>
#include <limits>

#include "support/error.h"
#include "support/text.h"

namespace mlipc::ptq {

ops::QParam usable(ops::QParam p) {
  if (!(p.scale > 0.0f) || !std::isfinite(p.scale)) {
    p.scale = 1.0f;
    p.zero_point = 0;
  }
  return p;
}

namespace {

std::string where(const QuantizeOptions& o) { return o.data_name.empty() ? "" : o.data_name + ": "; }

// Every float tensor finite on every sample (the data itself is checked as
// it is read): a NaN or an infinity here is the fp32 model overflowing on
// the data (values near float32's limit), and a range of it would be nonsense.
void check_finite(const Graph& g, ValueId v, const TensorData& t, size_t sample, const QuantizeOptions& o) {
  const float* x = t.data<float>();
  const int64_t n = t.numel();
  for (int64_t e = 0; e < n; ++e)
    if (!std::isfinite(x[e]))
      fail("{}calibration sample {}: tensor '{}' holds {} (element {}): the fp32 model does not stay finite on "
           "this data (calibration needs finite values in every tensor)",
           where(o), sample, printable(g.value(v).name), std::isnan(x[e]) ? "NaN" : x[e] > 0 ? "+inf" : "-inf", e);
}

}  // namespace

ops::QParam symmetric_int16(float lo, float hi) {
  ops::QParam p;
  p.dtype = DType::Int16;
  p.zero_point = 0;
  p.scale = std::max(std::fabs(lo), std::fabs(hi)) / 32767.0f;
  return p;
}

std::map<std::string, ops::QParam> calibrate_ranges(const Graph& g, const Samples& samples,
                                                    std::map<std::string, ops::QParam>* int16) {
  const QuantizeOptions& o = samples.options;
  std::vector<calib::TensorStats> stats(g.num_values());
  auto each_float = [&](const std::vector<TensorData>& env, auto f) {
    for (size_t v = 0; v < env.size(); ++v)
      if (env[v].dtype() == DType::Float32) f(stats[v], env[v]);
  };
  samples.progress("ranges", 0);
  for (size_t s = 0; s < samples.size(); ++s) {
    const std::vector<TensorData> env = samples.run_fp32(g, s);
    for (size_t v = 0; v < env.size(); ++v)
      if (env[v].dtype() == DType::Float32) check_finite(g, static_cast<ValueId>(v), env[v], s, o);
    each_float(env, [](calib::TensorStats& st, const TensorData& t) { st.add_range(t.data<float>(), t.numel()); });
    samples.progress("ranges", s + 1);
  }
  if (o.method != calib::Method::MinMax) {
    for (calib::TensorStats& st : stats)
      if (st.seen()) st.start_histogram(o.method);
    samples.progress("histograms", 0);
    for (size_t s = 0; s < samples.size(); ++s) {
      each_float(samples.run_fp32(g, s),
                 [](calib::TensorStats& st, const TensorData& t) { st.add_histogram(t.data<float>(), t.numel()); });
      samples.progress("histograms", s + 1);
    }
  }
  std::map<std::string, ops::QParam> ranges;
  for (size_t v = 0; v < stats.size(); ++v) {
    if (!stats[v].seen()) continue;
    const auto [lo, hi] = stats[v].range(o.method, o.percentile);
    // int8's scale is (hi - lo) / 255 in float32 (ops::range_qparam).
    if (std::max(hi, 0.0) - std::min(lo, 0.0) > std::numeric_limits<float>::max())
      fail("{}tensor '{}' ranges over [{:.3g}, {:.3g}] on the calibration data: wider than float32 holds ({:.3g}), "
           "so int8 has no scale for it",
           where(o), printable(g.value(static_cast<ValueId>(v)).name), lo, hi, std::numeric_limits<float>::max());
    ranges[g.value(static_cast<ValueId>(v)).name] =
        usable(ops::range_qparam(static_cast<float>(lo), static_cast<float>(hi), kActType));
    if (int16)
      (*int16)[g.value(static_cast<ValueId>(v)).name] =
          usable(symmetric_int16(static_cast<float>(lo), static_cast<float>(hi)));
  }
  return ranges;
}

}  // namespace mlipc::ptq
