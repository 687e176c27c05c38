#include "testlib/fp16_bound.h"

#include <algorithm>
#include <cmath>
#include <set>
#include <vector>

#include "mlip/report.h"
#include "testlib/tensors.h"

namespace mlipc::test {
namespace {

// Every fp16 rounding (the region's input conversion, each layer's output,
// each convolution's and dense layer's weights) has a relative error of at
// most u = 2^-11, whose root mean square over the significands is
// (u / sqrt(3)) * sqrt(E[1/m^2]) = 0.4246 u. Counting each such error as
// reaching the output at most at its own relative size (no gain above 1
// against max|ref|) and the errors as independent, the output error has a
// standard deviation of at most 0.4246 u sqrt(R) of max|ref| for R
// roundings; the bound is 4 of those. fp32 accumulation (2^-24 per sum)
// adds under 1% of it and is left out.
constexpr double kFp16UnitRoundoff = 1.0 / 2048.0;  // 2^-11
constexpr double kRoundingRms = 0.4246;             // of u, for significands spread as in real tensors
constexpr double kSigmas = 4.0;

}  // namespace

// R counts, over every MLIP region: each region input once (its fp32 ->
// fp16 rounding, by a convert_in layer or, at a row-major or one-position
// border, by the first layer reading it in place: a layer count alone
// missed it there, and a lone Transpose had R = 0), conv2d, conv_transpose, fc and matmul
// round weights and output (2), rnn its W and R weights, its input
// projections and its state (4; each step's rounding counted once: the
// gates damp an earlier step's error), the layers that only move bits
// (channel concat, slice, shuffle, permute, concat_rows, rnn_state, the
// fp16 -> fp32 output conversion) none, every other layer its output once.
int fp16_roundings(const driver::CompileResult& r) {
  // convert_in is counted with the region's inputs.
  static const std::set<std::string> exact = {"convert_in", "convert_out",     "concat",      "channel_slice",
                                              "channel_shuffle", "permute", "concat_rows", "rnn_state"};
  int n = 0;
  for (const auto& region : r.mlip.regions) {
    n += static_cast<int>(region->report.inputs.size());
    for (const mlip::LayerReport& l : region->report.layers) {
      if (l.kind == "conv2d" || l.kind == "conv_transpose" || l.kind == "fc" || l.kind == "matmul") n += 2;
      else if (l.kind == "rnn") n += 4;
      else if (!exact.count(l.kind)) n += 1;
    }
  }
  return n;
}

double fp16_bound(int roundings) { return kSigmas * kRoundingRms * kFp16UnitRoundoff * std::sqrt(roundings); }

double max_abs(const TensorData& t) {
  double m = 0;
  for (double v : t.as_double())
    if (std::isfinite(v)) m = std::max(m, std::fabs(v));
  return m;
}

double worst_error(const TensorData& got, const TensorData& want) {
  const std::vector<double> g = got.as_double(), w = want.as_double();
  const double scale = max_abs(want);
  double worst = 0;
  for (size_t i = 0; i < g.size() && i < w.size(); ++i) {
    if (std::isnan(g[i]) || std::isnan(w[i])) {
      if (std::isnan(g[i]) != std::isnan(w[i])) return std::nan("");
      continue;
    }
    if (g[i] != w[i]) worst = std::max(worst, std::fabs(g[i] - w[i]) / (scale > 0 ? scale : 1.0));
  }
  return worst;
}

std::string within_fp16_bound(const TensorData& got, const TensorData& want, const driver::CompileResult& compiled) {
  const double bound = fp16_bound(fp16_roundings(compiled));
  return compare(got, want, 0, bound * max_abs(want));
}

}  // namespace mlipc::test
