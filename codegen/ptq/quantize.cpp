#include "ptq/quantize.h"

#include "ops/quant.h"
#include "passes/passes.h"
#include "ptq/classify.h"
#include "ptq/insert_qdq.h"
#include "ptq/mixed_precision.h"
#include "ptq/model_error.h"
#include "ptq/ranges.h"
#include "ptq/samples.h"
#include "ptq/weight_rounding.h"
#include "support/error.h"

namespace mlipc::ptq {

QuantizeReport quantize(Graph& g, const std::vector<std::vector<TensorData>>& inputs, const QuantizeOptions& given) {
  if (inputs.empty()) fail("the calibration set holds no sample");
  QuantizeOptions options = given;  // the report says which rounding Auto was
  options.weight_rounding = resolved_rounding(given);
  const Samples samples{inputs, options};
  const Graph fp32 = g;
  std::map<std::string, ops::QParam> ranges16;  // 16x8's parameters of the same ranges
  const std::map<std::string, ops::QParam> ranges = calibrate_ranges(g, samples, &ranges16);
  const std::vector<Layer> layers = find_layers(g);
  const bool wide = options.act_bits == 16 || options.try_16x8;
  const bool gptq = options.weight_rounding == WeightRounding::Gptq;
  Hessians hessians = gptq ? collect_hessians(g, layers, samples) : Hessians{};
  factor_hessians(hessians);
  const Hessians* rounding = gptq ? &hessians : nullptr;
  Precision precision = measure_layers(g, fp32, layers, ranges, samples, wide ? &ranges16 : nullptr, rounding);
  decide_same_scale(g, layers, precision);
  // The final insertion; a layer the whole graph's folding leaves float (it
  // does not meet a neighbour's condition) is taken out and the insertion
  // made again.
  Inserted ins;
  Graph qdq, folded_qdq;
  for (int attempt = 0;; ++attempt) {
    qdq = g;
    ins = insert_qdq(qdq, layers, precision.int8, ranges, WeightBits{precision.bits, options.weight_block, rounding},
                     Act16{precision.act16, &ranges16});
    Graph f = qdq;
    const std::vector<passes::FloatNote> notes = passes::fold_qdq(f);
    bool again = false;
    for (size_t k = 0; k < layers.size(); ++k) {
      if (!precision.int8[k] || layers[k].kind == Kind::Bracketed || folded(f, layers[k].name)) continue;
      precision.int8[k] = false;
      precision.why[k] = fold_reason(notes, layers[k].name);
      again = true;
    }
    if (!again || attempt > static_cast<int>(layers.size())) {
      folded_qdq = std::move(f);
      break;
    }
    decide_same_scale(g, layers, precision);
  }
  g = qdq;
  QuantizeReport r;
  r.options = options;
  r.options.progress = nullptr;
  r.samples = inputs.size();
  r.qdq = std::move(qdq);
  // --emit-qdq writes standard ONNX: the 4-bit marks go (the int8
  // DequantizeLinear of the weights states their values either way).
  for (Node& n : r.qdq.nodes) {
    n.attrs.erase(ops::kWeightBitsAttr);
    n.attrs.erase(ops::kWeightBlockAttr);
  }
  report_errors(fp32, g, folded_qdq, layers, ins, precision, samples, r);
  for (size_t k = 0; gptq && k < layers.size(); ++k) {
    if (!precision.int8[k]) continue;
    const std::string& node = layers[k].name;
    if (hessians.of(node)) ++r.gptq_layers;
    if (auto it = hessians.nearest.find(node); it != hessians.nearest.end()) r.rounded_nearest.emplace_back(node, it->second);
  }
  return r;
}

}  // namespace mlipc::ptq
