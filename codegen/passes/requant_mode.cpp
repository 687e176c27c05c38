// --requant ort: records onnxruntime's requantization arithmetic on every
// integer operator that requantizes (ops::kRequantAttr), so that the
// reference evaluator, the C kernels' constants and the MLIP layers all
// read it from the node (ops::requant_mode). Fixed, the default, leaves the
// graph as it is.
#include <set>
#include <string>

#include "ops/conv_transpose.h"
#include "ops/quant.h"
#include "passes/passes.h"
#include "support/error.h"

namespace mlipc::passes {

void set_requant_mode(Graph& g, ops::RequantMode mode) {
  if (mode == ops::RequantMode::Fixed) return;
  static const std::set<std::string> kRequantizing = {
      "QLinearConv",        "QLinearMatMul",           "QLinearAdd", "QLinearMul", "QLinearAveragePool",
      "QLinearGlobalAveragePool", ops::kQConvTransposeOp};
  for (Node& n : g.nodes)
    if (kRequantizing.count(n.op) != 0) n.attrs.set(ops::kRequantAttr, int64_t{1});
}

ops::RequantMode parse_requant_mode(const std::string& text) {
  if (text == "fixed") return ops::RequantMode::Fixed;
  if (text == "ort") return ops::RequantMode::Ort;
  fail("--requant '{}' (allowed: fixed, ort)", text);
}

}  // namespace mlipc::passes
