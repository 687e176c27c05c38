#include "mlip/support.h"

#include <algorithm>
#include <functional>
#include <iterator>

#include <fmt/format.h>

#include "mlip/activation.h"
#include "mlip/layer_kind.h"
#include "mlip/layers/rules.h"
#include "mlip/lower.h"
#include "ops/op.h"
#include "ops/qlinear.h"
#include "ops/quant.h"

namespace mlipc::mlip {

namespace {

// Every input and output of `n` that is not a constant.
std::vector<ValueId> tensors_of(const Graph& g, const Node& n) {
  std::vector<ValueId> v;
  for (ValueId in : n.inputs)
    if (in != kNoValue && !g.value(in).is_constant()) v.push_back(in);
  for (ValueId out : n.outputs)
    if (out != kNoValue) v.push_back(out);
  return v;
}

// Zero elements: nothing to compute, and the MLIP's commands have no empty
// form (docs/command-buffer.md), so such a node stays on the CPU.
std::string empty_tensor_reason(const Graph& g, const Node& n) {
  for (ValueId in : n.inputs)
    if (in != kNoValue && numel(g.value(in).shape) == 0)
      return fmt::format("zero-size tensor '{}' {}", g.value(in).name, shape_str(g.value(in).shape));
  for (ValueId out : n.outputs)
    if (out != kNoValue && numel(g.value(out).shape) == 0)
      return fmt::format("zero-size tensor '{}' {}", g.value(out).name, shape_str(g.value(out).shape));
  return "";
}

bool consumers_all(const Graph& g, const std::vector<std::vector<int>>& consumers, ValueId v,
                   const std::function<bool(int)>& pred) {
  if (g.is_graph_output(v) || consumers[v].empty()) return false;
  return std::all_of(consumers[v].begin(), consumers[v].end(), pred);
}

// Flatten, Reshape: the views the MLIP absorbs (a flatten into rows).
bool reshape_view(const Node& n) { return op_traits(n.op).view == View::Reshape; }

// Whether n reads a computed int8/uint8 (or 16x8's int16) tensor: an
// integer layer's node.
bool reads_q8(const Graph& g, const Node& n) {
  return std::any_of(n.inputs.begin(), n.inputs.end(), [&](ValueId v) {
    return v != kNoValue && !g.value(v).is_constant() && is_int_act_type(g.value(v).dtype);
  });
}

// The limits a node's rule sees: int8 ones for int8 nodes under
// -quantize=int8, fp16 ones otherwise.
SupportLimits limits_for(const TargetInfo& t, const Options& o, bool q8_node) {
  return SupportLimits{t, working_ocm_bytes(t, o), o.quantize == "int8" && (q8_node || !o.fp16_float_layers)};
}

// What a binary16 value of v would be, for the fp16 decisions' reasons.
std::string half_fate(float v) {
  return fmt::format("constant {:g} {} in binary16", v,
                     layers::half_underflows(v) ? "underflows to 0" : "overflows to infinity");
}

// Why a Div's guard (Add of eps) is folded into its command.
std::string guard_why(float eps, const std::string& div) {
  const bool lost = layers::half_underflows(eps) || layers::half_overflows(eps);
  return lost ? fmt::format("{}; Div '{}' adds it to its divisor in fp32 inside its command", half_fate(eps), div)
              : fmt::format("Div '{}' adds {:g} to its divisor in fp32 inside its command", div, eps);
}

std::string epsilon_why(float eps) {
  return fmt::format("{}; LAYERNORM adds it to the variance in fp32 inside its command", half_fate(eps));
}

// The Add of a decomposed LayerNormalization's epsilon (its scalar constant
// operand), or the pattern's last node.
int epsilon_add(const Graph& g, const layers::NormPattern& p) {
  for (int k : p.nodes) {
    const Node& a = g.nodes[static_cast<size_t>(k)];
    if (a.op != "Add") continue;
    for (ValueId v : a.inputs)
      if (v != kNoValue && g.value(v).is_constant() && g.value(v).dtype == DType::Float32 &&
          g.value(v).constant->numel() == 1 && static_cast<float>(g.value(v).constant->at(0)) == p.eps)
        return k;
  }
  return p.last;
}

}  // namespace

std::string unsupported_reason(const Graph& g, const Node& n, const Options& o) {
  if (std::string r = empty_tensor_reason(g, n); !r.empty()) return r;
  const TargetInfo& t = target_info(o.mcpu);
  const bool q8_node = reads_q8(g, n);
  // A region is all fp16 or all int8 (the header's quantize): with
  // -quantize=int8 only the integer operators that have an int8 layer, and
  // the float ones as fp16 layers in a model mlipc calibrated.
  const SupportLimits limits = limits_for(t, o, q8_node);
  if (o.quantize == "int8" && !q8_node && !o.fp16_float_layers)
    return fmt::format("{} on float tensors: -quantize=int8 runs only int8 layers", n.op);
  // 16x8: a Clip on int16 values that no producer took as its clamp is an
  // int16 ELTWISE layer of its own (layers/eltwise.cpp, clamp16).
  if (layers::clamp16(g, n)) {
    for (ValueId v : tensors_of(g, n))
      if (std::string r = layers::border_reason(g.value(v), limits.work_bytes); !r.empty()) return r;
    return layers::clamp16_reason(g, n, limits);
  }
  // A Transpose, Squeeze or Unsqueeze moves bytes (PERMUTE or a view, their
  // rules below: int8 tensors as they are).
  if (limits.int8 && !layer_kind_for_op(n.op) && !reshape_view(n) && n.op != "Transpose" &&
      op_traits(n.op).view == View::None)
    return fmt::format("{} has no int8 MLIP layer", n.op);
  // PTQ's 4-bit weights (--weight-bits 4): CONV2D and FC read them packed
  // (w4_block, layers::q8_weight_bytes); what fold_qdq leaves of a marked
  // Conv, Gemm or MatMul is a QLinearConv or QLinearMatMul, so any other
  // marked node is not one they take.
  if (n.attrs.get_int(ops::kWeightBitsAttr, 8) == 4 && n.op != "QLinearConv" && n.op != "QLinearMatMul")
    return fmt::format("{} with 4-bit weights (--weight-bits 4): the MLIP's 4-bit layers are CONV2D and FC only", n.op);
  // 16x8 (int16 activations): the MLIP's 16x8 layers are CONV2D and FC
  // (QLinearConv, its dense form included; its rule checks both sides),
  // MATMUL (QLinearMatMul: int16 by int16, or by constant int8), MAXPOOL
  // (MaxPool; the pool rule refuses a global window), AVGPOOL
  // (QLinearAveragePool; GLOBAL_AVGPOOL for a global window),
  // GLOBAL_AVGPOOL (QLinearGlobalAveragePool), ADD (QLinearAdd), ELTWISE
  // (QLinearMul; and a Clip, above) and TABLE (mlipc.QLinearLookup's 513
  // knots); a channel Concat and a Transpose, Slice, ... move two-byte
  // elements (CONCAT, PERMUTE), and
  // a view of int16 rows goes with its dense readers; every other node on
  // int16 runs on the CPU's 16x8 kernels.
  static const char* const kWide[] = {"QLinearConv",        "MaxPool",    "QLinearAveragePool",
                                      "QLinearGlobalAveragePool", "QLinearAdd", "QLinearMul", "QLinearMatMul",
                                      ops::kQLookupOp, "Concat", "Transpose", "Squeeze", "Unsqueeze", "Slice", "Split",
                                      "Gather", "Expand"};
  if (std::find(std::begin(kWide), std::end(kWide), n.op) == std::end(kWide) && !reshape_view(n))
    for (ValueId v : tensors_of(g, n))
      if (g.value(v).dtype == DType::Int16 && !g.value(v).is_constant())
        return fmt::format(
            "{} on int16 activations (16x8): the MLIP's 16x8 layers are CONV2D, FC, MATMUL, MAXPOOL, AVGPOOL, "
            "GLOBAL_AVGPOOL, ADD, ELTWISE (QLinearMul) and TABLE, and PERMUTE's moves, only; it runs on the CPU",
            n.op);
  if (!limits.int8 && q8_node) {
    const bool wide = std::any_of(n.inputs.begin(), n.inputs.end(), [&](ValueId v) {
      return v != kNoValue && !g.value(v).is_constant() && g.value(v).dtype == DType::Int16;
    });
    return fmt::format("{} on {} tensors needs -quantize=int8", n.op, wide ? "int16 (16x8)" : "int8");
  }
  for (ValueId v : tensors_of(g, n))
    if (std::string r = layers::border_reason(g.value(v), limits.work_bytes); !r.empty()) return r;
  if (const LayerKind* k = layer_kind_for_op(n.op)) {
    std::string r = k->support(g, n, limits);
    // An fp16 layer would change what the node means: its constant holds a
    // value binary16 cannot (an overflow; ELTWISE's own rule has underflows).
    if (r.empty() && !limits.int8) r = layers::half_overflow_reason(g, n);
    return r;
  }
  if (is_activation_op(n.op)) return "";                                          // decided with the producer
  if (reshape_view(n) || n.op == "Transpose") return "";  // decided with the consumer
  if (op_traits(n.op).view != View::None) return layers::move_reason(g, n, limits);  // Squeeze, Unsqueeze
  return fmt::format("{} has no MLIP equivalent", n.op);
}

Selection select_nodes(const Graph& g, const Options& o) {
  const auto consumers = g.consumers();
  const auto producers = g.producers();
  const size_t n = g.nodes.size();
  Selection s;
  s.chosen.assign(n, false);
  s.layer.assign(n, false);
  s.reason.assign(n, "");
  // Layers: their kind's rule.
  for (size_t i = 0; i < n; ++i) {
    const Node& node = g.nodes[i];
    if (!layer_kind_for_op(node.op)) continue;
    s.reason[i] = unsupported_reason(g, node, o);
    s.chosen[i] = s.reason[i].empty();
    s.layer[i] = true;
  }
  // Activations ride on a layer that fuses one, when they are its only
  // reader; otherwise they are an ACTIVATION layer of their own.
  const TargetInfo& target = target_info(o.mcpu);
  for (size_t i = 0; i < n; ++i) {
    const Node& a = g.nodes[i];
    const SupportLimits limits = limits_for(target, o, reads_q8(g, a));
    if (!is_activation_op(a.op)) continue;
    if (layers::clamp16(g, a)) {  // an int16 ELTWISE of its own: no int16 layer fuses an activation
      s.reason[i] = unsupported_reason(g, a, o);
      s.chosen[i] = s.reason[i].empty();
      s.layer[i] = true;
      continue;
    }
    std::string why = unsupported_reason(g, a, o);
    if (why.empty()) why = activation_reason(g, a);
    if (why.empty()) {
      const int p = producers[a.inputs[0]];
      const LayerKind* producer = p >= 0 && s.layer[p] ? layer_kind_for_op(g.nodes[p].op) : nullptr;
      const bool rides = producer && s.chosen[p] && producer->fuses_activation && consumers[a.inputs[0]].size() == 1 &&
                         !g.is_graph_output(a.inputs[0]);
      if (!rides) why = layer_kind(MLIP_LAYER_ACTIVATION).support(g, a, limits);
    }
    s.reason[i] = why;
    s.chosen[i] = why.empty();
  }
  // A guard folded into its Div (ELTWISE: the Add of an epsilon, the Sqrt)
  // goes where the Div goes.
  for (size_t i = 0; i < n; ++i) {
    if (g.nodes[i].op != "Div" || !s.chosen[i]) continue;
    if (const std::optional<layers::Guard> gd = layers::guard_of(g, consumers, producers, g.nodes[i])) {
      for (int k : {gd->add, gd->sqrt})
        if (k >= 0) {
          s.reason[static_cast<size_t>(k)] = "";
          s.chosen[static_cast<size_t>(k)] = true;
        }
      if (gd->add >= 0) {
        const Node& add = g.nodes[static_cast<size_t>(gd->add)];
        s.fp16.push_back({gd->add, {add.name, add.op, kGuardFolded, guard_why(gd->eps, g.nodes[i].name)}});
      }
    }
  }
  // A channel shuffle (Reshape, Transpose, Reshape) is one CHANNEL_SHUFFLE
  // layer: its three nodes are chosen together.
  std::vector<bool> in_shuffle(n, false);
  for (size_t i = 0; i < n; ++i) {
    const std::optional<layers::Shuffle> sh = layers::shuffle_at(g, consumers, producers, static_cast<int>(i));
    if (!sh || sh->reshape != static_cast<int>(i)) continue;
    std::string why = unsupported_reason(g, g.nodes[i], o);
    if (why.empty()) why = layers::shuffle_reason(g, *sh, limits_for(target, o, reads_q8(g, g.nodes[i])));
    for (int k : {sh->reshape, sh->transpose, sh->reshape_back}) {
      s.reason[static_cast<size_t>(k)] = why;
      s.chosen[static_cast<size_t>(k)] = why.empty();
      in_shuffle[static_cast<size_t>(k)] = true;
      s.layer[static_cast<size_t>(k)] = true;  // a layer: it anchors a region
    }
  }
  // A LayerNormalization that an exporter decomposed (ReduceMean, Sub, Pow,
  // ReduceMean, Add, Sqrt, Div, Mul, Add): one LAYERNORM layer, its nodes
  // chosen together (in fp32 inside the command: the epsilon keeps its
  // meaning, which an fp16 Add of it could not).
  for (const layers::NormPattern& p : layers::norm_patterns(g, consumers)) {
    const Node& first = g.nodes[static_cast<size_t>(p.nodes[0])];
    std::string why = empty_tensor_reason(g, first);
    const SupportLimits limits = limits_for(target, o, reads_q8(g, first));
    if (why.empty() && o.quantize == "int8" && !o.fp16_float_layers)
      why = "LayerNormalization on float tensors: -quantize=int8 runs only int8 layers";
    for (ValueId v : {p.x, p.y})
      if (why.empty()) why = layers::border_reason(g.value(v), limits.work_bytes);
    if (why.empty()) why = layers::norm_pattern_reason(g, p, limits);
    if (why.empty() && (layers::half_underflows(p.eps) || layers::half_overflows(p.eps))) {
      const int at = epsilon_add(g, p);
      const Node& add = g.nodes[static_cast<size_t>(at)];
      s.fp16.push_back({at, {add.name, add.op, kEpsilonFolded, epsilon_why(p.eps)}});
    }
    for (int k : p.nodes) {
      s.reason[static_cast<size_t>(k)] = why;
      s.chosen[static_cast<size_t>(k)] = why.empty();
      s.layer[static_cast<size_t>(k)] = true;
    }
  }
  // int8: a DequantizeLinear, Softmax, LayerNormalization, LSTM, GRU,
  // ReduceMean or ReduceSum, QuantizeLinear chain (the float operator of the
  // CPU's int8 build between its QDQ pairs) is one 8-bit SOFTMAX, LAYERNORM,
  // RNN or REDUCE layer: its three nodes chosen together (layers/rules.cpp,
  // softmax.cpp, layernorm.cpp, rnn.cpp, reduce.cpp). An LSTM or GRU outside
  // such a chain says why.
  if (o.quantize == "int8" && !o.fp16_float_layers)
    for (size_t i = 0; i < n; ++i) {
      const std::optional<layers::Q8Chain> p = layers::q8_chain_at(g, consumers, producers, static_cast<int>(i));
      const std::string& op = g.nodes[i].op;
      const bool recurrent = op == "LSTM" || op == "GRU";
      if (!p) {
        if (recurrent) s.reason[i] = layers::q8_rnn_missing(g, consumers, producers, g.nodes[i]);
        continue;
      }
      std::string why = empty_tensor_reason(g, g.nodes[i]);
      const SupportLimits limits = limits_for(target, o, true);
      if (why.empty())
        why = op == "Softmax"                ? layers::q8_softmax_reason(g, *p, limits)
              : recurrent                    ? layers::q8_rnn_reason(g, *p, limits)
              : op == "LayerNormalization"   ? layers::q8_norm_reason(g, *p, limits)
                                             : layers::q8_reduce_reason(g, *p, limits);
      if (!why.empty()) {
        s.reason[i] = why;
        continue;
      }
      for (int k : {p->dq, p->node, p->q}) {
        s.reason[static_cast<size_t>(k)] = "";
        s.chosen[static_cast<size_t>(k)] = true;
        s.layer[static_cast<size_t>(k)] = true;
      }
    }
  // Flatten/Reshape from NCHW to [N, C*H*W] feeding dense layers: absorbed by
  // reordering the dense weights into the NHWC order of the flattened tensor.
  for (size_t i = 0; i < n; ++i) {
    const Node& v = g.nodes[i];
    if (!reshape_view(v) || in_shuffle[i]) continue;
    std::string why = unsupported_reason(g, v, o);
    if (why.empty()) {
      const Value& in = g.value(v.inputs[0]);
      const Value& out = g.value(v.outputs[0]);
      bool ok = in.dtype == DType::Float32 && in.shape.size() == 4 && in.shape[0] <= kMaxBatch &&
                out.shape.size() == 2 && out.shape[0] == in.shape[0];
      ok = ok && consumers_all(g, consumers, v.outputs[0], [&](int c) {
             const Node& cn = g.nodes[static_cast<size_t>(c)];
             return (cn.op == "Gemm" || cn.op == "MatMul") && s.chosen[c] && cn.inputs[0] == v.outputs[0];
           });
      // int8 (the Reshapes passes/fold_qdq puts around a dense layer): a
      // view between row shapes, which moves nothing, or a flatten of NCHW
      // into rows that only int8 dense layers read (they reorder weights).
      // Any number of rows: an integer FC command takes them all (its OCM rule, layers/fc.cpp).
      if (is_int_act_type(in.dtype) && in.shape.size() >= 2 && layers::row_shape(out.shape) &&
          out.shape[0] == in.shape[0])
        ok = layers::row_shape(in.shape) ||
             (in.shape.size() == 4 && in.shape[0] <= kMaxBatch &&
              layers::q8_dense_readers(g, consumers, &s.chosen, v.outputs[0]));
      if (!ok) why = "the MLIP only absorbs a flatten that feeds dense layers";
    }
    // Otherwise a view of row-major bytes (a PERMUTE layer first when the
    // input is NHWC): layers/permute.cpp.
    if (!why.empty() && why == "the MLIP only absorbs a flatten that feeds dense layers") {
      const std::string moved = layers::move_reason(g, v, limits_for(target, o, reads_q8(g, v)));
      if (moved.empty()) why = "";
    }
    s.reason[i] = why;
    s.chosen[i] = why.empty();
  }
  // Squeeze and Unsqueeze: views of row-major bytes.
  for (size_t i = 0; i < n; ++i) {
    const Node& v = g.nodes[i];
    if (op_traits(v.op).view != View::Axes || in_shuffle[i]) continue;
    s.reason[i] = unsupported_reason(g, v, o);
    s.chosen[i] = s.reason[i].empty();
  }
  // Transpose NCHW -> NHWC before such a flatten (TensorFlow-style exports)
  // is the MLIP's own layout: it costs nothing, and the flatten then needs
  // no weight reordering.
  for (size_t i = 0; i < n; ++i) {
    const Node& t = g.nodes[i];
    if (t.op != "Transpose" || in_shuffle[i]) continue;
    std::string why = unsupported_reason(g, t, o);
    if (why.empty()) {
      const Value& in = g.value(t.inputs[0]);
      bool ok = in.dtype == DType::Float32 && in.shape.size() == 4 && in.shape[0] <= kMaxBatch &&
                t.attrs.get_ints("perm", {}) == std::vector<int64_t>{0, 2, 3, 1};
      ok = ok && consumers_all(g, consumers, t.outputs[0], [&](int c) {
             const Node& cn = g.nodes[static_cast<size_t>(c)];
             return reshape_view(cn) && s.chosen[c];
           });
      if (!ok) why = "the MLIP only absorbs a transpose to NHWC that feeds a flatten of a dense layer";
    }
    // Otherwise any permutation: a view or a PERMUTE layer (layers/permute.cpp),
    // which anchors a region like any layer.
    if (!why.empty() && why == "the MLIP only absorbs a transpose to NHWC that feeds a flatten of a dense layer") {
      why = layers::move_reason(g, t, limits_for(target, o, reads_q8(g, t)));
      s.layer[i] = why.empty();
    }
    s.reason[i] = why;
    s.chosen[i] = why.empty();
  }
  // int8: float arithmetic that passes/fold_qdq left between QDQ pairs with
  // the elementwise integer nodes around it (GELU) is one TABLE layer; a
  // float Split between QDQ pairs (attention's q, k, v) is PERMUTE copies
  // and requantizing TABLEs (layers/q8_lookup.cpp, q8_split.cpp). Their
  // nodes are chosen together, after the views' rules above (a Squeeze of
  // the Split is one of its nodes).
  if (o.quantize == "int8" && !o.fp16_float_layers) {
    const SupportLimits limits = limits_for(target, o, true);
    // The chains chosen, with each node's own decision before (restored if
    // the chain cannot be one layer after all).
    struct Before {
      int node;
      bool chosen, layer;
      std::string reason;
    };
    std::vector<std::vector<Before>> chains;
    auto choose = [&](const std::vector<int>& nodes, std::vector<ValueId> border, std::string why) {
      for (int k : nodes)
        if (why.empty()) why = empty_tensor_reason(g, g.nodes[static_cast<size_t>(k)]);
      for (ValueId v : border)
        if (why.empty()) why = layers::border_reason(g.value(v), limits.work_bytes);
      if (why.empty()) {
        chains.emplace_back();
        for (int k : nodes)
          chains.back().push_back(
              {k, s.chosen[static_cast<size_t>(k)], s.layer[static_cast<size_t>(k)], s.reason[static_cast<size_t>(k)]});
      }
      for (int k : nodes) {
        if (!why.empty()) {
          if (!s.chosen[static_cast<size_t>(k)] && s.reason[static_cast<size_t>(k)].empty())
            s.reason[static_cast<size_t>(k)] = why;
          continue;
        }
        s.reason[static_cast<size_t>(k)] = "";
        s.chosen[static_cast<size_t>(k)] = true;
        s.layer[static_cast<size_t>(k)] = true;
      }
    };
    for (const layers::Q8Lookup& c : layers::q8_lookups(g, consumers, producers))
      choose(c.nodes, {c.x, c.y}, layers::q8_lookup_reason(g, c, limits));
    // onnxruntime's int8 LayerNorm decomposition: one 8-bit NORM (mode 1);
    // after the lookups, whose choice of its divisor nodes it overrides
    for (const layers::Q8NormDecomposed& p : layers::q8_norms_decomposed(g, consumers, producers))
      choose(p.nodes, {g.nodes[static_cast<size_t>(p.dq)].inputs[0], g.nodes[static_cast<size_t>(p.q)].outputs[0]},
             layers::q8_norm_decomposed_reason(g, p, limits));
    for (const layers::Q8Split& sp : layers::q8_splits(g, consumers, producers)) {
      std::vector<int> nodes = {sp.dq, sp.split};
      std::vector<ValueId> border = {g.nodes[static_cast<size_t>(sp.dq)].inputs[0]};
      for (const std::vector<int>& chain : sp.outputs) {
        nodes.insert(nodes.end(), chain.begin(), chain.end());
        border.push_back(g.nodes[static_cast<size_t>(chain.back())].outputs[0]);
      }
      choose(nodes, border, layers::q8_split_reason(g, sp, limits));
    }
    // A region is a run of consecutive nodes of the schedule: a node between
    // a chain's nodes that stays on the CPU would cut the chain across two
    // regions (with float tensors at their border), so the chain is no
    // layer: its nodes take their own decisions back (a float node stays on
    // the CPU, saying why).
    for (bool changed = true; changed;) {
      changed = false;
      for (std::vector<Before>& nodes : chains) {
        if (nodes.empty()) continue;
        int lo = nodes[0].node, hi = nodes[0].node;
        for (const Before& b : nodes) {
          lo = std::min(lo, b.node);
          hi = std::max(hi, b.node);
        }
        for (int k = lo; k <= hi; ++k) {
          if (s.chosen[static_cast<size_t>(k)]) continue;
          const std::string why = fmt::format("node '{}' between the nodes of its int8 chain runs on the CPU",
                                              g.nodes[static_cast<size_t>(k)].name);
          for (const Before& b : nodes) {
            s.chosen[static_cast<size_t>(b.node)] = b.chosen;
            s.layer[static_cast<size_t>(b.node)] = b.layer;
            s.reason[static_cast<size_t>(b.node)] = b.chosen ? b.reason : why;
          }
          nodes.clear();
          changed = true;
          break;
        }
      }
    }
  }
  for (size_t i = 0; i < n; ++i)
    if (!s.chosen[i] && s.reason[i].empty()) s.reason[i] = unsupported_reason(g, g.nodes[i], o);
  // The fp16 decisions: LayerNormalization's epsilon (added in fp32 by
  // LAYERNORM), and the nodes a constant binary16 cannot hold keeps in float.
  for (size_t i = 0; i < n; ++i) {
    const Node& node = g.nodes[i];
    if (s.chosen[i] && node.op == "LayerNormalization") {
      const float eps = node.attrs.get_float("epsilon", 1e-5f);
      if (layers::half_underflows(eps) || layers::half_overflows(eps))
        s.fp16.push_back({static_cast<int>(i), {node.name, node.op, kEpsilonFolded, epsilon_why(eps)}});
    }
    const std::string& r = s.reason[i];
    if (!s.chosen[i] && r.find(layers::kHalfConstantEnd) != std::string::npos) {
      const std::string tail = layers::kStaysInFloat;
      const bool ends = r.size() >= tail.size() && r.compare(r.size() - tail.size(), tail.size(), tail) == 0;
      s.fp16.push_back({static_cast<int>(i), {node.name, node.op, kKeptInFloat, ends ? r.substr(0, r.size() - tail.size()) : r}});
    }
  }
  std::stable_sort(s.fp16.begin(), s.fp16.end(), [](const auto& a, const auto& b) { return a.first < b.first; });
  return s;
}

}  // namespace mlipc::mlip
