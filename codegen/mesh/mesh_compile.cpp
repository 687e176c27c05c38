#include "mesh/mesh_compile.h"

#include <algorithm>
#include <cctype>
#include <climits>
#include <memory>
#include <set>
#include <tuple>

#include <fmt/format.h>

#include "mesh/cpu_cost.h"
#include "mesh/pe_partition.h"
#include "mlip/backend.h"
#include "mlip/layer_kind.h"
#include "ops/op.h"
#include "resources/resources.h"
#include "support/error.h"
#include "support/text.h"

namespace mlipc::mesh {

namespace {

// A unit of the whole model's schedule (an MLIP layer or a CPU layer) and
// the ONNX nodes it stands for.
struct UnitInfo {
  Unit unit;
  bool mlip = false;
  std::vector<std::string> origins;
};

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

// The estimated cycles of a compiled model as one stage: its MLIP regions'
// (border conversions included) and its CPU layers' (cpu_cost.h).
uint64_t model_cycles(const driver::CompileResult& r) {
  uint64_t cycles = 0;
  for (const c::Layer& l : r.module.layers) {
    const Node& n = r.graph.nodes[static_cast<size_t>(l.node)];
    if (const auto* region = dynamic_cast<const mlip::CompiledRegion*>(n.compiled.get()))
      cycles += region->report.est_cycles;
    else
      cycles += cpu_cycles(r.graph, n);
  }
  return cycles;
}

StageMemory model_memory(const driver::CompileResult& r) {
  StageMemory m;
  m.workspace = r.module.workspace_size;
  m.constants = r.module.constants_size;
  for (const auto* list : {&r.module.inputs, &r.module.outputs})
    for (const c::IoInfo& io : *list) m.io += io.size_bytes;
  m.runtime = kRuntimeBytes;
  return m;
}

// ONNX nodes each compiled model runs on the MLIP.
std::set<std::string> mlip_origins(const driver::CompileResult& r) {
  std::set<std::string> s;
  for (const auto& region : r.mlip.regions)
    for (const mlip::LayerReport& l : region->report.layers) s.insert(l.origins.begin(), l.origins.end());
  return s;
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

// The stage of every node of `g` given each unit's stage; -1 on a node
// whose inputs would come from a later stage (a cut that cannot be).
std::vector<int> node_stages(const Graph& g, const std::vector<int>& node_unit, const std::vector<int>& unit_stage) {
  const size_t n = g.nodes.size();
  const auto consumers = g.consumers();
  const auto producers = g.producers();
  std::vector<int> st(n, -1);
  for (size_t i = 0; i < n; ++i)
    if (node_unit[i] >= 0) st[i] = unit_stage[static_cast<size_t>(node_unit[i])];
  // A node that is no layer of its own (a view) goes with its first reader.
  for (size_t k = n; k-- > 0;) {
    if (st[k] >= 0) continue;
    int m = INT_MAX;
    for (ValueId v : g.nodes[k].outputs)
      if (v != kNoValue)
        for (int c : consumers[static_cast<size_t>(v)])
          if (st[static_cast<size_t>(c)] >= 0) m = std::min(m, st[static_cast<size_t>(c)]);
    if (m != INT_MAX) st[k] = m;
  }
  for (size_t k = 0; k < n; ++k) {
    if (st[k] >= 0) continue;
    int m = 0;
    for (ValueId v : g.nodes[k].inputs)
      if (v != kNoValue && producers[static_cast<size_t>(v)] >= 0) m = std::max(m, st[static_cast<size_t>(producers[static_cast<size_t>(v)])]);
    st[k] = m;
  }
  for (size_t k = 0; k < n; ++k)
    for (ValueId v : g.nodes[k].inputs)
      if (v != kNoValue && producers[static_cast<size_t>(v)] >= 0 && st[static_cast<size_t>(producers[static_cast<size_t>(v)])] > st[k])
        return {};
  return st;
}

// Values computed in one stage and read in a later one.
std::vector<ValueId> crossing(const Graph& g, const std::vector<int>& st) {
  const auto producers = g.producers();
  std::set<ValueId> out;
  for (size_t k = 0; k < g.nodes.size(); ++k)
    for (ValueId v : g.nodes[k].inputs)
      if (v != kNoValue && producers[static_cast<size_t>(v)] >= 0 && st[static_cast<size_t>(producers[static_cast<size_t>(v)])] < st[k])
        out.insert(v);
  return {out.begin(), out.end()};
}

struct Model {
  const Graph* pre = nullptr;        // after the target-independent passes
  std::vector<UnitInfo> units;
  std::vector<int> node_unit;        // per node of *pre, -1: no layer of its own
};

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

// The tensors of the pipeline for a stage assignment: the model's inputs,
// then each stage's results that a later stage or the host reads.
std::vector<PipeTensor> pipe_tensors(const Graph& g, const std::vector<int>& st, std::vector<ValueId>& values) {
  const auto producers = g.producers();
  const auto consumers = g.consumers();
  std::vector<PipeTensor> tensors;
  auto readers = [&](ValueId v, int after) {
    std::set<int> s;
    for (int c : consumers[static_cast<size_t>(v)])
      if (st[static_cast<size_t>(c)] > after) s.insert(st[static_cast<size_t>(c)]);
    return std::vector<int>(s.begin(), s.end());
  };
  for (const GraphIO& io : g.inputs) {
    PipeTensor t;
    const Value& v = g.value(io.value);
    t.name = io.name;
    t.dtype = v.dtype;
    t.shape = v.shape;
    t.bytes = v.nbytes();
    t.producer = kHost;
    t.consumers = readers(io.value, -1);
    if (t.consumers.empty()) t.consumers = {0};  // read by nothing: the first stage takes it
    tensors.push_back(t);
    values.push_back(io.value);
  }
  std::vector<ValueId> candidates = crossing(g, st);
  for (const GraphIO& io : g.outputs) candidates.push_back(io.value);
  std::set<ValueId> seen;
  // In schedule order of their producers, each once.
  std::vector<std::pair<int, ValueId>> order;
  for (ValueId v : candidates) {
    if (!seen.insert(v).second) continue;
    const int p = producers[static_cast<size_t>(v)];
    if (p < 0)
      fail("--pes: output '{}' is not computed by any node (an input or a constant); such a model runs on one PE only",
           printable(g.value(v).name));
    order.emplace_back(p, v);
  }
  std::sort(order.begin(), order.end());
  for (const auto& [p, v] : order) {
    PipeTensor t;
    const Value& val = g.value(v);
    t.name = val.name;
    for (const GraphIO& io : g.outputs)
      if (io.value == v) t.name = io.name;  // a model output keeps the model's name
    t.dtype = val.dtype;
    t.shape = val.shape;
    t.bytes = val.nbytes();
    t.producer = st[static_cast<size_t>(p)];
    t.consumers = readers(v, t.producer);
    if (g.is_graph_output(v)) t.consumers.push_back(kHost);
    tensors.push_back(t);
    values.push_back(v);
  }
  return tensors;
}

// Stage s of `g` as a graph of its own: its nodes, its inputs and outputs
// the pipeline's tensors (quantized model inputs and outputs keep their
// scale and zero point).
Graph stage_graph(const Graph& g, const std::vector<int>& st, int s, const std::vector<PipeTensor>& tensors,
                  const std::vector<ValueId>& values) {
  Graph out;
  out.opset = g.opset;
  out.model_name = g.model_name;
  out.source_nodes = g.source_nodes;
  std::map<ValueId, ValueId> map;
  std::map<ValueId, std::string> rename;  // a model output another stage reads arrives under its model name
  for (size_t t = 0; t < tensors.size(); ++t)
    if (tensors[t].producer != s && tensors[t].producer != kHost) rename[values[t]] = tensors[t].name;
  auto value = [&](ValueId v) {
    if (v == kNoValue) return kNoValue;
    auto it = map.find(v);
    if (it != map.end()) return it->second;
    const Value& src = g.value(v);
    const ValueId id = out.add_value(rename.count(v) ? rename[v] : src.name, src.dtype);
    Value& dst = out.value(id);
    dst.shape = src.shape;
    dst.shape_known = src.shape_known;
    dst.constant = src.constant;
    dst.declared_shape = src.declared_shape;
    map[v] = id;
    return id;
  };
  auto graph_io = [&](size_t t, const std::vector<GraphIO>& model_ios) {
    GraphIO io;
    io.name = tensors[t].name;
    io.value = value(values[t]);
    for (const GraphIO& m : model_ios)
      if (m.value == values[t] && m.name == tensors[t].name) {
        io.quantized = m.quantized;
        io.scale = m.scale;
        io.zero_point = m.zero_point;
      }
    return io;
  };
  for (size_t t = 0; t < tensors.size(); ++t)
    if (std::find(tensors[t].consumers.begin(), tensors[t].consumers.end(), s) != tensors[t].consumers.end())
      out.inputs.push_back(graph_io(t, g.inputs));
  for (size_t k = 0; k < g.nodes.size(); ++k) {
    if (st[k] != s) continue;
    Node n = g.nodes[k];
    for (ValueId& v : n.inputs) v = value(v);
    for (ValueId& v : n.outputs) v = value(v);
    out.nodes.push_back(std::move(n));
  }
  for (size_t t = 0; t < tensors.size(); ++t)
    if (tensors[t].producer == s) out.outputs.push_back(graph_io(t, g.outputs));
  return out;
}

std::vector<std::string> layer_lines(const driver::CompileResult& r) {
  std::vector<std::string> lines;
  auto join = [](const std::vector<std::string>& v) {
    std::string s;
    for (const std::string& x : v) s += (s.empty() ? "" : ", ") + x;
    return s;
  };
  for (const c::Layer& l : r.module.layers) {
    const Node& n = r.graph.nodes[static_cast<size_t>(l.node)];
    if (const auto* region = dynamic_cast<const mlip::CompiledRegion*>(n.compiled.get())) {
      for (const mlip::LayerReport& lr : region->report.layers)
        lines.push_back(fmt::format("mlip {} {} cycles: {}", lr.kind, lr.est_cycles,
                                    lr.origins.empty() ? "(region border)" : join(lr.origins)));
      continue;
    }
    lines.push_back(fmt::format("cpu {} {} cycles: {}", l.op, cpu_cycles(r.graph, n), join(l.origins)));
  }
  return lines;
}

}  // namespace

uint64_t parse_memory_size(const std::string& text) {
  size_t i = 0;
  while (i < text.size() && std::isdigit(static_cast<unsigned char>(text[i]))) ++i;
  const std::string digits = text.substr(0, i), unit = text.substr(i);
  uint64_t scale = 0;
  if (unit.empty() || unit == "B") scale = 1;
  else if (unit == "K" || unit == "KiB" || unit == "k" || unit == "KB") scale = 1024;
  else if (unit == "M" || unit == "MiB" || unit == "MB") scale = 1024 * 1024;
  else if (unit == "G" || unit == "GiB" || unit == "GB") scale = 1024ull * 1024 * 1024;
  if (digits.empty() || digits.size() > 12 || scale == 0)
    fail("--pe-memory '{}': give bytes, or a size in KiB, MiB or GiB (512KiB, 1MiB)", printable(text));
  const uint64_t v = std::stoull(digits) * scale;
  if (v == 0) fail("--pe-memory '{}' must be more than 0", printable(text));
  return v;
}

MeshResult compile_mesh(const std::filesystem::path& onnx, const driver::CompileOptions& options,
                        const MeshOptions& mesh) {
  if (mesh.pes < 1) fail("--pes {} must be at least 1", mesh.pes);
  if (mesh.pes > 4096) fail("--pes {}: at most 4096 stages", mesh.pes);
  if (!options.cross.empty()) fail("--pes: cross builds (--cross-compiler, --target-llvm-*) are not supported for a mesh");
  const driver::CompileResult prepared = driver::import_model(onnx, options);
  driver::CompileResult whole = prepared;
  driver::compile_graph(whole, options);

  const mlip::TargetInfo& t = mlip::target_info(options.mlip.mcpu);
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
  fill_unit_costs(m, t, options.mlip.num_tiles);

  Request req;
  for (const UnitInfo& u : m.units) req.units.push_back(u.unit);
  req.pes = mesh.pes;
  req.memory_limit = mesh.pe_memory;
  req.fixed_bytes = kRuntimeBytes;
  for (const c::IoInfo& io : whole.module.inputs) req.input_bytes += io.size_bytes;
  for (const c::IoInfo& io : whole.module.outputs) req.output_bytes += io.size_bytes;
  const std::set<std::string> whole_mlip = mlip_origins(whole);

  // Compiles the stages of a plan; a stage's graph depends only on its
  // units (tensors are ordered by their producer), so each (stage, units)
  // is compiled once, whatever else the plan tries.
  std::map<std::tuple<size_t, size_t, size_t>, std::shared_ptr<const driver::CompileResult>> compiled;
  struct Tried {
    std::vector<std::shared_ptr<const driver::CompileResult>> stages;
    std::vector<PipeTensor> tensors;
    int bad_unit = -1;  // a unit whose layers left the MLIP
    uint64_t over = 0;  // bytes the largest stage needs beyond the limit
    uint64_t slowest = 0;
  };
  auto try_plan = [&](const Plan& plan) {
    Tried tried;
    std::vector<int> unit_stage(m.units.size());
    for (size_t s = 0; s < plan.stages.size(); ++s)
      for (size_t u = plan.stages[s].first; u <= plan.stages[s].last; ++u) unit_stage[u] = static_cast<int>(s);
    const std::vector<int> st = node_stages(prepared.graph, m.node_unit, unit_stage);
    if (st.empty()) fail("internal: --pes: the stages' order contradicts the graph's");
    std::vector<ValueId> values;
    tried.tensors = pipe_tensors(prepared.graph, st, values);
    std::set<std::string> staged_mlip;
    for (size_t s = 0; s < plan.stages.size(); ++s) {
      auto& slot = compiled[{s, plan.stages[s].first, plan.stages[s].last}];
      if (!slot) {
        driver::CompileOptions so = options;
        so.codegen.module_name = fmt::format("{}_stage{}", options.codegen.module_name, s);
        auto sr = std::make_shared<driver::CompileResult>(prepared);
        sr->graph = stage_graph(prepared.graph, st, static_cast<int>(s), tried.tensors, values);
        driver::compile_graph(*sr, so);
        slot = sr;
      }
      for (const std::string& o : mlip_origins(*slot)) staged_mlip.insert(o);
      const uint64_t total = model_memory(*slot).total();
      if (mesh.pe_memory && total > mesh.pe_memory) tried.over = std::max(tried.over, total - mesh.pe_memory);
      tried.slowest = std::max(tried.slowest, model_cycles(*slot));
      tried.stages.push_back(slot);
    }
    // The same layers on the MLIP as in the whole model (so the same bits).
    for (size_t u = 0; u < m.units.size() && tried.bad_unit < 0; ++u)
      for (const std::string& o : m.units[u].origins)
        if (whole_mlip.count(o) != staged_mlip.count(o)) tried.bad_unit = static_cast<int>(u);
    return tried;
  };

  MeshResult result;
  Plan plan;
  Tried best;
  uint64_t margin = 0;  // what compiled stages needed beyond the estimate
  for (int attempt = 0;; ++attempt) {
    if (attempt == 8) fail("internal: --pes {}: no split of the model compiles as estimated", mesh.pes);
    Request r = req;
    if (r.memory_limit) r.memory_limit = r.memory_limit > margin ? r.memory_limit - margin : 1;
    try {
      plan = partition_pes(r);
    } catch (const Error&) {
      if (margin == 0) throw;
      fail("--pe-memory {}: the model does not fit on {} PE(s) of {} bytes once its stages are compiled; raise "
           "--pe-memory or --pes",
           mesh.pe_memory, mesh.pes, mesh.pe_memory);
    }
    best = try_plan(plan);
    if (best.bad_unit >= 0) {  // a cut that moves a layer to the CPU is not taken
      const size_t u = static_cast<size_t>(best.bad_unit);
      if (u > 0) req.units[u - 1].cut_after = false;
      req.units[u].cut_after = false;
      continue;
    }
    if (best.over) {
      margin += best.over;
      continue;
    }
    break;
  }
  // The estimate chose the cuts; the compiled stages' own cycles settle
  // them: a boundary moves by one layer while that makes the slowest
  // compiled stage faster (and every stage still fits and keeps its layers).
  for (bool improved = true; improved;) {
    improved = false;
    for (size_t b = 0; b + 1 < plan.stages.size() && !improved; ++b)
      for (int delta : {-1, 1}) {
        const size_t last = plan.stages[b].last + static_cast<size_t>(delta);
        if (delta < 0 && plan.stages[b].last == plan.stages[b].first) continue;
        if (last >= plan.stages[b + 1].last || !req.units[last].cut_after) continue;
        Plan next = plan;
        next.stages[b].last = last;
        next.stages[b + 1].first = last + 1;
        Tried t = try_plan(next);
        if (t.bad_unit >= 0 || t.over || t.slowest >= best.slowest) continue;
        plan = next;
        best = std::move(t);
        improved = true;
        break;
      }
  }
  const std::vector<PipeTensor>& tensors = best.tensors;
  std::vector<driver::CompileResult> stages;
  for (const auto& sr : best.stages) stages.push_back(*sr);

  Manifest& man = result.manifest;
  man.generator = driver::version_string();
  man.model_name = prepared.graph.model_name;
  man.module_name = options.codegen.module_name;
  man.target = whole.target.text;
  man.pes_requested = mesh.pes;
  man.pe_memory_limit = mesh.pe_memory;
  man.clock_mhz = t.clock_mhz;
  man.fewer_note = plan.fewer_note;
  man.tensors = tensors;
  for (size_t i = 0; i < tensors.size(); ++i) {
    if (tensors[i].producer == kHost) man.inputs.push_back(static_cast<int>(i));
  }
  for (const GraphIO& io : prepared.graph.outputs)
    for (size_t i = 0; i < tensors.size(); ++i)
      if (tensors[i].name == io.name && tensors[i].producer != kHost) man.outputs.push_back(static_cast<int>(i));
  for (size_t s = 0; s < stages.size(); ++s) {
    const driver::CompileResult& sr = stages[s];
    PipeStage ps;
    ps.pe = static_cast<int>(s);
    ps.module = fmt::format("{}_stage{}", options.codegen.module_name, s);
    ps.layers = layer_lines(sr);
    for (const GraphIO& io : sr.graph.inputs)
      for (size_t i = 0; i < tensors.size(); ++i)
        if (tensors[i].name == io.name) ps.inputs.push_back(static_cast<int>(i));
    for (const GraphIO& io : sr.graph.outputs)
      for (size_t i = 0; i < tensors.size(); ++i)
        if (tensors[i].name == io.name) ps.outputs.push_back(static_cast<int>(i));
    ps.est_cycles = model_cycles(sr);
    ps.memory = model_memory(sr);
    for (const auto& [path, content] : sr.files) result.files[stage_dir(ps) + path] = content;
    man.stages.push_back(std::move(ps));
  }
  man.single_pe_cycles = model_cycles(whole);
  man.single_pe_memory = model_memory(whole).total();
  result.files["pipeline.json"] = manifest_to_json(man);
  result.files["mesh/pipeline.c"] = manifest_to_c(man);
  for (const auto& r : resources::under("templates/mesh/"))
    result.files["mesh/" + std::string(r.path.substr(15))] = std::string(r.content);
  result.onnx_nodes = prepared.onnx_nodes;
  return result;
}

}  // namespace mlipc::mesh
