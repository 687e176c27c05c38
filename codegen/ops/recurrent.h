// RNN, GRU and LSTM: one algorithm (a cell stepped over a sequence, per
// direction and batch entry). The attributes and input shapes resolve into
// one RecurrentConfig, read by the shape rule, the reference kernel
// (ops/recurrent.cpp) and the C kernel (c/kernels/recurrent.cpp).
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "ir/attrs.h"
#include "ir/tensor_data.h"

namespace mlipc::ops {

// One of the activation functions the ONNX recurrent operators list, with
// its alpha and beta (defaults filled in).
struct RecurrentActivation {
  enum Kind { Relu, Tanh, Sigmoid, Affine, LeakyRelu, ThresholdedRelu, ScaledTanh, HardSigmoid, Elu, Softsign, Softplus };
  Kind kind = Tanh;
  float alpha = 0.0f, beta = 0.0f;
  float apply(float v) const;  // the reference: the same expressions as the C kernel's
};

struct RecurrentConfig {
  enum Cell { Rnn, Gru, Lstm };
  Cell cell = Rnn;
  int gates = 1;          // rows of W per hidden unit: 1 (RNN), 3 (GRU: z r h), 4 (LSTM: i o f c)
  int funcs = 1;          // activations per direction: 1 (RNN: f), 2 (GRU: f g), 3 (LSTM: f g h)
  int64_t seq = 0, batch = 0, input = 0, hidden = 0, dirs = 1;
  bool reverse = false;   // direction "reverse" (direction 1 of "bidirectional" is always reversed)
  bool batch_major = false;  // layout 1: X [batch, seq, input], Y [batch, seq, dirs, hidden]
  bool has_clip = false;
  float clip = 0.0f;
  bool input_forget = false;         // LSTM: f = 1 - i
  bool linear_before_reset = false;  // GRU
  std::vector<RecurrentActivation> acts;  // dirs * funcs, direction 0 first

  bool reversed(int64_t dir) const { return reverse || dir == 1; }
};

// Reads and checks the attributes against X [seq, batch, input] (layout 0)
// or [batch, seq, input] (layout 1), W [dirs, gates * hidden, input] and
// R [dirs, gates * hidden, hidden]. Activation names are case-insensitive;
// activation_alpha and activation_beta are consumed in order by the
// activations that take them (as onnxruntime reads them), each falling back
// to its ONNX operator's default: LeakyRelu 0.01, ThresholdedRelu 1,
// HardSigmoid 0.2 and 0.5, Elu 1, Affine 1 and 0, ScaledTanh 1 and 1.
RecurrentConfig resolve_recurrent(RecurrentConfig::Cell cell, const Attrs& attrs, const Shape& x, const Shape& w,
                                  const Shape& r);

}  // namespace mlipc::ops
