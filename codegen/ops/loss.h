// NegativeLogLikelihoodLoss and SoftmaxCrossEntropyLoss (opset 13): what
// their shape rules, reference kernels (ops/loss.cpp) and CPU kernel
// (c/kernels/loss.cpp, templates/kernels/loss.c) share.
#pragma once

#include <cstdint>
#include <string>

#include "ir/attrs.h"
#include "ir/tensor_data.h"

namespace mlipc::ops {

enum class LossReduction { None, Sum, Mean };

// The input viewed as [N, C, D] (D: the product of d1 ... dk, 1 without
// them), the target as [N, D]; the reduction and ignore_index attributes.
struct LossDims {
  int64_t n = 1, c = 1, d = 1;
  LossReduction reduction = LossReduction::Mean;
  bool has_ignore = false;
  int64_t ignore_index = 0;
};

// Checks the attributes (reduction "none", "sum" or "mean") and the shapes:
// input [N, C, d1 ... dk] (rank >= 2), target [N, d1 ... dk], weight [C]
// when `weight` is given (nullptr: none).
LossDims loss_dims(const Attrs& attrs, const Shape& input, const Shape& target, const Shape* weight);

// The loss's shape: the target's with reduction none, a scalar otherwise.
Shape loss_shape(const LossDims& d, const Shape& target);

}  // namespace mlipc::ops
