#include "mesh/units.h"

#include <algorithm>
#include <map>
#include <set>

#include "mesh/cpu_cost.h"
#include "mesh/stage_graph.h"
#include "mlip/backend.h"
#include "mlip/layer_kind.h"
#include "ops/op.h"
#include "support/error.h"

namespace mlipc::mesh {

namespace {

// Bytes of a value as a unit holds it: MLIP layers keep float tensors and
// weights in fp16 (biases, int32, stay 4 bytes).
uint64_t held_bytes(const Value& v, bool mlip) {
  if (mlip && dtype_is_float(v.dtype)) return static_cast<uint64_t>(numel(v.shape)) * 2;
  return v.nbytes();
}

// The estimated border conversion of `bytes` of fp32 at a region's edge:
// DMA of the fp32 and fp16 copies over the tiles, plus a few commands.
uint64_t border_estimate(const mlip::TargetInfo& t, int tiles, uint64_t bytes) {
  const uint64_t per_tile = (bytes + bytes / 2 + static_cast<uint64_t>(tiles) - 1) / static_cast<uint64_t>(tiles);
  return 4ull * t.cmd_overhead_cycles + (per_tile + t.dma_bytes_per_cycle - 1) / std::max(1u, t.dma_bytes_per_cycle);
}

std::vector<UnitInfo> make_units(const driver::CompileResult& whole) {
  std::vector<UnitInfo> units;
  uint64_t pending = 0;  // a region's input conversion: the first layer's
  for (const c::Layer& l : whole.module.layers) {
    const Node& n = whole.graph.nodes[static_cast<size_t>(l.node)];
    if (const auto* region = dynamic_cast<const mlip::CompiledRegion*>(n.compiled.get())) {
      const mlip::RegionReport& rep = region->report;
      size_t layers = 0;
      for (const mlip::LayerReport& lr : rep.layers) layers += lr.origins.empty() ? 0 : 1;
      // The command records, spread over the layers (weights are counted per node).
      const uint64_t commands = rep.bin_size > rep.weight_bytes ? (rep.bin_size - rep.weight_bytes) / std::max<size_t>(1, layers) : 0;
      for (const mlip::LayerReport& lr : rep.layers) {
        if (lr.origins.empty()) {
          if (lr.kind == mlip::layer_kind(MLIP_LAYER_CONVERT_IN).name || units.empty()) pending += lr.est_cycles;
          else units.back().unit.cycles += lr.est_cycles;
          continue;
        }
        UnitInfo u;
        u.mlip = true;
        u.origins = lr.origins;
        u.unit.name = lr.origins.front();
        u.unit.cycles = lr.est_cycles + pending;
        u.unit.const_bytes = commands;
        pending = 0;
        units.push_back(std::move(u));
      }
      continue;
    }
    if (l.origins.empty() && !units.empty()) {  // a copy the passes added: part of the layer before
      units.back().unit.cycles += cpu_cycles(whole.graph, n);
      continue;
    }
    UnitInfo u;
    u.origins = l.origins;
    u.unit.name = l.origins.empty() ? n.describe() : l.origins.front();
    u.unit.cycles = cpu_cycles(whole.graph, n) + pending;
    pending = 0;
    units.push_back(std::move(u));
  }
  if (units.empty()) fail("--pes: the model has no layer to place on a PE");
  units.back().unit.cycles += pending;
  return units;
}

// A unit that no node of the prepared graph maps to would be a stage of
// nothing (a module with no layer and no tensor, which the runtime refuses):
// the QuantizeLinear post-training quantization puts at a model input has
// no ONNX origin, and node_stages puts such a node with its first reader.
// Its cost and origins go to the next unit (after the last unit: the one
// before), and node_unit is renumbered.
void fold_nodeless_units(Model& m) {
  std::vector<bool> owned(m.units.size(), false);
  for (int u : m.node_unit)
    if (u >= 0) owned[static_cast<size_t>(u)] = true;
  std::vector<UnitInfo> kept;
  std::vector<int> renumber(m.units.size(), -1);
  UnitInfo carry;
  auto take = [](UnitInfo& into, UnitInfo& from) {
    into.unit.cycles += from.unit.cycles;
    into.unit.const_bytes += from.unit.const_bytes;
    into.origins.insert(into.origins.end(), from.origins.begin(), from.origins.end());
    from = UnitInfo{};
  };
  for (size_t u = 0; u < m.units.size(); ++u) {
    if (!owned[u]) {
      take(carry, m.units[u]);
      continue;
    }
    renumber[u] = static_cast<int>(kept.size());
    kept.push_back(std::move(m.units[u]));
    take(kept.back(), carry);
  }
  if (kept.empty()) fail("--pes: the model has no layer to place on a PE");
  take(kept.back(), carry);
  m.units = std::move(kept);
  for (int& u : m.node_unit)
    if (u >= 0) u = renumber[static_cast<size_t>(u)];
}

void fill_unit_costs(Model& m, const mlip::TargetInfo& t, int tiles) {
  const Graph& g = *m.pre;
  const auto producers = g.producers();
  // Memory of each unit from its nodes.
  std::vector<std::set<ValueId>> held(m.units.size());
  for (size_t k = 0; k < g.nodes.size(); ++k) {
    const int u = m.node_unit[k];
    if (u < 0) continue;
    UnitInfo& info = m.units[static_cast<size_t>(u)];
    for (ValueId v : g.nodes[k].inputs)
      if (v != kNoValue && g.value(v).is_constant()) info.unit.const_bytes += held_bytes(g.value(v), info.mlip);
    for (const auto* list : {&g.nodes[k].inputs, &g.nodes[k].outputs})
      for (ValueId v : *list)
        if (v != kNoValue && !g.value(v).is_constant()) held[static_cast<size_t>(u)].insert(v);
  }
  for (size_t u = 0; u < m.units.size(); ++u)
    for (ValueId v : held[u]) m.units[u].unit.work_bytes += held_bytes(g.value(v), m.units[u].mlip);
  // Each cut: what crosses it, what it costs.
  std::vector<int> unit_stage(m.units.size());
  for (size_t i = 0; i + 1 < m.units.size(); ++i) {
    for (size_t u = 0; u < m.units.size(); ++u) unit_stage[u] = u <= i ? 0 : 1;
    Unit& cut = m.units[i].unit;
    const std::vector<int> st = node_stages(g, m.node_unit, unit_stage);
    if (st.empty()) {
      cut.cut_after = false;
      continue;
    }
    const auto consumers = g.consumers();
    for (ValueId v : crossing(g, st)) {
      const int p = producers[static_cast<size_t>(v)];
      // A stage may end where every tensor it hands on is a layer's result,
      // not data movement's (a view, Transpose, Identity): a dense layer reads
      // a flattened tensor in the MLIP's order, a copy in the ONNX order
      // would sum in another order.
      if (op_traits(g.nodes[static_cast<size_t>(p)].op).rearranges) cut.cut_after = false;
      cut.cut_bytes += g.value(v).nbytes();
      const int pu = m.node_unit[static_cast<size_t>(p)];
      if (pu >= 0 && m.units[static_cast<size_t>(pu)].mlip) cut.cut_out_cycles += border_estimate(t, tiles, g.value(v).nbytes());
      bool mlip_reader = false;
      for (int c : consumers[static_cast<size_t>(v)]) {
        const int cu = m.node_unit[static_cast<size_t>(c)];
        mlip_reader = mlip_reader || (st[static_cast<size_t>(c)] > 0 && cu >= 0 && m.units[static_cast<size_t>(cu)].mlip);
      }
      if (mlip_reader) cut.cut_in_cycles += border_estimate(t, tiles, g.value(v).nbytes());
    }
  }
}

}  // namespace

Model make_model(const driver::CompileResult& prepared, const driver::CompileResult& whole, const mlip::TargetInfo& t,
                 int tiles) {
  Model m;
  m.pre = &prepared.graph;
  m.units = make_units(whole);
  std::map<std::string, int> origin_unit;
  for (size_t u = 0; u < m.units.size(); ++u)
    for (const std::string& o : m.units[u].origins) origin_unit.emplace(o, static_cast<int>(u));
  for (const Node& n : prepared.graph.nodes) {
    int u = -1;
    for (const std::string& o : n.origins)
      if (auto it = origin_unit.find(o); it != origin_unit.end()) u = it->second;
    m.node_unit.push_back(u);
  }
  fold_nodeless_units(m);
  fill_unit_costs(m, t, tiles);
  return m;
}

}  // namespace mlipc::mesh
