#include "mlip/activation.h"

#include <cmath>
#include <vector>

#include "mlip/layer_kind.h"

namespace mlipc::mlip {

bool is_activation_op(const std::string& op) {
  return op == "Relu" || op == "Clip" || op == "Sigmoid" || op == "Tanh" || op == "HardSigmoid" ||
         op == "HardSwish" || op == "LeakyRelu" || op == "Elu" || op == "Gelu" || op == "Erf" || op == "Sqrt" ||
         op == "Reciprocal" || op == "Pow";
}

std::string activation_reason(const Graph& g, const Node& n) {
  if (g.value(n.inputs[0]).dtype != DType::Float32) return "only float32 activations";
  if (n.op == "Clip")
    for (size_t k = 1; k < n.inputs.size(); ++k)
      if (n.has_input(k) && !g.value(n.inputs[k]).is_constant()) return "Clip bounds that are not constant";
  if (n.op == "Gelu" && n.attrs.get_string("approximate", "none") != "none" &&
      n.attrs.get_string("approximate", "none") != "tanh")
    return "Gelu approximation other than none or tanh";
  if (n.op == "Pow") {
    const Value& e = g.value(n.inputs[1]);
    if (!e.is_constant() || e.constant->numel() != 1) return "Pow with an exponent that is not one constant";
    if (g.value(n.outputs[0]).shape != g.value(n.inputs[0]).shape) return "Pow that broadcasts its base";
  }
  return "";
}

Activation activation_of(const Graph& g, const Node& n) {
  Activation a;
  if (n.op == "Relu") {
    a.kind = MLIP_ACT_RELU;
  } else if (n.op == "Clip") {
    // Any bounds: CLIP applies lo first, so lo > hi gives hi as ONNX does.
    a.kind = MLIP_ACT_CLIP;
    a.lo = n.has_input(1) ? static_cast<float>(g.value(n.inputs[1]).constant->at(0)) : -INFINITY;
    a.hi = n.has_input(2) ? static_cast<float>(g.value(n.inputs[2]).constant->at(0)) : INFINITY;
  } else if (n.op == "Sigmoid") {
    a.kind = MLIP_ACT_SIGMOID;
  } else if (n.op == "Tanh") {
    a.kind = MLIP_ACT_TANH;
  } else if (n.op == "HardSigmoid") {
    a.kind = MLIP_ACT_HARDSIGMOID;
    a.lo = n.attrs.get_float("alpha", 0.2f);
    a.hi = n.attrs.get_float("beta", 0.5f);
  } else if (n.op == "HardSwish") {
    a.kind = MLIP_ACT_HARDSWISH;  // the operator's constants
    a.lo = 1.0f / 6.0f;
    a.hi = 0.5f;
  } else if (n.op == "LeakyRelu") {
    a.kind = MLIP_ACT_LEAKYRELU;
    a.lo = n.attrs.get_float("alpha", 0.01f);
  } else if (n.op == "Elu") {
    a.kind = MLIP_ACT_ELU;
    a.lo = n.attrs.get_float("alpha", 1.0f);
  } else if (n.op == "Gelu") {
    a.kind = n.attrs.get_string("approximate", "none") == "tanh" ? MLIP_ACT_GELU_TANH : MLIP_ACT_GELU;
  } else if (n.op == "Erf") {
    a.kind = MLIP_ACT_ERF;
  } else if (n.op == "Sqrt") {
    a.kind = MLIP_ACT_SQRT;
  } else if (n.op == "Reciprocal") {
    a.kind = MLIP_ACT_RECIP;
  } else if (n.op == "Pow") {
    a.kind = MLIP_ACT_POW;
    a.lo = static_cast<float>(g.value(n.inputs[1]).constant->at(0));
  }
  return a;
}

int gate_of_product(const Graph& g, const std::vector<std::vector<int>>& consumers, const std::vector<int>& producers,
                    const Node& mul) {
  if (mul.op != "Mul" || mul.inputs.size() != 2 || mul.attrs.has("legacy_axis")) return -1;
  for (int k = 0; k < 2; ++k) {
    const ValueId x = mul.inputs[static_cast<size_t>(1 - k)], gate = mul.inputs[static_cast<size_t>(k)];
    const int p = producers[gate];
    if (p < 0) continue;
    const Node& gn = g.nodes[static_cast<size_t>(p)];
    if ((gn.op != "Sigmoid" && gn.op != "HardSigmoid") || gn.inputs[0] != x) continue;
    if (g.value(x).dtype != DType::Float32 || g.is_graph_output(gate) || consumers[gate].size() != 1) continue;
    return p;
  }
  return -1;
}

Activation product_activation(const Node& gate) {
  Activation a;
  if (gate.op == "Sigmoid") {
    a.kind = MLIP_ACT_SILU;
  } else {
    a.kind = MLIP_ACT_HARDSWISH;
    a.lo = gate.attrs.get_float("alpha", 0.2f);
    a.hi = gate.attrs.get_float("beta", 0.5f);
  }
  return a;
}

std::string activation_name(const Activation& a) {
  switch (a.kind) {
    case MLIP_ACT_RELU: return "relu";
    case MLIP_ACT_CLIP: return a.lo == 0.0f && a.hi == 6.0f ? "relu6" : "clip";
    case MLIP_ACT_SIGMOID: return "sigmoid";
    case MLIP_ACT_TANH: return "tanh";
    case MLIP_ACT_SILU: return "silu";
    case MLIP_ACT_HARDSIGMOID: return "hard_sigmoid";
    case MLIP_ACT_HARDSWISH: return "hard_swish";
    case MLIP_ACT_LEAKYRELU: return "leaky_relu";
    case MLIP_ACT_ELU: return "elu";
    case MLIP_ACT_GELU: return "gelu";
    case MLIP_ACT_GELU_TANH: return "gelu_tanh";
    case MLIP_ACT_ERF: return "erf";
    case MLIP_ACT_SQRT: return "sqrt";
    case MLIP_ACT_RECIP: return "reciprocal";
    case MLIP_ACT_POW: return "pow";
    default: return "none";
  }
}

std::string fusing_kinds_text() {
  std::vector<std::string> names;
  for (const LayerKind* k : layer_kinds())
    if (k->fuses_activation) names.push_back(k->name);
  std::string s;
  for (size_t i = 0; i < names.size(); ++i)
    s += (i == 0 ? "" : i + 1 == names.size() ? " or " : ", ") + names[i];
  return s;
}

}  // namespace mlipc::mlip
