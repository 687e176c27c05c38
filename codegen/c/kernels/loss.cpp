// NegativeLogLikelihoodLoss, SoftmaxCrossEntropyLoss: the [N, C, D] view
// (ops::loss_dims), the reduction, ignore_index and the weights' presence
// baked in; targets read at run time (int32 or int64): one outside [0, C)
// that is not ignore_index makes the kernel return MLIP_ERR_INVALID_ARG
// before it writes. Same order as the reference in ops/loss.cpp.
#include "c/kernels/kernels.h"
#include "ops/loss.h"

namespace mlipc::c::kernels {

namespace {
void loss(const Graph& g, const Node& n, KernelSpec& spec, bool softmax) {
  expect_float(g, n, 0);
  expect_dtype(g, n, 1, {DType::Int64, DType::Int32});
  const bool weight = n.has_input(2);
  const Shape* ws = weight ? &g.value(n.inputs[2]).shape : nullptr;
  const ops::LossDims d = ops::loss_dims(n.attrs, g.value(n.inputs[0]).shape, g.value(n.inputs[1]).shape, ws);
  spec.template_name = "loss.c";
  spec.returns_status = true;
  spec.includes = {"mlip/status.h"};
  spec.set("N", c_int(d.n));
  spec.set("C", c_int(d.c));
  spec.set("D", c_int(d.d));
  spec.set("CD", c_int(d.c * d.d));  // one literal: a product of int literals can overflow a 16-bit int
  spec.set("COUNT", c_int(d.n * d.d));
  spec.set("IGNORE", c_int(d.ignore_index));
  spec.set_flag("ignore", d.has_ignore);
  spec.set_flag("weight", weight);
  spec.set_flag("none", d.reduction == ops::LossReduction::None);
  spec.set_flag("mean", d.reduction == ops::LossReduction::Mean);
  spec.set_flag("softmax", softmax);
  spec.set_flag("log_prob", softmax && n.outputs.size() > 1);
  spec.args = weight ? std::vector<int>{0, 1, 2} : std::vector<int>{0, 1};
}
}  // namespace

void prepare_NegativeLogLikelihoodLoss(const Graph& g, const Node& n, KernelSpec& spec) { loss(g, n, spec, false); }
void prepare_SoftmaxCrossEntropyLoss(const Graph& g, const Node& n, KernelSpec& spec) { loss(g, n, spec, true); }

}  // namespace mlipc::c::kernels
