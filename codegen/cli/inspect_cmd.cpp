// mlipc inspect model.tar: what a tarball holds, from its metadata.json:
// the partition (regions with their layers and ONNX nodes, CPU nodes and
// why they stayed there), tile splits, OCM per tile, pinned weights and the
// memory plan.
#include <iterator>
#include <memory>

#include <fmt/format.h>
#include <fmt/ranges.h>

#include "cli/commands.h"
#include "cli/inspect.h"
#include "cli/format.h"
#include "cli/mesh_cmd.h"
#include "driver/quantization.h"
#include "mlf/archive.h"
#include "mlf/metadata.h"
#include "mlip/report.h"
#include "support/error.h"
#include "support/file_util.h"
#include "support/text.h"

namespace mlipc::cli {

namespace {

using nlohmann::json;

std::string names(const std::vector<std::string>& list) {
  std::vector<std::string> v;
  for (const auto& o : list) v.push_back(printable(o));
  return fmt::format("{}", fmt::join(v, ", "));
}

std::string origins(const json& list) { return names(list.get<std::vector<std::string>>()); }

void print_region(std::string& text, const mlip::RegionReport& reg, const mlip::TargetInfo& target) {
  auto out = std::back_inserter(text);
  fmt::format_to(out, "  MLIP region {}  (inputs: {}; outputs: {})\n", printable(reg.name), names(reg.inputs), names(reg.outputs));
  fmt::format_to(out, "    {:>3}  {:<15} {:>12} {:>10}  {:<9} {:<34}  {}\n", "#", "layer", "MACs", "est.cyc", "split",
             "tile ranges", "ONNX nodes");
  int i = 0;
  for (const mlip::LayerReport& l : reg.layers) {
    std::vector<std::string> ranges;
    for (const auto& [a, b] : l.ranges) ranges.push_back(fmt::format("[{},{})", a, b));
    std::string rs = fmt::format("{}", fmt::join(ranges, " "));
    if (rs.size() > 34) rs = rs.substr(0, 31) + "...";
    fmt::format_to(out, "    {:>3}  {:<15} {:>12} {:>10}  {:<9} {:<34}  {}{}{}\n", i++, l.kind, with_commas(l.macs),
               with_commas(l.est_cycles), l.split, rs, names(l.origins),
               l.pinned ? "  [weights pinned]" : "", l.dtype != "fp16" ? "  [" + l.dtype + "]" : "");
  }
  const double mhz = target.clock_mhz;
  fmt::format_to(out, "    estimated {} cycles = {:.1f} us at {:.0f} MHz; border conversions {} cycles ({:.1f}%)\n",
                 with_commas(reg.est_cycles), reg.est_cycles / mhz, mhz, with_commas(reg.border_cycles()),
                 reg.est_cycles ? 100.0 * static_cast<double>(reg.border_cycles()) / static_cast<double>(reg.est_cycles)
                                : 0.0);
  std::vector<std::string> ocm;
  for (uint32_t b : reg.ocm_used) ocm.push_back(with_commas(b));
  fmt::format_to(out, "    OCM per tile (bytes): {}  (command buffer uses {} per tile; pinned range from {})\n",
             fmt::join(ocm, " | "), with_commas(reg.ocm_size), with_commas(reg.pinned_offset));
  fmt::format_to(out, "    pinned weights: {}\n",
             reg.pinned.empty() ? std::string("none")
                                : fmt::format("{} ({} bytes)", names(reg.pinned), with_commas(reg.pinned_bytes)));
  if (!reg.streamed.empty()) fmt::format_to(out, "    streamed weights: {}\n", names(reg.streamed));
  fmt::format_to(out, "    DDR scratch {} bytes, weights {} bytes, command buffer {} bytes\n", with_commas(reg.scratch_size),
             with_commas(reg.weight_bytes), with_commas(reg.bin_size));
}

// metadata.json's mlipc.quantization: every layer's int8 error.
void print_quantization(std::string& text, const json& q) {
  auto out = std::back_inserter(text);
  auto str = [](const json& j, const char* key) { return printable(j.value(key, std::string("?"))); };
  fmt::format_to(out, "int8 quantization: {} calibration on {} samples{}, layers below {} dB SQNR stay float\n",
                 str(q, "method"), q.value("samples", uint64_t{0}),
                 q.value("method", std::string()) == "percentile" ? " (p " + str(q, "percentile") + ")" : "",
                 str(q, "min_sqnr_db"));
  for (const auto& o : q.value("outputs", json::array()))
    fmt::format_to(out, "  output {}: SQNR {} dB, max abs error {}\n", str(o, "name"), str(o, "sqnr_db"),
                   str(o, "max_abs_error"));
  fmt::format_to(out, "  {:<28} {:<18} {:<9} {:>9} {:>12} {:>9} {:>12}  {}\n", "layer", "op", "precision", "SQNR dB",
                 "max abs err", "model dB", "model err", "ONNX nodes / why float");
  for (const auto& l : q.value("layers", json::array())) {
    const std::string why = l.value("why", std::string());
    fmt::format_to(out, "  {:<28} {:<18} {:<9} {:>9} {:>12} {:>9} {:>12}  {}\n", str(l, "node"), str(l, "op"),
                   str(l, "precision"), str(l, "sqnr_db"), str(l, "max_abs_error"), str(l, "model_sqnr_db"),
                   str(l, "model_max_abs_error"),
                   why.empty() ? origins(l.value("onnx_nodes", json::array())) : printable(why));
  }
  for (const auto& l : q.value("layers", json::array()))
    if (l.contains("bias_raised_channels")) {
      const auto channels = l["bias_raised_channels"].get<std::vector<int64_t>>();
      fmt::format_to(out, "  {}: weight scale raised so that the bias fits int32 on channel{} {}\n", str(l, "node"),
                     channels.size() > 1 ? "s" : "", fmt::join(channels, ", "));
    }
}

std::string render_report(const std::string& tarball, const mlf::Metadata& md) {
  std::string text;
  auto out = std::back_inserter(text);
  const json& info = md.extra.value("mlipc", json::object());
  const bool has_mlip = md.extra.contains("mlip");
  const mlip::MlipReport mlip = has_mlip ? mlip::report_from_json(md.extra["mlip"]) : mlip::MlipReport{};
  fmt::format_to(out, "{}: model '{}', module '{}', target {}\n", printable(tarball), printable(md.model_name),
                 md.module_name, printable(info.value("target", std::string("?"))));
  // --io-dtype int8: the parameters of a tensor the entry takes quantized.
  auto quantized = [&](const std::string& name, const std::string& kind) {
    for (const auto& q : info.value("quantized_io", json::array()))
      if (q.value("name", std::string()) == name && q.value("kind", std::string()) == kind)
        return fmt::format(", quantized: real = {} * (q - {})", printable(q.value("scale", std::string("?"))),
                           q.value("zero_point", int64_t{0}));
    return std::string();
  };
  for (const auto& in : md.inputs)
    fmt::format_to(out, "  input  {} {} {}{}\n", printable(in.name), dtype_name(in.dtype), shape_str(in.shape),
                   quantized(in.name, "input"));
  for (const auto& o : md.outputs)
    fmt::format_to(out, "  output {} {} {}{}\n", printable(o.name), dtype_name(o.dtype), shape_str(o.shape),
                   quantized(o.name, "output"));
  if (has_mlip) {
    const mlip::TargetInfo& t = mlip.target;
    fmt::format_to(out, "MLIP: {} ({} mode), {} of {} tiles, quantize {}, wb_pin_ocm={}; OCM {} bytes/tile, page {}, DMA align {}\n",
               mlip.options.mcpu, mlip.options.hardware ? "hw" : "sim", mlip.options.num_tiles, t.max_tiles,
               mlip.options.quantize, mlip.options.wb_pin_ocm ? 1 : 0, with_commas(t.ocm_bytes),
               with_commas(t.ocm_page), t.dma_align);
    fmt::format_to(out, "  {}\n", printable(driver::quantize_line(mlip.options)));
    fmt::format_to(out, "  cycle model: {} MACs/cycle, {} DMA bytes/cycle, {} elements/cycle, {} cycles per command, {} MHz\n",
               t.macs_per_cycle, t.dma_bytes_per_cycle, t.eltwise_per_cycle, t.cmd_overhead_cycles, t.clock_mhz);
  }
  fmt::format_to(out, "partition (schedule order):\n");
  std::map<std::string, const mlip::RegionReport*> regions;
  std::map<std::string, const mlip::CpuNode*> cpu_nodes;
  for (const mlip::RegionReport& r : mlip.regions) regions[r.name] = &r;
  for (const mlip::CpuNode& c : mlip.cpu_nodes) cpu_nodes[c.node] = &c;
  uint64_t on_mlip = 0, on_cpu = 0;
  for (const auto& l : info.value("layers", json::array())) {
    std::string node = l.value("node", "");
    if (regions.count(node)) {
      print_region(text, *regions[node], mlip.target);
      on_mlip += regions[node]->macs();
      continue;
    }
    // Tarballs written before the CPU layers' MACs were recorded have none.
    const uint64_t macs = l.value("macs", uint64_t{0});
    on_cpu += macs;
    std::string why = cpu_nodes.count(node) ? "  -- on the CPU: " + printable(cpu_nodes[node]->reason) : "";
    fmt::format_to(out, "  CPU  {:<18} {:<40} {}{}{}\n", printable(l.at("op").get<std::string>()),
                   printable(l.at("function").get<std::string>()), origins(l.at("onnx_nodes")),
                   macs ? fmt::format("  [{} MACs]", with_commas(macs)) : "", why);
  }
  if (has_mlip) fmt::format_to(out, "{}\n", mac_share_line(on_mlip, on_mlip + on_cpu));
  if (!mlip.fp16_decisions.empty()) {
    fmt::format_to(out, "fp16 decisions (epsilon guards, constants binary16 cannot hold):\n");
    for (const mlip::Fp16Decision& d : mlip.fp16_decisions)
      fmt::format_to(out, "  {} ({}): {}: {}\n", printable(d.node), printable(d.op), printable(d.decision),
                     printable(d.why));
  }
  const json& floats = info.value("float_dequantize", json::array());
  if (!floats.empty()) {
    fmt::format_to(out, "quantized tensors computed in float (DequantizeLinear feeding a float operator):\n");
    for (const auto& f : floats)
      fmt::format_to(out, "  {} ({}): {}\n", printable(f.value("node", std::string())), printable(f.value("op", std::string())),
                     printable(f.value("why", std::string())));
  }
  if (info.contains("quantization")) print_quantization(text, info.at("quantization"));
  fmt::format_to(out, "memory plan ({}): arena {} bytes, lower bound {} bytes, constants {} bytes\n",
             info.value("memory_planner", std::string("?")), with_commas(md.workspace_size_bytes),
             with_commas(info.value("workspace_lower_bound_bytes", uint64_t{0})), with_commas(md.constants_size_bytes));
  for (const auto& b : info.value("memory_plan", json::array()))
    fmt::format_to(out, "  [{:>9}, {:>9})  {:>9} bytes  live {:>3}..{:<3}  {}\n", with_commas(b.at("offset").get<uint64_t>()),
               with_commas(b.at("offset").get<uint64_t>() + b.at("size").get<uint64_t>()), with_commas(b.at("size").get<uint64_t>()),
               b.at("first").get<int>(), b.at("last").get<int>(), printable(b.at("name").get<std::string>()));
  return text;
}

void run_inspect(const std::string& tarball) { fmt::print("{}", render_inspect(read_file(tarball), tarball)); }

}  // namespace

std::string render_inspect(const std::string& bytes, const std::string& tarball) {
  mlf::FileMap files = mlf::read_tar_bytes(bytes, tarball);
  if (is_mesh(files)) return render_mesh_inspect(files, tarball);
  auto it = files.find("metadata.json");
  if (it == files.end()) fail("{}: not an mlipc model library (no metadata.json, no pipeline.json)", tarball);
  try {
    return render_report(tarball, mlf::metadata_from_json(it->second));
  } catch (const nlohmann::json::exception& e) {
    fail("{}: metadata.json is damaged ({})", tarball, mlf::json_error_reason(e));
  } catch (const Error& e) {
    fail("{}: {}", tarball, e.what());
  }
}

void add_inspect(CLI::App& app) {
  auto tarball = std::make_shared<std::string>();
  CLI::App* c = app.add_subcommand("inspect", "show the partition, tiling, OCM use and memory plan of a tarball");
  c->add_option("tarball", *tarball, "the tarball written by mlipc compile");
  c->allow_extras();
  c->callback([tarball, c] {
    refuse_extras(*c);
    require_positional(*tarball, *c, "a tarball");
    run_inspect(*tarball);
  });
}

}  // namespace mlipc::cli
