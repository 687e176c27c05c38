// Error-compensating weight rounding (--weight-rounding gptq): GPTQ
// ("GPTQ: Accurate Post-Training Quantization for Generative Pre-trained
// Transformers", Frantar et al. 2023, after Optimal Brain Quantization).
// Round-to-nearest makes each weight's error alone as small as it can be;
// the layer's OUTPUT error sum_t (w_t - q_t) x_t is what matters, and with
// correlated inputs the next weights can cancel part of it. Per layer,
// H = X^T X from the calibration activations (the rows of a dense layer's
// input, the im2col patches of a Conv's, per group: a depthwise channel
// its own taps), damped by kGptqDamp of its mean diagonal; the K columns
// are rounded one at a time in a fixed order, on the grid the scales
// already fixed (per-channel scales, zero point 0, [-qmax, qmax], a 4-bit
// block's power-of-two sub-scale: nothing the kernels, the MLIP or the
// bias rule see changes), and each column's error is spread over the
// columns not yet rounded by the rows of the upper Cholesky factor of H^-1.
// Double precision, deterministic. With uncorrelated inputs (H diagonal)
// the result is round-to-nearest's exactly. docs/user-guide.md,
// "Quantization", "Weight rounding".
#pragma once

#include <cstdint>
#include <map>
#include <string>
#include <vector>

#include "ir/tensor_data.h"
#include "ptq/classify.h"
#include "ptq/samples.h"

namespace mlipc::ptq {

// The damping GPTQ adds to H's diagonal, a fraction of its mean (GPTQ's
// percdamp): it keeps H invertible when the calibration rows span fewer
// than K directions, and bounds how far an error is pushed.
inline constexpr double kGptqDamp = 0.01;
// A layer's Hessians hold at most this many doubles (groups x K x K: 32 MiB,
// K up to 2,048 for one group); a wider layer keeps round-to-nearest and the
// report says so. All the layers' Hessians together hold at most
// kGptqMaxTotal (256 MiB): the layers past it keep round-to-nearest too.
inline constexpr int64_t kGptqMaxLayer = int64_t{1} << 22;
inline constexpr int64_t kGptqMaxTotal = int64_t{1} << 25;

// One layer's H = X^T X: `groups` matrices of k x k (a Conv's groups, in
// order; one for a dense layer), row-major, full. After factor_hessians, h
// holds each group's factor (inverse_cholesky; a group without one, all
// zeros) in its place and `factored` is set: the layer's weights are
// quantized several times (mixed precision, then the model), each reads it.
struct LayerHessian {
  int64_t groups = 1, k = 0;
  bool factored = false;
  std::vector<double> h;
  double* group(int64_t gi) { return h.data() + gi * k * k; }
  const double* group(int64_t gi) const { return h.data() + gi * k * k; }
};

// Every weighted layer's Hessian by node name, and the layers that keep
// round-to-nearest with why (too wide), by node name.
struct Hessians {
  std::map<std::string, LayerHessian> layers;
  std::map<std::string, std::string> nearest;
  const LayerHessian* of(const std::string& node) const {
    auto it = layers.find(node);
    return it == layers.end() ? nullptr : &it->second;
  }
};

// Whether node n's weights are rounded by GPTQ when asked: a Conv (1-D to
// 3-D, grouped and depthwise too), a Gemm or a MatMul whose weights are a
// constant of rank 2 (a Conv's of its rank).
bool gptq_applies(const Graph& g, const Node& n);

// Runs the samples through the fp32 graph g and accumulates the Hessian of
// every compute layer of `layers` that gptq_applies to, from its input.
Hessians collect_hessians(const Graph& g, const std::vector<Layer>& layers, const Samples& samples);

// Replaces every layer's Hessians by their factors (LayerHessian::factored).
void factor_hessians(Hessians& hs);

// The upper Cholesky factor U of (H + damp * mean(diag H) * I)^-1 (k x k,
// row-major; H^-1 = U^T U), a column never seen (diagonal 0) taken as
// independent of the others. Empty when the damped H is not positive
// definite (a NaN in the data; the caller rounds to nearest).
std::vector<double> inverse_cholesky(const double* h, int64_t k, double damp = kGptqDamp);

// GPTQ on one channel: w its k weights (in column order), u the factor
// above, step[t] the grid step of column t (q * step[t], q in [-qmax,
// qmax], rounded half to even as QuantizeLinear does). Returns q per column.
std::vector<int32_t> gptq_round(std::vector<double> w, const std::vector<double>& u, const std::vector<float>& step,
                                int qmax);

// w quantized per channel along `axis` at `scale` as quantize_weight does
// (weight_scale.h), or in 4-bit blocks as quantize_weight_blocks does when
// block > 0 (the same exponents, from the float weights; q in [-7, 7]
// whatever qmax), each channel's
// values chosen by gptq_round with its group's Hessian: for a Conv the
// groups of h are consecutive runs of count / groups channels.
TensorData quantize_weight_gptq(const TensorData& w, int axis, const std::vector<float>& scale, int qmax,
                                const LayerHessian& h, int64_t block = 0);

}  // namespace mlipc::ptq
