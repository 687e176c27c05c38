#include "mlip/partition.h"

#include "mlip/support.h"
#include "passes/partition.h"
#include "passes/passes.h"
#include "support/error.h"

namespace mlipc::mlip {

Partition partition(Graph& g, const Options& options) {
  // The driver calibrates an fp32 model first (--calibration); one that
  // reaches here unquantized has no layer int8 could run.
  if (options.quantize == "int8" && !options.fp16_float_layers && !passes::has_quantized_tensors(g))
    fail("-quantize=int8 needs a quantized model (QDQ or QOperator) or calibration data (--calibration FILE.npz): "
         "this one has no int8 operator");
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
