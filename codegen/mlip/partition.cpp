#include "mlip/partition.h"

#include "mlip/support.h"
#include "passes/partition.h"
#include "support/error.h"

namespace mlipc::mlip {

namespace {

bool is_q8(DType t) { return t == DType::Int8 || t == DType::UInt8; }

// A quantized model (QDQ folded by passes/fold_qdq, or QOperator) has
// operators on int8/uint8 tensors; an fp32 model has none.
bool has_quantized_operator(const Graph& g) {
  for (const Node& n : g.nodes)
    for (const std::vector<ValueId>* list : {&n.inputs, &n.outputs})
      for (ValueId v : *list)
        if (v != kNoValue && !g.value(v).is_constant() && is_q8(g.value(v).dtype)) return true;
  return false;
}

}  // namespace

Partition partition(Graph& g, const Options& options) {
  if (options.quantize == "int8" && !has_quantized_operator(g))
    fail("-quantize=int8 needs a quantized model (QDQ or QOperator): this one has no int8 operator, and calibrating "
         "an fp32 model is not supported yet (quantize it first, or use -quantize=fp16)");
  Selection s = select_nodes(g, options);
  std::vector<std::string> names;
  for (const Node& n : g.nodes) names.push_back(n.name);
  const std::vector<int> left_out = passes::partition(g, {s.chosen, s.layer, kCompiler, "tvmgen_mrvl_main_"});
  for (int i : left_out) {
    s.chosen[static_cast<size_t>(i)] = false;
    s.reason[static_cast<size_t>(i)] = "no accelerated layer next to it";
  }
  Partition p;
  for (size_t i = 0; i < names.size(); ++i)
    if (!s.chosen[i]) p.cpu_reasons[names[i]] = s.reason[i];
  return p;
}

}  // namespace mlipc::mlip
