#include "ops/activation.h"

#include "support/error.h"

namespace mlipc {

std::string Activation::name() const {
  switch (kind) {
    case Relu: return "relu";
    case LeakyRelu: return "leaky_relu";
    case Clip: return "clip";
    case Sigmoid: return "sigmoid";
    case Tanh: return "tanh";
    case HardSigmoid: return "hard_sigmoid";
    case Silu: return "silu";
    case HardSwish: return "hard_swish";
    case Gelu: return "gelu";
    case GeluTanh: return "gelu_tanh";
    default: return "";
  }
}

Activation activation_of(const Attrs& attrs) {
  Activation a;
  std::string k = attrs.get_string("activation", "");
  if (k.empty()) return a;
  if (k == "relu") a.kind = Activation::Relu;
  else if (k == "leaky_relu") a.kind = Activation::LeakyRelu;
  else if (k == "clip") a.kind = Activation::Clip;
  else if (k == "sigmoid") a.kind = Activation::Sigmoid;
  else if (k == "tanh") a.kind = Activation::Tanh;
  else if (k == "hard_sigmoid") a.kind = Activation::HardSigmoid;
  else if (k == "silu") a.kind = Activation::Silu;
  else if (k == "hard_swish") a.kind = Activation::HardSwish;
  else if (k == "gelu") a.kind = Activation::Gelu;
  else if (k == "gelu_tanh") a.kind = Activation::GeluTanh;
  else fail("internal: unknown fused activation '{}'", k);
  a.alpha = attrs.get_float("activation_alpha", a.alpha);
  a.beta = attrs.get_float("activation_beta", a.beta);
  a.lo = attrs.get_float("activation_min", a.lo);
  a.hi = attrs.get_float("activation_max", a.hi);
  return a;
}

void set_activation(Attrs& attrs, const Activation& act) {
  attrs.set("activation", act.name());
  if (act.kind == Activation::LeakyRelu || act.kind == Activation::HardSigmoid || act.kind == Activation::HardSwish)
    attrs.set("activation_alpha", act.alpha);
  if (act.kind == Activation::HardSigmoid || act.kind == Activation::HardSwish) attrs.set("activation_beta", act.beta);
  if (act.kind == Activation::Clip) {
    attrs.set("activation_min", act.lo);
    attrs.set("activation_max", act.hi);
  }
}

}  // namespace mlipc
