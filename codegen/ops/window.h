// The sliding-window loop nest of the reference kernels (Conv, ConvInteger,
// MaxPool, AveragePool, LpPool, QLinearAveragePool): every output position
// of a Geometry3 in row-major order, and for one output position the taps of
// its window in window order (kd, kh, kw), input position
//   i = o * stride - pad_begin + k * dilation   on each axis.
// The kernels differ only in what they do with a tap; the order is the one
// templates/kernels/{conv,maxpool,averagepool,lp_pool}.c run, so the reference
// and the generated C sum in the same order (the templates keep their own
// loop nests: a mustache partial cannot take the tap's body, and the unit
// tests' bit-for-bit comparisons hold the two together). ConvTranspose
// gathers through the inverse mapping: transpose_gather in
// ops/conv_transpose.h.
#pragma once

#include <algorithm>
#include <cstdint>
#include <type_traits>
#include <vector>

#include "ops/fma.h"
#include "ops/spatial.h"

namespace mlipc::ops {

// One tap of a window.
struct WindowTap {
  int64_t x;        // offset in one input plane: (d * in[1] + h) * in[2] + w
  int64_t k;        // offset in the kernel: (kd * kernel[1] + kh) * kernel[2] + kw
  int64_t d, h, w;  // the input position (in the padding for a padded tap)
  bool inside;      // d, h, w inside the input
};

// f(o, od, oh, ow) for every output position, o = (od * out[1] + oh) * out[2] + ow.
template <class F>
void for_each_output(const Geometry3& g, F&& f) {
  for (int64_t od = 0; od < g.out[0]; ++od)
    for (int64_t oh = 0; oh < g.out[1]; ++oh)
      for (int64_t ow = 0; ow < g.out[2]; ++ow) f((od * g.out[1] + oh) * g.out[2] + ow, od, oh, ow);
}

// f(tap) for the taps of output position (od, oh, ow) inside the padded
// input, in window order, `inside` telling the input's from the padding's
// (AveragePool's count_include_pad counts both). A tap beyond the end
// padding (the last window of ceil_mode) is no tap at all.
template <class F>
void for_each_padded_tap(const Geometry3& g, int64_t od, int64_t oh, int64_t ow, F&& f) {
  for (int64_t kd = 0; kd < g.kernel[0]; ++kd) {
    const int64_t id = od * g.stride[0] - g.pad_begin[0] + kd * g.dilation[0];
    if (id >= g.in[0] + g.pad_end[0]) continue;
    const bool in_d = id >= 0 && id < g.in[0];
    for (int64_t kh = 0; kh < g.kernel[1]; ++kh) {
      const int64_t ih = oh * g.stride[1] - g.pad_begin[1] + kh * g.dilation[1];
      if (ih >= g.in[1] + g.pad_end[1]) continue;
      const bool in_h = ih >= 0 && ih < g.in[1];
      for (int64_t kw = 0; kw < g.kernel[2]; ++kw) {
        const int64_t iw = ow * g.stride[2] - g.pad_begin[2] + kw * g.dilation[2];
        if (iw >= g.in[2] + g.pad_end[2]) continue;
        const bool inside = in_d && in_h && iw >= 0 && iw < g.in[2];
        f(WindowTap{(id * g.in[1] + ih) * g.in[2] + iw, (kd * g.kernel[1] + kh) * g.kernel[2] + kw, id, ih, iw,
                    inside});
      }
    }
  }
}

// f(tap) for the taps of output position (od, oh, ow) inside the input, in
// window order; taps in the padding are skipped.
template <class F>
void for_each_tap(const Geometry3& g, int64_t od, int64_t oh, int64_t ow, F&& f) {
  for_each_padded_tap(g, od, oh, ow, [&](const WindowTap& t) {
    if (t.inside) f(t);
  });
}

// Elements of one plane of the input, the kernel and the output.
inline int64_t input_plane(const Geometry3& g) { return g.in[0] * g.in[1] * g.in[2]; }
inline int64_t kernel_size(const Geometry3& g) { return g.kernel[0] * g.kernel[1] * g.kernel[2]; }
inline int64_t output_plane(const Geometry3& g) { return g.out[0] * g.out[1] * g.out[2]; }

// The taps inside the input of every output position, in for_each_tap's
// order, computed once: a kernel that visits a window once per input channel
// (Conv, ConvInteger, QLinearConv) reads them from here instead of walking
// the window's bounds again each time. Output o's taps are
// [start[o], start[o + 1]) of x (offset in an input plane) and k (offset in
// the kernel).
struct TapTable {
  std::vector<int64_t> start, x, k;
};

inline TapTable inside_taps(const Geometry3& g) {
  TapTable t;
  t.start.reserve(static_cast<size_t>(output_plane(g)) + 1);
  for_each_output(g, [&](int64_t, int64_t od, int64_t oh, int64_t ow) {
    t.start.push_back(static_cast<int64_t>(t.x.size()));
    for_each_tap(g, od, oh, ow, [&](const WindowTap& tap) {
      t.x.push_back(tap.x);
      t.k.push_back(tap.k);
    });
  });
  t.start.push_back(static_cast<int64_t>(t.x.size()));
  return t;
}


// The convolution sums of Conv, ConvInteger and QLinearConv:
//   sum(n, oc, o) = sum over ic of the group, then over o's taps in TapTable
//   order, of x[n, ic, tap.x] * w_at(oc, ic, tap.k)
// in Acc (float: each term added with one rounding, a fused multiply-add), then store(flat output index, oc, sum). Each output's terms are
// added in that order, as templates/kernels/conv.c adds them; the outputs of
// kConvBlock channels run side by side on weights transposed to
// [ic][k][oc] (independent sums, so each gets the bits it gets alone: a
// dependent chain of adds per output was most of PTQ's calibration time).
// `x` holds the input terms (less the zero point for the integer forms).
inline constexpr int64_t kConvBlock = 8;

template <class Acc, class X, class WAt, class Store>
void conv_sums(const Geometry3& g, int64_t n_batch, int64_t c, int64_t m, int64_t group, const X* x, WAt&& w_at,
               Store&& store) {
  // Products of 16-bit terms are exact in int32, which SIMD forms from
  // 16-bit lanes; anything else multiplies in the accumulator's type.
  using P = std::conditional_t<std::is_integral_v<X> && sizeof(X) <= 2, int32_t, Acc>;
  const int64_t icg = c / group, ocg = m / group;
  const int64_t isize = input_plane(g), ksize = kernel_size(g), osize = output_plane(g);
  const int64_t ocp = (ocg + kConvBlock - 1) / kConvBlock * kConvBlock;
  const TapTable taps = inside_taps(g);
  std::vector<X> wt(static_cast<size_t>(icg * ksize * ocp));
  for (int64_t grp = 0; grp < group; ++grp) {
    for (int64_t j = 0; j < ocg; ++j)
      for (int64_t ic = 0; ic < icg; ++ic)
        for (int64_t k = 0; k < ksize; ++k) wt[static_cast<size_t>((ic * ksize + k) * ocp + j)] = w_at(grp * ocg + j, ic, k);
    for (int64_t n = 0; n < n_batch; ++n) {
      const X* xg = x + (n * c + grp * icg) * isize;
      for (int64_t oc0 = 0; oc0 < ocg; oc0 += kConvBlock) {
        const int64_t nb = std::min(kConvBlock, ocg - oc0);
        for (int64_t o = 0; o < osize; ++o) {
          const size_t t0 = static_cast<size_t>(taps.start[static_cast<size_t>(o)]);
          const size_t t1 = static_cast<size_t>(taps.start[static_cast<size_t>(o) + 1]);
          Acc sum[kConvBlock] = {};
          if constexpr (std::is_same_v<Acc, float> && std::is_same_v<X, float>) {
            // One rounding per term (ops/fma.h), the same order as below.
            static_assert(kConvBlock == 8);
            fma_conv_taps(xg, isize, wt.data() + oc0, ksize, ocp, icg, taps.x.data(), taps.k.data(),
                          static_cast<int64_t>(t0), static_cast<int64_t>(t1), sum);
          } else {
            for (int64_t ic = 0; ic < icg; ++ic) {
              const X* xc = xg + ic * isize;
              const X* wc = wt.data() + ic * ksize * ocp + oc0;
              for (size_t t = t0; t < t1; ++t) {
                const P xv = static_cast<P>(xc[taps.x[t]]);
                const X* wk = wc + taps.k[t] * ocp;
                for (int64_t j = 0; j < kConvBlock; ++j) sum[j] += static_cast<Acc>(xv * static_cast<P>(wk[j]));
              }
            }
          }
          for (int64_t j = 0; j < nb; ++j) {
            const int64_t oc = grp * ocg + oc0 + j;
            store((n * m + oc) * osize + o, oc, sum[j]);
          }
        }
      }
    }
  }
}

}  // namespace mlipc::ops
