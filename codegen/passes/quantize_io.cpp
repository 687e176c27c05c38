// --io-dtype int8: the AOT entry reads and writes the quantized tensors
// themselves, for firmware that already holds int8 (a sensor's codes, the
// next stage's input). Each graph input must be read only by QuantizeLinear
// nodes of one constant per-tensor scale and zero point: they are dropped and
// the input becomes their int8/uint8 output. Each graph output must be written
// by a DequantizeLinear of the same kind: the output becomes its quantized
// input. The GraphIO keeps the scale and zero point for the header and
// metadata.json. Runs before fold_qdq, which then sees integer borders.
#include <fmt/format.h>

#include "ops/qlinear.h"
#include "passes/passes.h"
#include "support/error.h"

namespace mlipc::passes {

namespace {

// The constant per-tensor scale and zero point of a QuantizeLinear or
// DequantizeLinear node; empty, or why they are not.
std::string per_tensor(const Graph& g, const Node& n, float& scale, int32_t& zero_point) {
  if (!n.has_input(1)) return "it has no scale";
  const TensorData* s = g.value(n.inputs[1]).constant.get();
  if (!s) return "its scale is computed at run time";
  if (s->numel() != 1) return fmt::format("its scale has {} values (per axis)", s->numel());
  const TensorData* z = n.has_input(2) ? g.value(n.inputs[2]).constant.get() : nullptr;
  if (n.has_input(2) && !z) return "its zero point is computed at run time";
  scale = s->data<float>()[0];
  zero_point = z ? static_cast<int32_t>(z->as_int64()[0]) : 0;
  return "";
}

const char* kHint = "; compile with --io-dtype float32";

void quantize_inputs(Graph& g) {
  const auto consumers = g.consumers();
  std::vector<bool> dead(g.nodes.size(), false);
  for (GraphIO& in : g.inputs) {
    const std::string what = fmt::format("--io-dtype int8: input '{}'", in.name);
    const std::vector<int>& readers = consumers[static_cast<size_t>(in.value)];
    if (readers.empty() || g.is_graph_output(in.value))
      fail("{} is not quantized at the border ({}){}", what,
           readers.empty() ? "no node reads it" : "it is also a graph output", kHint);
    ValueId q = kNoValue;
    for (int r : readers) {
      const Node& n = g.nodes[static_cast<size_t>(r)];
      if (n.op != "QuantizeLinear" || n.inputs[0] != in.value)
        fail("{} is not quantized at the border: it feeds {}, not a QuantizeLinear{}", what, n.describe(), kHint);
      float s = 0.0f;
      int32_t z = 0;
      const std::string why = per_tensor(g, n, s, z);
      if (!why.empty()) fail("{}: {}: {}{}", what, n.describe(), why, kHint);
      const DType t = g.value(n.outputs[0]).dtype;
      if (!ops::is_quant_type(t))
        fail("{}: {} quantizes to {}, not int8 or uint8{}", what, n.describe(), dtype_name(t), kHint);
      if (q == kNoValue) {
        q = n.outputs[0];
        in.scale = s;
        in.zero_point = z;
      } else if (s != in.scale || z != in.zero_point || t != g.value(q).dtype) {
        fail("{} is quantized twice with different parameters (by {} and another QuantizeLinear){}", what,
             n.describe(), kHint);
      } else {  // a second, equal QuantizeLinear: its readers share the first's output
        g.replace_uses(n.outputs[0], q);
        for (GraphIO& o : g.outputs)
          if (o.value == n.outputs[0]) o.value = q;
      }
      dead[static_cast<size_t>(r)] = true;
    }
    in.value = q;
    in.quantized = true;
  }
  g.erase_nodes(dead);
}

void quantize_outputs(Graph& g) {
  const auto producers = g.producers();
  for (GraphIO& out : g.outputs) {
    const std::string what = fmt::format("--io-dtype int8: output '{}'", out.name);
    const int p = producers[static_cast<size_t>(out.value)];
    if (p < 0)
      fail("{} is not written by a DequantizeLinear (it is {}){}", what,
           g.value(out.value).is_constant() ? "a constant" : "an input", kHint);
    const Node& n = g.nodes[static_cast<size_t>(p)];
    if (n.op != "DequantizeLinear")
      fail("{} is not dequantized at the border: {} writes it, not a DequantizeLinear{}", what, n.describe(), kHint);
    float s = 0.0f;
    int32_t z = 0;
    const std::string why = per_tensor(g, n, s, z);
    if (!why.empty()) fail("{}: {}: {}{}", what, n.describe(), why, kHint);
    const DType t = g.value(n.inputs[0]).dtype;
    if (!ops::is_quant_type(t)) fail("{}: {} reads {}, not int8 or uint8{}", what, n.describe(), dtype_name(t), kHint);
    out.value = n.inputs[0];
    out.quantized = true;
    out.scale = s;
    out.zero_point = z;
  }
  g.remove_dead_nodes();
}

}  // namespace

void quantize_io(Graph& g) {
  quantize_inputs(g);
  quantize_outputs(g);
}

}  // namespace mlipc::passes
