// mlipc inspect model.tar: what a tarball holds, from its metadata.json:
// the partition (regions with their layers and ONNX nodes, CPU nodes and
// why they stayed there), tile splits, OCM per tile, pinned weights and the
// memory plan. inspect_data.cpp reads it; this file prints it as text,
// inspect_json.cpp as JSON (--json).
#include <iterator>
#include <memory>

#include <fmt/format.h>
#include <fmt/ranges.h>

#include "cli/commands.h"
#include "cli/inspect.h"
#include "cli/inspect_data.h"
#include "cli/format.h"
#include "cli/mesh_cmd.h"
#include "mlip/report.h"
#include "support/error.h"
#include "support/file_util.h"
#include "support/text.h"

namespace mlipc::cli {

namespace {

std::string names(const std::vector<std::string>& list) {
  std::vector<std::string> v;
  for (const auto& o : list) v.push_back(printable(o));
  return fmt::format("{}", fmt::join(v, ", "));
}

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
void print_quantization(std::string& text, const InspectQuantization& q) {
  auto out = std::back_inserter(text);
  auto str = [](const ReportText& t) { return printable(t.value_or("?")); };
  fmt::format_to(out, "int8 quantization: {} calibration on {} samples{}, layers below {} dB SQNR stay float\n",
                 str(q.method), q.samples, q.method.value_or("") == "percentile" ? " (p " + str(q.percentile) + ")" : "",
                 str(q.min_sqnr_db));
  for (const auto& o : q.outputs)
    fmt::format_to(out, "  output {}: SQNR {} dB, max abs error {}\n", str(o.name), str(o.sqnr_db),
                   str(o.max_abs_error));
  fmt::format_to(out, "  {:<28} {:<18} {:<9} {:>9} {:>12} {:>9} {:>12}  {}\n", "layer", "op", "precision", "SQNR dB",
                 "max abs err", "model dB", "model err", "ONNX nodes / why float");
  for (const InspectQuantLayer& l : q.layers)
    fmt::format_to(out, "  {:<28} {:<18} {:<9} {:>9} {:>12} {:>9} {:>12}  {}\n", str(l.node), str(l.op),
                   str(l.precision), str(l.sqnr_db), str(l.max_abs_error), str(l.model_sqnr_db),
                   str(l.model_max_abs_error), l.why.empty() ? names(l.onnx_nodes) : printable(l.why));
  for (const InspectQuantLayer& l : q.layers)
    if (!l.bias_raised_channels.empty())
      fmt::format_to(out, "  {}: weight scale raised so that the bias fits int32 on channel{} {}\n", str(l.node),
                     l.bias_raised_channels.size() > 1 ? "s" : "", fmt::join(l.bias_raised_channels, ", "));
}

std::string render_text(const InspectModel& m) {
  std::string text;
  auto out = std::back_inserter(text);
  fmt::format_to(out, "{}: model '{}', module '{}', target {}\n", printable(m.tarball), printable(m.model_name),
                 m.module_name, printable(m.target));
  auto io_line = [&](const char* kind, const InspectIo& io) {
    fmt::format_to(out, "  {} {} {} {}{}\n", kind, printable(io.name), dtype_name(io.dtype), shape_str(io.shape),
                   io.scale ? fmt::format(", quantized: real = {} * (q - {})", printable(*io.scale), io.zero_point)
                            : std::string());
  };
  for (const InspectIo& in : m.inputs) io_line("input ", in);
  for (const InspectIo& o : m.outputs) io_line("output", o);
  if (m.has_mlip) {
    const mlip::TargetInfo& t = m.mlip.target;
    const mlip::Options& o = m.mlip.options;
    fmt::format_to(out, "MLIP: {} ({} mode), {} of {} tiles, quantize {}, wb_pin_ocm={}; OCM {} bytes/tile, page {}, DMA align {}\n",
               o.mcpu, o.hardware ? "hw" : "sim", o.num_tiles, t.max_tiles, o.quantize, o.wb_pin_ocm ? 1 : 0,
               with_commas(t.ocm_bytes), with_commas(t.ocm_page), t.dma_align);
    fmt::format_to(out, "  {}\n", printable(m.quantize_line));
    fmt::format_to(out, "  cycle model: {} MACs/cycle, {} DMA bytes/cycle, {} elements/cycle, {} cycles per command, {} MHz\n",
               t.macs_per_cycle, t.dma_bytes_per_cycle, t.eltwise_per_cycle, t.cmd_overhead_cycles, t.clock_mhz);
  }
  fmt::format_to(out, "partition (schedule order):\n");
  for (const InspectStep& s : m.schedule) {
    if (s.region >= 0) {
      print_region(text, m.mlip.regions[static_cast<size_t>(s.region)], m.mlip.target);
      continue;
    }
    fmt::format_to(out, "  CPU  {:<18} {:<40} {}{}{}\n", printable(s.op), printable(s.function), names(s.onnx_nodes),
                   s.macs ? fmt::format("  [{} MACs]", with_commas(s.macs)) : "",
                   s.cpu_reason ? "  -- on the CPU: " + printable(*s.cpu_reason) : "");
  }
  if (m.has_mlip) fmt::format_to(out, "{}\n", mac_share_line(m.macs_mlip, m.macs_total));
  if (!m.mlip.fp16_decisions.empty()) {
    fmt::format_to(out, "fp16 decisions (epsilon guards, constants binary16 cannot hold):\n");
    for (const mlip::Fp16Decision& d : m.mlip.fp16_decisions)
      fmt::format_to(out, "  {} ({}): {}: {}\n", printable(d.node), printable(d.op), printable(d.decision),
                     printable(d.why));
  }
  if (!m.float_dequantize.empty()) {
    fmt::format_to(out, "quantized tensors computed in float (DequantizeLinear feeding a float operator):\n");
    for (const InspectNote& f : m.float_dequantize)
      fmt::format_to(out, "  {} ({}): {}\n", printable(f.node), printable(f.op), printable(f.why));
  }
  if (m.quantization) print_quantization(text, *m.quantization);
  fmt::format_to(out, "memory plan ({}): arena {} bytes, lower bound {} bytes, constants {} bytes\n",
             m.memory_planner, with_commas(m.arena_bytes), with_commas(m.lower_bound_bytes),
             with_commas(m.constants_bytes));
  for (const InspectBuffer& b : m.memory_plan)
    fmt::format_to(out, "  [{:>9}, {:>9})  {:>9} bytes  live {:>3}..{:<3}  {}\n", with_commas(b.offset),
               with_commas(b.offset + b.size), with_commas(b.size), b.first, b.last, printable(b.name));
  return text;
}

}  // namespace

std::string render_inspect(const InspectData& d) { return d.mesh ? render_mesh_inspect(*d.mesh) : render_text(*d.model); }

std::string render_inspect(const std::string& bytes, const std::string& tarball) {
  return render_inspect(inspect_data(bytes, tarball));
}

void add_inspect(CLI::App& app) {
  auto tarball = std::make_shared<std::string>();
  auto as_json = std::make_shared<bool>(false);
  CLI::App* c = app.add_subcommand("inspect", "show the partition, tiling, OCM use and memory plan of a tarball");
  c->add_option("tarball", *tarball, "the tarball written by mlipc compile");
  c->add_flag("--json", *as_json, "print the same report as JSON (docs/inspect-json.md, docs/inspect.schema.json)");
  c->allow_extras();
  c->callback([tarball, as_json, c] {
    refuse_extras(*c);
    require_positional(*tarball, *c, "a tarball");
    const InspectData d = inspect_data(read_file(*tarball), *tarball);
    fmt::print("{}", *as_json ? render_inspect_json(d) : render_inspect(d));
  });
}

}  // namespace mlipc::cli
