#include "mesh/cpu_cost.h"

#include <algorithm>

namespace mlipc::mesh {

uint64_t cpu_macs(const Graph& g, const Node& n) {
  if (n.outputs.empty() || n.inputs.size() < 2 || n.outputs[0] == kNoValue) return 0;
  const Value& out = g.value(n.outputs[0]);
  const uint64_t out_elems = static_cast<uint64_t>(numel(out.shape));
  const bool conv = n.op == "Conv" || n.op == "QLinearConv" || n.op == "ConvInteger" || n.op == "ConvTranspose";
  const bool dense = n.op == "Gemm" || n.op == "MatMul" || n.op == "QLinearMatMul" || n.op == "MatMulInteger";
  // QLinear* take (x, x_scale, x_zero_point, w, ...): the weight is input 3.
  const ValueId w = n.op.rfind("QLinear", 0) == 0 ? (n.inputs.size() > 3 ? n.inputs[3] : kNoValue) : n.inputs[1];
  if (w == kNoValue) return 0;
  const Shape& ws = g.value(w).shape;
  if (conv && ws.size() >= 2) {
    // Conv: each output element sums the weight's elements per output
    // channel; ConvTranspose: each input element scatters as many.
    const uint64_t per_channel = static_cast<uint64_t>(numel(ws) / std::max<int64_t>(1, ws[0]));
    const uint64_t base = n.op == "ConvTranspose" ? static_cast<uint64_t>(numel(g.value(n.inputs[0]).shape)) : out_elems;
    return base * per_channel;
  }
  if (dense && !ws.empty()) {
    const Shape& a = g.value(n.inputs[0]).shape;
    const bool trans_a = n.op == "Gemm" && n.attrs.get_int("transA", 0) != 0;
    const int64_t k = a.empty() ? 1 : (trans_a && a.size() >= 2 ? a[a.size() - 2] : a.back());
    return out_elems * static_cast<uint64_t>(k);
  }
  return 0;
}

uint64_t cpu_cycles(const Graph& g, const Node& n) {
  if (const uint64_t macs = cpu_macs(g, n)) return kCyclesPerLayer + macs * kCyclesPerMac;
  uint64_t elems = 0;
  for (const std::vector<ValueId>* list : {&n.inputs, &n.outputs})
    for (ValueId v : *list)
      if (v != kNoValue) elems += static_cast<uint64_t>(numel(g.value(v).shape));
  return kCyclesPerLayer + elems * kCyclesPerElement;
}

}  // namespace mlipc::mesh
