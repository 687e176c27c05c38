#include "mlip/backend.h"

#include <algorithm>

#include <fmt/format.h>

#include "mlip/border_fold.h"
#include "mlip/cycles.h"
#include "mlip/encoder.h"
#include "mlip/json.h"
#include "mlip/layer_kind.h"
#include "mlip/lower.h"
#include "mlip/pin.h"
#include "mlip/plan.h"
#include "support/error.h"

namespace mlipc::mlip {

namespace {

// Each tile's OCM: the working area every layer's passes share (the largest
// any of them uses), then, page aligned, the pinned range.
struct OcmLayout {
  uint32_t work = 0;           // bytes of the working area
  uint32_t pinned_base = 0;    // where the pinned range starts
  uint32_t size = 0;           // OCM per tile the buffer uses
  uint32_t pinned_offset = 0;  // the header's ocm_pinned_offset (size when nothing is pinned)
};

OcmLayout lay_out_ocm(const TargetInfo& t, const std::vector<LayerPlan>& plans, const Pinning& pin,
                      const std::string& region) {
  OcmLayout o;
  for (const LayerPlan& p : plans)
    for (uint32_t u : p.ocm_used) o.work = std::max(o.work, u);
  const uint32_t max_pin = *std::max_element(pin.used.begin(), pin.used.end());
  o.pinned_base = max_pin ? (o.work + t.ocm_page - 1) / t.ocm_page * t.ocm_page : static_cast<uint32_t>(ocm_round(o.work));
  o.size = static_cast<uint32_t>(ocm_round(static_cast<uint64_t>(o.pinned_base) + max_pin));
  if (o.size > t.ocm_bytes) fail("internal: region {} needs {} bytes of OCM per tile", region, o.size);
  o.pinned_offset = max_pin ? o.pinned_base : o.size;
  return o;
}

// Offsets relative to the pinned range become OCM offsets.
void place_pinned(std::vector<RCommand>& commands, uint32_t pinned_base) {
  for (RCommand& c : commands)
    if (c.pinned) mlip_cmd_relocate_pinned(&c.cmd, pinned_base);
}

std::vector<uint8_t> encode_region(const LoweredRegion& r, const Options& opt, const TargetInfo& t,
                                   const std::vector<LayerPlan>& plans, std::vector<RCommand> load,
                                   const OcmLayout& ocm, uint32_t scratch) {
  EncodeInput enc;
  enc.region = &r;
  enc.target = &t;
  enc.num_tiles = opt.num_tiles;
  enc.hardware = opt.hardware;
  enc.pinned = !load.empty();
  enc.ocm_size = ocm.size;
  enc.pinned_offset = ocm.pinned_offset;
  enc.scratch_size = scratch;
  for (size_t i = 0; i < r.layers.size(); ++i) {
    const RLayer& l = r.layers[i];
    enc.layers.push_back({l.kind, l.name, l.macs, plans[i].est_cycles});
    for (const RCommand& c : plans[i].commands) enc.main.push_back(c.cmd);
  }
  if (!load.empty()) {
    RCommand barrier;
    barrier.cmd.opcode = MLIP_OP_BARRIER;
    barrier.cmd.layer = static_cast<uint16_t>(r.layers.size());
    load.push_back(barrier);
    enc.layers.push_back({MLIP_LAYER_LOAD_WEIGHTS, layer_kind(MLIP_LAYER_LOAD_WEIGHTS).name, 0, layer_cycles(load, t)});
    for (const RCommand& c : load) enc.init.push_back(c.cmd);
  }
  return encode(enc);
}

RegionReport report_region(const LoweredRegion& r, const Options& opt, const std::vector<LayerPlan>& plans,
                           const Pinning& pin, const OcmLayout& ocm, uint32_t scratch, size_t bin_size) {
  RegionReport rep;
  rep.name = r.name;
  for (int ti : r.inputs) rep.inputs.push_back(r.tensors[static_cast<size_t>(ti)].name);
  for (int ti : r.outputs) rep.outputs.push_back(r.tensors[static_cast<size_t>(ti)].name);
  for (size_t i = 0; i < r.layers.size(); ++i) {
    const RLayer& l = r.layers[i];
    const LayerKind& kind = layer_kind(l.kind);
    const LayerPlan& p = plans[i];
    const uint32_t dt = r.tensors[static_cast<size_t>(l.output)].dtype;
    rep.layers.push_back({l.name, kind.name, kind.composite, l.origins, l.macs, p.est_cycles, split_name(p.split.how),
                          p.split.ranges, p.passes, p.pinned,
                          dt == MLIP_DT_INT8    ? "int8"
                          : dt == MLIP_DT_UINT8 ? "uint8"
                          : dt == MLIP_DT_INT16 ? "int16"
                                                : "fp16"});
    rep.est_cycles += p.est_cycles;
  }
  rep.ocm_used.assign(static_cast<size_t>(opt.num_tiles), 0);
  for (const LayerPlan& p : plans)
    for (size_t tile = 0; tile < p.ocm_used.size(); ++tile) rep.ocm_used[tile] = std::max(rep.ocm_used[tile], p.ocm_used[tile]);
  for (size_t tile = 0; tile < rep.ocm_used.size(); ++tile) rep.ocm_used[tile] += pin.used[tile];
  rep.ocm_size = ocm.size;
  rep.pinned_offset = ocm.pinned_offset;
  rep.scratch_size = scratch;
  rep.pinned = pin.pinned;
  rep.streamed = pin.streamed;
  rep.pinned_bytes = pin.pinned_bytes;
  rep.weight_bytes = r.weights.size();
  rep.bin_size = bin_size;
  return rep;
}

// One region, step by step.
std::shared_ptr<CompiledRegion> compile_region(const Graph& body, const std::string& name, const Options& opt) {
  const TargetInfo& t = target_info(opt.mcpu);
  // 1. The body's nodes as MLIP layers, converts at the borders.
  LoweredRegion r = lower_region(body, name, t);
  // 2. The DDR scratch: every tensor between layers.
  const uint32_t scratch = plan_scratch(r);
  // 3. Each layer's split, passes and commands, in the OCM working area.
  const PlanContext ctx{t, opt.num_tiles, working_ocm_bytes(t, opt), r};
  std::vector<LayerPlan> plans;
  for (int i = 0; i < static_cast<int>(r.layers.size()); ++i) plans.push_back(plan_layer(ctx, i));
  // 4. Weights pinned in the rest of the OCM (wb_pin_ocm=1), what fits.
  Pinning pin = pin_weights(ctx, plans, opt.wb_pin_ocm, pinned_ocm_bytes(t, opt));
  // 4a. An int8 output's transposition to NCHW folded into its writer's passes.
  fold_border_transposes(ctx, plans);
  // 5. The OCM of a tile: working area, then the pinned range.
  const OcmLayout ocm = lay_out_ocm(t, plans, pin, name);
  for (LayerPlan& p : plans) place_pinned(p.commands, ocm.pinned_base);
  place_pinned(pin.load, ocm.pinned_base);
  // 6. The command buffer.
  auto region = std::make_shared<CompiledRegion>();
  region->command_buffer = encode_region(r, opt, t, plans, pin.load, ocm, scratch);
  // 7. What it is, for the user and for the C call.
  region->report = report_region(r, opt, plans, pin, ocm, scratch, region->command_buffer.size());
  region->nodes_json = nodes_json(r);
  region->consts_json = consts_json(r);
  region->num_layers = static_cast<uint32_t>(r.layers.size() + (pin.load.empty() ? 0 : 1));
  region->sim_ocm_bytes = static_cast<uint64_t>(ocm.size) * static_cast<uint64_t>(opt.num_tiles);
  region->hardware = opt.hardware;
  return region;
}

}  // namespace

MlipResult lower_regions(Graph& g, const Options& opt, const Partition& partition) {
  MlipResult result;
  result.fp16_decisions = partition.fp16_decisions;
  for (Node& n : g.nodes) {
    if (auto it = partition.cpu_reasons.find(n.name); it != partition.cpu_reasons.end())
      result.cpu_nodes.push_back({n.name, n.op, n.origins, it->second});
    if (n.op != kSubgraphOp || n.attrs.get_string("compiler", "") != kCompiler) continue;
    std::shared_ptr<CompiledRegion> region = compile_region(*n.body, n.name, opt);
    const std::vector<uint8_t>& bin = region->command_buffer;
    result.files["mlip/" + n.name + ".bin"] = std::string(bin.begin(), bin.end());
    result.files["mlip/" + n.name + "-nodes.json"] = region->nodes_json;
    result.files["mlip/" + n.name + "-consts.json"] = region->consts_json;
    // The buffer becomes a constant input, the scratch an output.
    n.inputs.push_back(g.add_constant(n.name + "_cmdbuf", TensorData(DType::UInt8, {static_cast<int64_t>(bin.size())},
                                                                      std::vector<uint8_t>(bin.begin(), bin.end()))));
    ValueId scratch = g.add_value(g.unique_name(n.name + "_scratch"), DType::UInt8);
    g.value(scratch).shape = {static_cast<int64_t>(region->report.scratch_size)};
    g.value(scratch).shape_known = true;
    n.outputs.push_back(scratch);
    n.compiled = region;
    result.regions.push_back(std::move(region));
  }
  return result;
}

ops::SubgraphCall CompiledRegion::c_call(const Node& n) const {
  if (!n.body || n.inputs.size() != n.body->inputs.size() + 1 || n.outputs.size() != n.body->outputs.size() + 1)
    fail("internal: region {} is not the node its command buffer was lowered for", n.name);
  ops::SubgraphCall call;
  call.template_name = "mlip_region.c";
  call.op = "mlip.Region";
  call.includes = {"mlip/compiler.h", "mlip/region.h"};
  call.returns_status = true;
  call.args.push_back(static_cast<int>(n.inputs.size()) - 1);  // the command buffer first
  for (size_t i = 0; i < n.body->inputs.size(); ++i) call.args.push_back(static_cast<int>(i));
  call.values = {{"region", n.name},
                 {"stats_entries", std::to_string(num_layers + 1)},  // the layers, then the region
                 {"ocm_bytes", std::to_string(sim_ocm_bytes)},
                 {"cmdbuf_bytes", std::to_string(command_buffer.size())},
                 {"scratch_bytes", std::to_string(report.scratch_size)}};
  call.flags = {{"hw", hardware}};
  return call;
}

MlipReport MlipResult::report(const Options& options) const {
  MlipReport rep;
  rep.options = options;
  rep.target = target_info(options.mcpu);
  for (const auto& r : regions) rep.regions.push_back(r->report);
  rep.cpu_nodes = cpu_nodes;
  rep.fp16_decisions = fp16_decisions;
  return rep;
}

}  // namespace mlipc::mlip
