// DFT and STFT (opset 17) share one algorithm: a direct O(n^2) discrete
// Fourier transform in a fixed order, written once for the reference
// (dft_run) and once in templates/kernels/dft.c, which give the same bits:
// the same double accumulators, the same statements, and the same twiddle
// table (dft_twiddles, computed here at compile time and baked into the
// kernel as constants).
//
// A plan describes the transforms of a tensor. Transform (o, i), o in
// [0, outer), i in [0, inner), reads `taken` complex or real elements
//   x[(base(o) + j * inner + i) * in_c], j in [0, taken)
// with base(o) = (o / frames) * batch_stride + (o % frames) * frame_step,
// multiplies them by window[j] when there is a window, and writes bins k in
// [0, bins) of the length-`length` transform (zero-padded past `taken`) to
//   y[((o * bins + k) * inner + i) * 2 + {0: real, 1: imaginary}].
// DFT: frames = 1, one transform per position off the axis. STFT: a frame
// per frame_step along the signal, inner = 1.
#pragma once

#include <cstdint>
#include <vector>

#include "ir/attrs.h"
#include "ir/tensor_data.h"

namespace mlipc::ops {

struct DftPlan {
  int64_t outer = 0, frames = 1, batch_stride = 0, frame_step = 0, inner = 1;
  int64_t in_c = 1;    // 1: real input, 2: complex
  int64_t taken = 0;   // input elements read per transform
  int64_t length = 1;  // the transform's length (dft_length, frame_length)
  int64_t bins = 0;    // output bins: length, or length / 2 + 1 when onesided
  bool inverse = false;
  bool window = false;
  Shape out;
};

// DFT's plan from its input shape, attributes and dft_length (null when
// omitted); throws for a bad axis, shape or length.
DftPlan dft_plan(const Shape& in, const Attrs& attrs, const TensorData* dft_length);
// STFT's plan from the signal's shape, frame_step, the window's shape (null
// when omitted) and frame_length (null when omitted).
DftPlan stft_plan(const Shape& signal, const Attrs& attrs, const TensorData& frame_step, const Shape* window,
                  const TensorData* frame_length);

// cos and sin of 2 pi m / length for m in [0, length), interleaved.
std::vector<double> dft_twiddles(int64_t length);

// The reference: T is float or double.
template <class T>
void dft_run(const DftPlan& p, const T* x, const T* window, T* y) {
  const std::vector<double> tw = dft_twiddles(p.length);
  for (int64_t o = 0; o < p.outer; ++o) {
    const int64_t base = (o / p.frames) * p.batch_stride + (o % p.frames) * p.frame_step;
    for (int64_t i = 0; i < p.inner; ++i)
      for (int64_t k = 0; k < p.bins; ++k) {
        double re = 0.0, im = 0.0;
        int64_t t = 0;  // (j * k) mod length
        for (int64_t j = 0; j < p.taken; ++j) {
          const double c = tw[2 * t], s = tw[2 * t + 1];
          const int64_t at = (base + j * p.inner + i) * p.in_c;
          double xr = static_cast<double>(x[at]);
          if (p.window) xr = xr * static_cast<double>(window[j]);
          if (p.in_c == 2) {
            double xi = static_cast<double>(x[at + 1]);
            if (p.window) xi = xi * static_cast<double>(window[j]);
            if (!p.inverse) {
              re += xr * c + xi * s;
              im += xi * c - xr * s;
            } else {
              re += xr * c - xi * s;
              im += xi * c + xr * s;
            }
          } else if (!p.inverse) {
            re += xr * c;
            im -= xr * s;
          } else {
            re += xr * c;
            im += xr * s;
          }
          t += k;
          if (t >= p.length) t -= p.length;
        }
        if (p.inverse) {
          re = re / static_cast<double>(p.length);
          im = im / static_cast<double>(p.length);
        }
        const int64_t out = ((o * p.bins + k) * p.inner + i) * 2;
        y[out] = static_cast<T>(re);
        y[out + 1] = static_cast<T>(im);
      }
  }
}

}  // namespace mlipc::ops
