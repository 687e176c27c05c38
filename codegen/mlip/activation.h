// The activations the MLIP computes (MLIP_ACT_*, docs/mlip-spec.md section
// 4), written once for the support rules and the lowering: fused into the
// layer before them (the kinds whose LayerKind says fuses_activation), or a
// standalone ACTIVATION layer (layers/activation.cpp) when they cannot ride.
#pragma once

#include <string>
#include <vector>

#include "ir/graph.h"
#include "mlip/region_ir.h"

namespace mlipc::mlip {

// Relu, Clip, Sigmoid, Tanh, HardSigmoid, HardSwish, LeakyRelu, Elu, Gelu,
// Erf, Sqrt, Reciprocal, Pow with a constant exponent.
bool is_activation_op(const std::string& op);

// "" when `n` (an activation op) is one the MLIP computes: float32, and for
// Clip constant bounds; otherwise why not.
std::string activation_reason(const Graph& g, const Node& n);

// The activation `n` computes (activation_reason(g, n) is "").
Activation activation_of(const Graph& g, const Node& n);

// x * Sigmoid(x) (SiLU) and x * HardSigmoid(x) (HardSwish): when `mul` is a
// float32 Mul of x and a Sigmoid or HardSigmoid of x that only this Mul
// reads, the gate node's index, otherwise -1.
int gate_of_product(const Graph& g, const std::vector<std::vector<int>>& consumers, const std::vector<int>& producers,
                    const Node& mul);
// The activation such a product computes (SILU, or HARDSWISH with the gate's
// alpha and beta).
Activation product_activation(const Node& gate);

// "sigmoid", "hard_swish", ...: nodes-JSON activation_type.
std::string activation_name(const Activation& a);

// "conv2d, fc, ... or eltwise": the kinds an activation fuses into, for messages.
std::string fusing_kinds_text();

}  // namespace mlipc::mlip
