#include "ptq/ranges.h"

#include <cmath>

namespace mlipc::ptq {

ops::QParam usable(ops::QParam p) {
  if (!(p.scale > 0.0f) || !std::isfinite(p.scale)) {
    p.scale = 1.0f;
    p.zero_point = 0;
  }
  return p;
}

std::map<std::string, ops::QParam> calibrate_ranges(const Graph& g, const Samples& samples) {
  const QuantizeOptions& o = samples.options;
  std::vector<calib::TensorStats> stats(g.num_values());
  auto each_float = [&](const std::vector<TensorData>& env, auto f) {
    for (size_t v = 0; v < env.size(); ++v)
      if (env[v].dtype() == DType::Float32) f(stats[v], env[v]);
  };
  samples.progress("ranges", 0);
  for (size_t s = 0; s < samples.size(); ++s) {
    each_float(samples.run_fp32(g, s),
               [](calib::TensorStats& st, const TensorData& t) { st.add_range(t.data<float>(), t.numel()); });
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
    ranges[g.value(static_cast<ValueId>(v)).name] =
        usable(ops::range_qparam(static_cast<float>(lo), static_cast<float>(hi), kActType));
  }
  return ranges;
}

}  // namespace mlipc::ptq
