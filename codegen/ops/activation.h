// Activations fused into their producer (Conv, Gemm, MatMul, elementwise
// binary, BatchNormalization) by passes/fuse_activation. They are stored as
// node attributes so that the reference kernel and the C kernel apply the
// same function in the same place: after the bias, before the store. Silu
// (x * Sigmoid(x)) and HardSwish (x * HardSigmoid(x)) stand for a product
// with its own factor: each is the unfused nodes' arithmetic, in their order.
// Gelu and GeluTanh are the Gelu operator (approximate "none", "tanh"; the
// node passes/fuse_gelu writes), fused into a MatMul or Gemm alone.
#pragma once

#include <cmath>
#include <string>

#include "ir/attrs.h"
#include "mlip/kmath.h"
#include "mlip/kmath_f.h"

namespace mlipc {

struct Activation {
  enum Kind { None, Relu, LeakyRelu, Clip, Sigmoid, Tanh, HardSigmoid, Silu, HardSwish, Gelu, GeluTanh };
  Kind kind = None;
  float alpha = 0.01f;  // LeakyRelu slope; HardSigmoid, HardSwish: alpha * x + beta
  float beta = 0.5f;
  float lo = -INFINITY, hi = INFINITY;  // Clip bounds

  float apply(float v) const {
    switch (kind) {
      case Relu: return relu(v);
      case LeakyRelu: return v < 0.0f ? v * alpha : v;
      case Clip:  // bounds in sequence: with lo > hi every value becomes hi, as in ONNX
        v = v < lo ? lo : v;
        return v > hi ? hi : v;
      // kmath_f.h's float functions, the C kernels' own (c/kernel.cpp):
      // tables and int8 chains computed here get the CPU's bits.
      case Sigmoid: return mlip_sigmoid_f(v);
      case Tanh: return mlip_tanh_f(v);
      case Silu: return mlip_silu_f(v);
      case HardSigmoid: return hard_sigmoid(v);
      case HardSwish: return v * hard_sigmoid(v);
      case Gelu: return mlip_gelu_f(v);  // ops::eval_Gelu's functions
      case GeluTanh: return mlip_gelu_tanh_f(v);
      default: return v;
    }
  }
  // max(0, v) as ONNX's reference computes it (numpy's maximum): a NaN stays
  // NaN (docs/runtime.md, "NaN"); -0 becomes +0, as it always did here.
  static float relu(float v) { return v <= 0.0f ? 0.0f : v; }
  // ONNX HardSigmoid's arithmetic (ops::eval_HardSigmoid): a NaN stays NaN.
  float hard_sigmoid(float v) const {
    const float t = alpha * v + beta;
    return t > 1.0f ? 1.0f : (t < 0.0f ? 0.0f : t);
  }
  std::string name() const;  // "relu", "leaky_relu", ... ("" for None)
};

// Reads the fused activation attributes ("activation", "activation_alpha",
// "activation_min", "activation_max"); None when there are none.
Activation activation_of(const Attrs& attrs);
void set_activation(Attrs& attrs, const Activation& act);

}  // namespace mlipc
