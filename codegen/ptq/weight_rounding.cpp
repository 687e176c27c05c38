#include "ptq/weight_rounding.h"

#include <algorithm>
#include <cmath>

#include <fmt/format.h>

#include "ops/op.h"
#include "ops/quant.h"
#include "ops/spatial.h"
#include "ptq/weight_scale.h"
#include "support/error.h"

namespace mlipc::ptq {

namespace {

// Where a layer's Hessian comes from: its input's rows (a dense layer) or
// its im2col patches (a Conv), K values each.
struct Site {
  std::string node;
  ValueId x = kNoValue;
  bool conv = false;
  bool trans_a = false;  // Gemm's transA: A is [K, M], a row is a column
  int64_t k = 0, groups = 1;
  ops::Geometry3 g3{};  // a Conv's window
  int64_t per_group = 1;  // a Conv's input channels per group
};

// Adds the outer product of x (k values) to the upper triangle of h.
void add_row(double* h, const double* x, int64_t k) {
  for (int64_t i = 0; i < k; ++i) {
    const double xi = x[i];
    if (xi == 0.0) continue;  // a ReLU's zeros: most of many rows
    double* hi = h + i * k;
    for (int64_t j = i; j < k; ++j) hi[j] += xi * x[j];
  }
}

void add_dense(const Site& s, const TensorData& x, LayerHessian& h, std::vector<double>& row) {
  const float* p = x.data<float>();
  const int64_t rows = x.numel() / s.k;
  for (int64_t r = 0; r < rows; ++r) {
    for (int64_t t = 0; t < s.k; ++t) row[static_cast<size_t>(t)] = s.trans_a ? p[t * rows + r] : p[r * s.k + t];
    add_row(h.group(0), row.data(), s.k);
  }
}

// Every output position's patch, per group: value t = (ci, kd, kh, kw) in
// the weights' order, 0 in the padding.
void add_conv(const Site& s, const TensorData& x, LayerHessian& h, std::vector<double>& row) {
  const ops::Geometry3& g = s.g3;
  const Shape& xs = x.shape();
  const int64_t n = xs[0], c = xs[1];
  const int64_t plane = g.in[0] * g.in[1] * g.in[2];
  const int64_t taps = g.kernel[0] * g.kernel[1] * g.kernel[2];
  const float* p = x.data<float>();
  for (int64_t b = 0; b < n; ++b)
    for (int64_t gi = 0; gi < s.groups; ++gi)
      for (int64_t od = 0; od < g.out[0]; ++od)
        for (int64_t oh = 0; oh < g.out[1]; ++oh)
          for (int64_t ow = 0; ow < g.out[2]; ++ow) {
            for (int64_t ci = 0; ci < s.per_group; ++ci) {
              const float* in = p + (b * c + gi * s.per_group + ci) * plane;
              for (int64_t kd = 0; kd < g.kernel[0]; ++kd)
                for (int64_t kh = 0; kh < g.kernel[1]; ++kh)
                  for (int64_t kw = 0; kw < g.kernel[2]; ++kw) {
                    const int64_t id = od * g.stride[0] - g.pad_begin[0] + kd * g.dilation[0];
                    const int64_t ih = oh * g.stride[1] - g.pad_begin[1] + kh * g.dilation[1];
                    const int64_t iw = ow * g.stride[2] - g.pad_begin[2] + kw * g.dilation[2];
                    const bool inside =
                        id >= 0 && id < g.in[0] && ih >= 0 && ih < g.in[1] && iw >= 0 && iw < g.in[2];
                    row[static_cast<size_t>(ci * taps + (kd * g.kernel[1] + kh) * g.kernel[2] + kw)] =
                        inside ? in[(id * g.in[1] + ih) * g.in[2] + iw] : 0.0;
                  }
            }
            add_row(h.group(gi), row.data(), s.k);
          }
}

// The site of node n of g (gptq_applies), its K and groups.
Site site_of(const Graph& g, const Node& n) {
  Site s;
  s.node = n.name;
  s.x = n.inputs[0];
  const Shape& xs = g.value(s.x).shape;
  const Shape& ws = g.value(weight_of(n)).shape;
  if (n.op == "Conv") {
    s.conv = true;
    s.groups = n.attrs.get_int("group", 1);
    s.per_group = ws[1];
    const ops::Geometry geo = ops::resolve_geometry(n.attrs, ops::spatial_of(xs), ops::spatial_of(ws), {});
    s.g3 = ops::to_3d(geo);
    s.k = ws[1];
    for (size_t d = 2; d < ws.size(); ++d) s.k *= ws[d];
  } else if (n.op == "Gemm") {
    s.trans_a = n.attrs.get_int("transA", 0) != 0;
    s.k = s.trans_a ? xs[0] : xs[1];
  } else {
    s.k = ws[0];  // MatMul's B [K, N]
  }
  return s;
}

}  // namespace

bool gptq_applies(const Graph& g, const Node& n) {
  if (n.op != "Conv" && n.op != "Gemm" && n.op != "MatMul") return false;
  const ValueId w = weight_of(n);
  if (w == kNoValue || !g.value(w).is_constant() || n.inputs.empty() || !computed(g, n.inputs[0])) return false;
  const Value& x = g.value(n.inputs[0]);
  if (!x.shape_known || x.dtype != DType::Float32) return false;
  const Shape& ws = g.value(w).shape;
  if (n.op == "Conv") return ws.size() >= 3 && ws.size() == x.shape.size();
  if (ws.size() != 2) return false;
  if (n.op == "MatMul") return !x.shape.empty() && x.shape.back() == ws[0];
  return x.shape.size() == 2;
}

Hessians collect_hessians(const Graph& g, const std::vector<Layer>& layers, const Samples& samples) {
  Hessians r;
  std::vector<Site> sites;
  std::vector<LayerHessian*> hs;
  int64_t total = 0;
  for (const Layer& l : layers) {
    if (l.kind != Kind::Compute) continue;
    const Node& n = g.nodes[static_cast<size_t>(l.node)];
    if (!gptq_applies(g, n)) continue;
    Site s = site_of(g, n);
    if (s.k <= 0 || s.groups <= 0) continue;
    // In double: groups x K x K may be past int64 for an absurd layer.
    const double doubles = static_cast<double>(s.groups) * static_cast<double>(s.k) * static_cast<double>(s.k);
    if (doubles > static_cast<double>(kGptqMaxLayer)) {
      r.nearest[n.name] = fmt::format("its Hessian would be {} x {} x {} doubles, above the {} (32 MiB) of one layer",
                                      s.groups, s.k, s.k, kGptqMaxLayer);
      continue;
    }
    if (total + static_cast<int64_t>(doubles) > kGptqMaxTotal) {
      r.nearest[n.name] = fmt::format("the Hessians of the layers before it fill the {} doubles (256 MiB) of all layers",
                                      kGptqMaxTotal);
      continue;
    }
    const int64_t size = s.groups * s.k * s.k;
    total += size;
    LayerHessian& h = r.layers[n.name];
    h.groups = s.groups;
    h.k = s.k;
    h.h.assign(static_cast<size_t>(size), 0.0);
    sites.push_back(std::move(s));
  }
  if (sites.empty()) return r;
  for (const Site& s : sites) hs.push_back(&r.layers.at(s.node));
  int64_t widest = 0;
  for (const Site& s : sites) widest = std::max(widest, s.k);
  std::vector<double> row(static_cast<size_t>(widest));
  samples.progress("weight rounding", 0);
  for (size_t i = 0; i < samples.size(); ++i) {
    const std::vector<TensorData> env = samples.run_fp32(g, i);
    for (size_t k = 0; k < sites.size(); ++k) {
      const TensorData& x = env[static_cast<size_t>(sites[k].x)];
      if (sites[k].conv)
        add_conv(sites[k], x, *hs[k], row);
      else
        add_dense(sites[k], x, *hs[k], row);
    }
    samples.progress("weight rounding", i + 1);
  }
  for (LayerHessian* h : hs)  // the lower triangles from the upper ones
    for (int64_t gi = 0; gi < h->groups; ++gi) {
      double* a = h->group(gi);
      for (int64_t i = 0; i < h->k; ++i)
        for (int64_t j = 0; j < i; ++j) a[i * h->k + j] = a[j * h->k + i];
    }
  return r;
}

std::vector<double> inverse_cholesky(const double* h, int64_t k, double damp) {
  const size_t kk = static_cast<size_t>(k);
  std::vector<double> a(h, h + k * k);
  auto at = [kk](std::vector<double>& m, int64_t i, int64_t j) -> double& {
    return m[static_cast<size_t>(i) * kk + static_cast<size_t>(j)];
  };
  // A column never seen (always 0) is independent of the others: its
  // weight keeps its nearest rounding and spreads nothing.
  double mean = 0.0;
  for (int64_t i = 0; i < k; ++i) {
    if (at(a, i, i) == 0.0) {
      for (int64_t j = 0; j < k; ++j) at(a, i, j) = at(a, j, i) = 0.0;
      at(a, i, i) = 1.0;
    }
    mean += at(a, i, i);
  }
  mean /= static_cast<double>(std::max<int64_t>(1, k));
  for (int64_t i = 0; i < k; ++i) at(a, i, i) += damp * mean;
  // Cholesky, lower: a = L L^T, in place (the lower triangle).
  auto cholesky = [&](std::vector<double>& m) {
    for (int64_t j = 0; j < k; ++j) {
      double d = at(m, j, j);
      for (int64_t p = 0; p < j; ++p) d -= at(m, j, p) * at(m, j, p);
      if (!(d > 0.0) || !std::isfinite(d)) return false;
      const double ljj = std::sqrt(d);
      at(m, j, j) = ljj;
      for (int64_t i = j + 1; i < k; ++i) {
        double v = at(m, i, j);
        for (int64_t p = 0; p < j; ++p) v -= at(m, i, p) * at(m, j, p);
        at(m, i, j) = v / ljj;
      }
    }
    return true;
  };
  if (!cholesky(a)) return {};
  // M = L^-1 (lower), then H^-1 = M^T M. Column j of M is formed in row j
  // of mt (M transposed): the sums read both operands in memory order (the
  // same sums in the same order as reading M's column, a third of a GPTQ
  // build's time at the digits CNN's sizes when strided).
  std::vector<double> mt(kk * kk, 0.0);
  for (int64_t j = 0; j < k; ++j) {
    double* col = &at(mt, j, 0);
    col[j] = 1.0 / at(a, j, j);
    for (int64_t i = j + 1; i < k; ++i) {
      const double* row = &at(a, i, 0);
      double v = 0.0;
      for (int64_t p = j; p < i; ++p) v += row[p] * col[p];
      col[i] = -v / at(a, i, i);
    }
  }
  std::vector<double> m(kk * kk, 0.0);
  for (int64_t i = 0; i < k; ++i)
    for (int64_t j = 0; j <= i; ++j) at(m, i, j) = at(mt, j, i);
  std::vector<double> inv(kk * kk, 0.0);
  for (int64_t p = 0; p < k; ++p)
    for (int64_t i = 0; i <= p; ++i) {
      const double mpi = at(m, p, i);
      if (mpi == 0.0) continue;
      for (int64_t j = i; j <= p; ++j) at(inv, i, j) += mpi * at(m, p, j);
    }
  for (int64_t i = 0; i < k; ++i)
    for (int64_t j = 0; j < i; ++j) at(inv, i, j) = at(inv, j, i);
  if (!cholesky(inv)) return {};
  // U = L2^T: the upper factor, H^-1 = U^T U.
  std::vector<double> u(kk * kk, 0.0);
  for (int64_t i = 0; i < k; ++i)
    for (int64_t j = i; j < k; ++j) at(u, i, j) = at(inv, j, i);
  return u;
}

void factor_hessians(Hessians& hs) {
  for (auto& [name, h] : hs.layers) {
    if (h.factored) continue;
    const size_t kk = static_cast<size_t>(h.k * h.k);
    for (int64_t gi = 0; gi < h.groups; ++gi) {
      std::vector<double> u = inverse_cholesky(h.group(gi), h.k);
      if (u.empty()) u.assign(kk, 0.0);
      std::copy(u.begin(), u.end(), h.group(gi));
    }
    h.factored = true;
  }
}

std::vector<int32_t> gptq_round(std::vector<double> w, const std::vector<double>& u, const std::vector<float>& step,
                                int qmax) {
  const size_t k = w.size();
  std::vector<int32_t> q(k);
  for (size_t i = 0; i < k; ++i) {
    q[i] = ops::quantize_value(static_cast<float>(w[i]), step[i], 0, -qmax, qmax);
    // The error in units of the column's own uncertainty, spread over the
    // columns after it (GPTQ: W[:, j] -= err * U[i][j] / U[i][i]).
    const double err = (w[i] - static_cast<double>(q[i]) * static_cast<double>(step[i])) / u[i * k + i];
    const double* ui = u.data() + i * k;
    for (size_t j = i + 1; j < k; ++j) w[j] -= err * ui[j];
  }
  return q;
}

TensorData quantize_weight_gptq(const TensorData& w, int axis, const std::vector<float>& scale, int qmax,
                                const LayerHessian& h, int64_t block) {
  const TensorData f = w.cast(DType::Float32);
  const ChannelLayout l(f.shape(), axis);
  const int64_t k = l.k();
  if (h.k != k || h.groups <= 0 || l.count % h.groups != 0)
    fail("internal: weight rounding: a Hessian of {} x {} for weights {} on axis {}", h.groups, h.k,
         shape_str(f.shape()), axis);
  if (block > 0) qmax = kInt4Max;  // a block's values q in [-7, 7], times 2^e
  const float* x = f.data<float>();
  TensorData q(DType::Int8, f.shape());
  int8_t* out = q.data<int8_t>();
  const int64_t per_group = l.count / h.groups;
  std::vector<double> u;
  int64_t factored = -1;  // the group u is of
  std::vector<double> row(static_cast<size_t>(k));
  std::vector<float> step(static_cast<size_t>(k));
  std::vector<int> shift(static_cast<size_t>(k), 0);
  for (int64_t c = 0; c < l.count; ++c) {
    const float s = scale[static_cast<size_t>(c)];
    bool finite = true;
    for (int64_t t = 0; t < k; ++t) {
      row[static_cast<size_t>(t)] = x[l.of(c, t)];
      finite = finite && std::isfinite(x[l.of(c, t)]);
      step[static_cast<size_t>(t)] = s;
    }
    if (block > 0)  // the block exponents quantize_weight_blocks chooses, from the float weights
      for (int64_t b0 = 0; b0 < k; b0 += block) {
        const int64_t b1 = std::min(k, b0 + block);
        float amax = 0.0f;
        for (int64_t t = b0; t < b1; ++t)
          if (std::isfinite(x[l.of(c, t)])) amax = std::max(amax, std::fabs(x[l.of(c, t)]));
        const int e = block_exponent(amax, s);
        for (int64_t t = b0; t < b1; ++t) {
          step[static_cast<size_t>(t)] = std::ldexp(s, e);
          shift[static_cast<size_t>(t)] = e;
        }
      }
    const int64_t gi = c / per_group;
    if (gi != factored) {
      if (h.factored) {
        u.assign(h.group(gi), h.group(gi) + k * k);
        if (u[0] == 0.0) u.clear();  // no factor: round to nearest
      } else {
        u = inverse_cholesky(h.group(gi), k);
      }
      factored = gi;
    }
    std::vector<int32_t> v;
    if (finite && !u.empty()) {
      v = gptq_round(row, u, step, qmax);
    } else {  // round to nearest: what quantize_weight gives
      v.resize(static_cast<size_t>(k));
      for (int64_t t = 0; t < k; ++t)
        v[static_cast<size_t>(t)] =
            ops::quantize_value(x[l.of(c, t)], step[static_cast<size_t>(t)], 0, -qmax, qmax);
    }
    for (int64_t t = 0; t < k; ++t)
      out[l.of(c, t)] = static_cast<int8_t>(v[static_cast<size_t>(t)] * (1 << shift[static_cast<size_t>(t)]));
  }
  return q;
}

}  // namespace mlipc::ptq
