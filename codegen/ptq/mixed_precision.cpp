#include "ptq/mixed_precision.h"

#include <cmath>
#include <map>
#include <set>

#include <fmt/format.h>

#include "ops/evaluator.h"
#include "ops/quant.h"
#include "ptq/insert_qdq.h"
#include "support/error.h"

namespace mlipc::ptq {

namespace {

using ops::QParam;

// A graph of one layer of g: its node (and fused activation) with the
// values it reads and writes; the computed inputs are graph inputs.
Graph extract(const Graph& g, const Layer& l) {
  Graph m;
  m.opset = g.opset;
  m.model_name = l.name;
  std::map<ValueId, ValueId> remap;
  auto map = [&](ValueId v) {
    if (v == kNoValue) return kNoValue;
    if (auto it = remap.find(v); it != remap.end()) return it->second;
    const Value& src = g.value(v);
    const ValueId nv = m.add_value(src.name, src.dtype);
    m.value(nv).shape = src.shape;
    m.value(nv).shape_known = src.shape_known;
    m.value(nv).constant = src.constant;
    remap[v] = nv;
    return nv;
  };
  std::vector<int> members = {l.node};
  if (l.act >= 0) members.push_back(l.act);
  std::set<ValueId> written;
  for (int i : members)
    for (ValueId o : g.nodes[static_cast<size_t>(i)].outputs) written.insert(o);
  for (int i : members) {
    Node n = g.nodes[static_cast<size_t>(i)];
    for (ValueId& v : n.inputs) {
      if (v != kNoValue && !g.value(v).is_constant() && !written.count(v) && !remap.count(v))
        m.inputs.push_back({g.value(v).name, map(v)});
      v = map(v);
    }
    for (ValueId& v : n.outputs) v = map(v);
    m.nodes.push_back(std::move(n));
  }
  m.outputs.push_back({g.value(l.out).name, remap.at(l.out)});
  return m;
}

std::string db_str(double db) { return std::isinf(db) ? (db > 0 ? "inf" : "-inf") : fmt::format("{:.1f}", db); }

}  // namespace

bool folded(const Graph& g, const std::string& name) {
  for (const Node& n : g.nodes)
    if (n.name == name && !n.outputs.empty() && n.outputs[0] != kNoValue && ops::is_act_type(g.value(n.outputs[0]).dtype))
      return true;
  return false;
}

std::string fold_reason(const std::vector<passes::FloatNote>& notes, const std::string& name) {
  const std::string key = fmt::format("node '{}'", name);
  for (const passes::FloatNote& f : notes)
    if (size_t at = f.why.find(key); at != std::string::npos) {
      std::string why = f.why.substr(at);
      if (size_t colon = why.find(": "); colon != std::string::npos) why = why.substr(colon + 2);
      if (size_t semi = why.find("; feeds "); semi != std::string::npos) why = why.substr(0, semi);
      return why;
    }
  return "fold_qdq does not fold it";
}

Precision measure_layers(const Graph& g, const Graph& fp32, const std::vector<Layer>& layers,
                         const std::map<std::string, QParam>& ranges, const Samples& samples,
                         const std::map<std::string, QParam>* ranges16, const Hessians* gptq) {
  const size_t n = layers.size();
  Precision p;
  p.int8.assign(n, false);
  p.why.assign(n, "");
  p.alone.assign(n, ErrorSum{});
  p.measured.assign(n, false);
  p.bits.assign(n, 8);
  p.act16.assign(n, false);
  struct Alone {
    size_t layer;
    int bits;
    bool act16;
    Graph graph;
    std::vector<ValueId> inputs;  // fp32's values feeding the graph's inputs
    ValueId ref;                  // fp32's value of the output
    ErrorSum error;
  };
  std::vector<Alone> alone;
  for (size_t k = 0; k < n; ++k) {
    const Layer& l = layers[k];
    if (l.kind == Kind::SameScale) continue;
    const bool four = samples.options.weight_bits == 4 && takes_4bit(g, g.nodes[static_cast<size_t>(l.node)]);
    // The forms to try, in order: (weight bits, 16x8).
    std::vector<std::pair<int, bool>> forms;
    if (samples.options.act_bits != 16) {
      if (four) forms.push_back({4, false});
      forms.push_back({8, false});
    }
    // A bracketed layer (LSTM, GRU): 8-bit pairs only (the MLIP's 8-bit
    // RNN layer); it stays float under --quantize int16x8.
    if (ranges16 && l.kind != Kind::Bracketed) forms.push_back({8, true});
    if (forms.empty()) p.why[k] = "16x8 has no recurrent form (its 8-bit pairs only)";
    std::string int8_why;  // an int8 form that did not fold: the 16x8 one may
    for (const auto& [bits, wide] : forms) {
      Graph m = extract(g, l);
      std::vector<Layer> ml = find_layers(m);
      if (ml.size() != 1) {
        p.why[k] = "internal: the layer alone is not one layer";
        break;
      }
      try {
        insert_qdq(m, ml, {true}, ranges, WeightBits{{bits}, samples.options.weight_block, gptq},
                   Act16{{wide}, ranges16});
        const std::vector<passes::FloatNote> notes = passes::fold_qdq(m);
        if (l.kind != Kind::Bracketed && !folded(m, l.name)) {
          p.why[k] = fold_reason(notes, l.name);
          if (wide && !int8_why.empty()) p.why[k] = int8_why;  // the int8 reason is the first
          if (!wide) int8_why = p.why[k];
          if (!wide && ranges16) continue;
          break;
        }
      } catch (const Error& e) {
        p.why[k] = e.what();
        if (!wide && ranges16) {
          int8_why = p.why[k];
          continue;
        }
        break;
      }
      Alone a{k, bits, wide, std::move(m), {}, fp32.find(g.value(l.out).name), {}};
      for (const GraphIO& in : a.graph.inputs) a.inputs.push_back(fp32.find(in.name));
      alone.push_back(std::move(a));
    }
  }
  samples.progress("layer errors", 0);
  for (size_t s = 0; s < samples.size(); ++s) {
    const std::vector<TensorData> env = samples.run_fp32(fp32, s);
    for (Alone& a : alone) {
      std::vector<TensorData> in;
      for (ValueId v : a.inputs) in.push_back(env[static_cast<size_t>(v)]);
      const std::vector<TensorData> out = evaluate(a.graph, in);
      a.error.add(env[static_cast<size_t>(a.ref)], out[0]);
    }
    samples.progress("layer errors", s + 1);
  }
  // Per layer its 4-bit form first (when measured), then its 8-bit one,
  // then 16x8: the first whose SQNR reaches the threshold.
  const double min_db = samples.options.min_sqnr_db;
  for (const Alone& a : alone) {
    const size_t k = a.layer;
    if (p.int8[k]) continue;  // an earlier form was taken
    const double db = a.error.sqnr();
    // A 16x8 try after a failed int8 one keeps the int8 figures unless taken.
    if (a.act16 && p.measured[k] && db < min_db) {
      p.why[k] += fmt::format(", and its 16x8 SQNR {} dB too", db_str(db));
      continue;
    }
    p.measured[k] = true;
    p.alone[k] = a.error;
    if (db >= min_db) {
      p.int8[k] = true;
      p.bits[k] = a.bits;
      p.act16[k] = a.act16;
      p.why[k].clear();
    } else {
      p.why[k] = fmt::format("its int8 SQNR {} dB is below {} dB", db_str(db), db_str(min_db));
      if (a.bits == 4) p.why[k] = fmt::format("its 4-bit SQNR {} dB is below {} dB", db_str(db), db_str(min_db));
      if (a.act16) p.why[k] = fmt::format("its 16x8 SQNR {} dB is below {} dB", db_str(db), db_str(min_db));
    }
  }
  return p;
}

// A layer that keeps the scale is int8 when an int8 layer writes its input
// or reads its output: alone it would only add a rounding.
void decide_same_scale(const Graph& g, const std::vector<Layer>& layers, Precision& p) {
  std::vector<bool>& int8 = p.int8;
  const auto producers = g.producers();
  const auto consumers = g.consumers();
  std::vector<int> layer_of(g.nodes.size(), -1);
  for (size_t k = 0; k < layers.size(); ++k) {
    layer_of[static_cast<size_t>(layers[k].node)] = static_cast<int>(k);
    if (layers[k].act >= 0) layer_of[static_cast<size_t>(layers[k].act)] = static_cast<int>(k);
  }
  auto int8_node = [&](int i) { return i >= 0 && layer_of[static_cast<size_t>(i)] >= 0 && int8[static_cast<size_t>(layer_of[static_cast<size_t>(i)])]; };
  for (size_t k = 0; k < layers.size(); ++k)
    if (layers[k].kind == Kind::SameScale && p.why[k].empty()) int8[k] = false;
  for (bool changed = true; changed;) {
    changed = false;
    for (size_t k = 0; k < layers.size(); ++k) {
      const Layer& l = layers[k];
      if (l.kind != Kind::SameScale || int8[k] || !p.why[k].empty()) continue;
      const ValueId in = g.nodes[static_cast<size_t>(l.node)].inputs[0];
      bool yes = int8_node(producers[static_cast<size_t>(in)]);
      for (int c : consumers[static_cast<size_t>(l.out)]) yes = yes || int8_node(c);
      if (yes) int8[k] = changed = true;
    }
  }
}

}  // namespace mlipc::ptq
