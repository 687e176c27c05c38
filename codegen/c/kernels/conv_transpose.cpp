// ConvTranspose: one template for 1-D, 2-D and 3-D (as 3-D with size-1
// leading axes), geometry baked in; x and the optional bias are pointers.
// Constant finite weights are packed here: with 8 or more output channels
// per group per stride phase into 16-channel blocks for
// conv_transpose_phases.c (each phase split into rectangles whose taps all
// fall inside the input, their tables baked in), with fewer for
// conv_transpose_packed.c (positions in lanes, a zero-bordered copy of the
// input in the scratch); other weights go through conv_transpose.c, the
// portable reference, as a pointer. All sum in the reference's order, by
// fused multiply-adds (mlip/kfma.h, kvec.h).
// mlipc.QLinearConvTranspose (ops/conv_transpose.h): the same geometry,
// int32 sums of products of zero-point-shifted integers, QLinearConv's
// bias and per-channel requantization constants baked in.
#include <algorithm>
#include <cmath>
#include <memory>
#include <vector>

#include <fmt/format.h>

#include "c/kernels/kernels.h"
#include "ops/conv_transpose.h"

namespace mlipc::c::kernels {

namespace {

// x and w are node inputs 0 and iw.
ops::Geometry3 set_geometry(const Graph& g, const Node& n, KernelSpec& spec, size_t iw) {
  const Shape& x = g.value(n.inputs[0]).shape;
  const Shape& w = g.value(n.inputs[iw]).shape;
  const ops::Geometry3 geo =
      ops::transpose_to_3d(ops::resolve_transpose_geometry(n.attrs, ops::spatial_of(x), ops::spatial_of(w)));
  const int64_t group = n.attrs.get_int("group", 1);
  spec.set("N", x[0]);
  spec.set("C", x[1]);
  spec.set("M", w[1] * group);
  spec.set("ICG", x[1] / group);
  spec.set("OCG", w[1]);
  set_window(spec, geo);
  spec.set("KSIZE", geo.kernel[0] * geo.kernel[1] * geo.kernel[2]);
  return geo;
}

// conv_transpose_packed.c: w [C, OCG, K...] as [group][ICG][K...][OCG],
// the weights of a tap side by side.
std::shared_ptr<const TensorData> pack_weights(const TensorData& w, int64_t group) {
  const int64_t c = w.shape()[0], ocg = w.shape()[1], icg = c / group, k = numel(w.shape()) / (c * ocg);
  auto t = std::make_shared<TensorData>(DType::Float32, Shape{group * icg * k * ocg});
  const float* src = w.data<float>();
  float* dst = t->data<float>();
  for (int64_t g = 0; g < group; ++g)
    for (int64_t ic = 0; ic < icg; ++ic)
      for (int64_t j = 0; j < ocg; ++j)
        for (int64_t q = 0; q < k; ++q)
          dst[((g * icg + ic) * k + q) * ocg + j] = src[((g * icg + ic) * ocg + j) * k + q];
  return t;
}

// One stride phase p of one axis: its nq outputs q (o = p + S * q), its
// taps k (ascending) with the input offset c (output q reads input q + c),
// and the runs of q [q0, q1) over which the same taps fall inside the
// input (indices into k).
struct AxisPhase {
  int64_t p = 0, nq = 0;
  std::vector<int64_t> k, c;
  struct Run {
    int64_t q0, q1;
    std::vector<size_t> taps;
  };
  std::vector<Run> runs;
};

std::vector<AxisPhase> axis_phases(const ops::Geometry3& geo, int a) {
  const int64_t s = geo.stride[a], o = geo.out[a], in = geo.in[a];
  std::vector<AxisPhase> out;
  for (int64_t p = 0; p < std::min(s, o); ++p) {
    AxisPhase ph;
    ph.p = p;
    ph.nq = (o - p + s - 1) / s;
    std::vector<int64_t> cuts = {0, ph.nq};
    for (int64_t k = 0; k < geo.kernel[a]; ++k) {
      const int64_t v = p + geo.pad_begin[a] - k * geo.dilation[a];
      if (v % s != 0) continue;
      ph.k.push_back(k);
      ph.c.push_back(v / s);
      for (int64_t q : {-v / s, in - v / s}) cuts.push_back(std::clamp<int64_t>(q, 0, ph.nq));
    }
    std::sort(cuts.begin(), cuts.end());
    cuts.erase(std::unique(cuts.begin(), cuts.end()), cuts.end());
    for (size_t i = 0; i + 1 < cuts.size(); ++i) {
      AxisPhase::Run r{cuts[i], cuts[i + 1], {}};
      for (size_t t = 0; t < ph.k.size(); ++t)
        if (r.q0 + ph.c[t] >= 0 && r.q0 + ph.c[t] < in) r.taps.push_back(t);
      ph.runs.push_back(std::move(r));
    }
    out.push_back(std::move(ph));
  }
  return out;
}

// conv_transpose_phases.c: the weights per group and phase as [block of 16
// output channels][ic][tap of the phase][16] or [block][tap][ic][16] (below),
// the rectangle and tap tables, and the band buffer's size.
void prepare_phases(const ops::Geometry3& geo, const TensorData& w, int64_t group, KernelSpec& spec) {
  const int64_t c = w.shape()[0], ocg = w.shape()[1], icg = c / group, nblk = (ocg + 15) / 16;
  const int64_t ksize = geo.kernel[0] * geo.kernel[1] * geo.kernel[2];
  std::vector<AxisPhase> ax[ops::kMaxSpatial];
  for (int a = 0; a < ops::kMaxSpatial; ++a) ax[a] = axis_phases(geo, a);
  // Each phase's taps in (kd, kh, kw) order: weight offsets within a group.
  struct Phase {
    const AxisPhase *d, *h, *w;
    int64_t woff, ntp;
  };
  std::vector<Phase> phases;
  int64_t gw = 0;
  for (const auto& d : ax[0])
    for (const auto& h : ax[1])
      for (const auto& wp : ax[2]) {
        const int64_t ntp = static_cast<int64_t>(d.k.size() * h.k.size() * wp.k.size());
        phases.push_back({&d, &h, &wp, gw, ntp});
        gw += nblk * icg * ntp * 16;
      }
  // The weights of a block input channel by input channel, each its taps
  // [ic][tap][16] (a rectangle with every tap of its phase reads them front
  // to back), where such rectangles hold at least 3/4 of the positions;
  // else tap by tap [tap][ic][16] (a rectangle with some of the taps reads
  // runs of whole taps: a 1x1 input's rectangles have one tap each).
  int64_t full = 0, all = 0;
  for (const Phase& ph : phases)
    for (const auto& rd : ph.d->runs)
      for (const auto& rh : ph.h->runs)
        for (const auto& rw : ph.w->runs) {
          const int64_t np = (rd.q1 - rd.q0) * (rh.q1 - rh.q0) * (rw.q1 - rw.q0);
          all += np;
          if (static_cast<int64_t>(rd.taps.size() * rh.taps.size() * rw.taps.size()) == ph.ntp) full += np;
        }
  const bool ic_major = 4 * full >= 3 * all;
  auto t = std::make_shared<TensorData>(DType::Float32, Shape{std::max<int64_t>(1, group * gw)});
  const float* src = w.data<float>();
  float* dst = t->data<float>();
  for (int64_t g = 0; g < group; ++g)
    for (const Phase& ph : phases) {
      int64_t tp = 0;
      for (int64_t kd : ph.d->k)
        for (int64_t kh : ph.h->k)
          for (int64_t kw : ph.w->k) {
            const int64_t k = (kd * geo.kernel[1] + kh) * geo.kernel[2] + kw;
            for (int64_t ic = 0; ic < icg; ++ic)
              for (int64_t j = 0; j < ocg; ++j)
                dst[g * gw + ph.woff +
                    (ic_major ? (j / 16 * icg + ic) * ph.ntp + tp : (j / 16 * ph.ntp + tp) * icg + ic) * 16 + j % 16] =
                    src[((g * icg + ic) * ocg + j) * ksize + k];
            ++tp;
          }
    }
  std::string rects, taps;
  int64_t nr = 0, nt = 0;
  const int64_t ih = geo.in[1], iw = geo.in[2];
  for (const Phase& ph : phases)
    for (const auto& rd : ph.d->runs)
      for (const auto& rh : ph.h->runs)
        for (const auto& rw : ph.w->runs) {
          const int64_t t0 = nt;
          for (size_t td : rd.taps)
            for (size_t th : rh.taps)
              for (size_t tw : rw.taps) {
                const int64_t xoff = (ph.d->c[td] * ih + ph.h->c[th]) * iw + ph.w->c[tw];
                const int64_t tp = static_cast<int64_t>((td * ph.h->k.size() + th) * ph.w->k.size() + tw);
                const int64_t place = ic_major ? tp * 16 : tp * icg * 16;
                taps += fmt::format("{}{}, {}", nt ? ", " : "", xoff, place);
                ++nt;
              }
          rects += fmt::format("{}{{{}, {}, {}, {}, {}, {}, {}, {}, {}, {}, {}, {}, {}, {}}}", nr ? ", " : "",
                               ph.woff, ic_major ? ph.ntp * 16 : 16, icg * ph.ntp * 16, nt - t0, t0, ph.d->p,
                               ph.h->p, ph.w->p, rd.q0, rd.q1, rh.q0, rh.q1, rw.q0, rw.q1);
          ++nr;
        }
  if (nt == 0) taps = "0, 0";  // no rectangle has a tap: a table of one unused entry
  spec.template_name = "conv_transpose_phases.c";
  spec.includes.push_back("mlip/kvec.h");
  spec.set("GROUPS", group);
  spec.set("NBLK", nblk);
  spec.set("GWSIZE", gw);
  spec.set("NR", nr);
  spec.set("NT", std::max<int64_t>(1, nt));
  spec.set("rects", "{" + rects + "}");
  spec.set("taps", "{" + taps + "}");
  spec.packed.push_back(t);
  // The band buffer (conv_transpose_phases.c's BH): output rows of a pass's
  // channels (NGMAX blocks at most), within BANDF floats (16 KiB) where SH
  // rows fit; on Cortex-M, where RAM is scarce and no cache is missed, one
  // block and SH rows.
  const bool small = spec.cpu && spec.cpu->family == CpuTarget::Family::CortexM;
  const int64_t ngmax = small ? 1 : 8, bandf = small ? 0 : 4096;
  const int64_t sh = geo.stride[1], ohr = (geo.out[1] + sh - 1) / sh * sh;
  const int64_t row = geo.out[2] * std::min<int64_t>(nblk, ngmax) * 16;
  spec.set("OHR", ohr);
  spec.set("NGMAX", ngmax);
  spec.set("BANDF", bandf);
  spec.scratch_bytes = static_cast<size_t>(std::min(std::max(bandf, sh * row), ohr * row)) * sizeof(float);
}

}  // namespace

void prepare_ConvTranspose(const Graph& g, const Node& n, KernelSpec& spec) {
  expect_float(g, n, 0);
  expect_float(g, n, 1);
  const bool has_bias = n.has_input(2);
  if (has_bias) expect_float(g, n, 2);
  const ops::Geometry3 geo = set_geometry(g, n, spec, 1);
  spec.set_flag("has_bias", has_bias);
  const Value& wv = g.value(n.inputs[1]);
  const Shape& y = g.value(n.outputs[0]).shape;
  bool packed = wv.is_constant() && numel(y) > 0 && numel(wv.shape) > 0;
  for (int64_t i = 0; packed && i < wv.constant->numel(); ++i) packed = std::isfinite(wv.constant->data<float>()[i]);
  if (!packed) {
    spec.template_name = "conv_transpose.c";
    spec.includes.push_back("mlip/kfma.h");
    spec.args = {0, 1};
    if (has_bias) spec.args.push_back(2);
    return;
  }
  const int64_t group = n.attrs.get_int("group", 1);
  // Output channels in lanes; fewer than 8 per group would leave most of
  // 16 lanes empty: neighbouring positions take the lanes instead.
  if (wv.shape[1] >= 8) {
    prepare_phases(geo, *wv.constant, group, spec);
    spec.args = {0};
    if (has_bias) spec.args.push_back(2);
    return;
  }
  // The zero border of the input copy, per axis: wide enough that every
  // tap of every output reads inside it.
  const char* axes[] = {"D", "H", "W"};
  int64_t ipsize = 1;
  for (int a = 0; a < ops::kMaxSpatial; ++a) {
    const int64_t s = geo.stride[a], span = (geo.kernel[a] - 1) * geo.dilation[a];
    const int64_t lo = std::max<int64_t>(0, (span - geo.pad_begin[a] + s - 1) / s);
    const int64_t hi = std::max<int64_t>(0, (geo.out[a] - 1 + geo.pad_begin[a]) / s - (geo.in[a] - 1));
    spec.set(std::string("LO") + axes[a], lo);
    spec.set(std::string("I") + axes[a] + "P", geo.in[a] + lo + hi);
    ipsize *= geo.in[a] + lo + hi;
  }
  const Shape& x = g.value(n.inputs[0]).shape;
  spec.template_name = "conv_transpose_packed.c";
  spec.includes.push_back("mlip/kvec.h");
  spec.set("IPSIZE", ipsize);
  spec.set("GROUPS", group);
  spec.packed.push_back(pack_weights(*wv.constant, group));
  spec.args = {0};
  if (has_bias) spec.args.push_back(2);
  // A tile: up to ROWS rows of a height phase by up to QV groups of 16
  // positions of a row phase (the template fits them to the registers).
  const int64_t rows = (geo.out[1] + geo.stride[1] - 1) / geo.stride[1];
  const int64_t qv = std::max<int64_t>(1, ((geo.out[2] + geo.stride[2] - 1) / geo.stride[2] + 15) / 16);
  const int64_t slack = 16 * qv;  // floats the lanes past a row's end may read
  spec.set("ROWS", std::max<int64_t>(1, rows));
  spec.set("QV", qv);
  spec.set("SLACK", slack);
  spec.scratch_bytes = static_cast<size_t>(x[1] * ipsize + slack) * sizeof(float);  // the copy, and the slack
}

void prepare_QLinearConvTranspose(const Graph& g, const Node& n, KernelSpec& spec) {
  expect_dtype(g, n, 0, {DType::Int8, DType::UInt8});
  expect_dtype(g, n, 3, {DType::Int8, DType::UInt8});
  spec.template_name = "qlinear_conv_transpose.c";
  set_geometry(g, n, spec, 3);
  set_integer_operands(g, n, spec, {0, 3, 2, 5}, "j");
  set_qlinear_conv_requant(g, n, spec, "j");
}

}  // namespace mlipc::c::kernels
