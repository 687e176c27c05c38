#include "driver/metadata.h"

#include <cmath>

#include <fmt/format.h>

#include "driver/quantization.h"
#include "mlf/metadata.h"
#include "mlip/backend.h"
#include "ops/op.h"

namespace mlipc::driver {

namespace {

nlohmann::json layer_table(const CompileResult& r) {
  nlohmann::json layers = nlohmann::json::array();
  for (size_t i = 0; i < r.module.layers.size(); ++i) {
    const c::Layer& l = r.module.layers[i];
    nlohmann::json layer = {{"index", i}, {"function", l.function}, {"op", l.op}, {"onnx_nodes", l.origins},
                            {"node", r.graph.nodes[static_cast<size_t>(l.node)].name}};
    if (!is_mlip_region(r, l)) layer["macs"] = cpu_layer_macs(r, l);
    layers.push_back(std::move(layer));
  }
  return layers;
}

mlf::TensorInfo tensor_info(const c::IoInfo& io) { return {io.name, io.dtype, io.shape, io.size_bytes}; }

std::string metadata_number(double v) {
  if (std::isnan(v)) return "-";
  if (std::isinf(v)) return v > 0 ? "inf" : "-inf";
  return fmt::format("{:.6g}", v);
}

// metadata.json's "quantization" (mlipc key): numbers as text, as the file
// holds whole numbers only.
nlohmann::json quantization_json(const ptq::QuantizeReport& q) {
  nlohmann::json layers = nlohmann::json::array();
  for (const ptq::LayerQuantization& l : q.layers) {
    layers.push_back({{"node", l.node},
                      {"op", l.op},
                      {"onnx_nodes", l.origins},
                      {"precision", l.int8 ? (l.act_bits == 16 ? "16x8" : "int8") : "float"},
                      {"why", l.why},
                      {"sqnr_db", metadata_number(l.sqnr_db)},
                      {"max_abs_error", metadata_number(l.max_abs_error)},
                      {"model_sqnr_db", metadata_number(l.model_sqnr_db)},
                      {"model_max_abs_error", metadata_number(l.model_max_abs_error)}});
    // Only where it happened, so that other builds' metadata stays as it was.
    if (!l.bias_raised.empty()) layers.back()["bias_raised_channels"] = l.bias_raised;
    if (l.int8 && l.weight_bits != 8) layers.back()["weight_bits"] = l.weight_bits;
  }
  nlohmann::json outputs = nlohmann::json::array();
  for (const ptq::OutputQuantization& o : q.outputs)
    outputs.push_back({{"name", o.name},
                       {"sqnr_db", metadata_number(o.sqnr_db)},
                       {"max_abs_error", metadata_number(o.max_abs_error)}});
  nlohmann::json j = {{"method", std::string(calib::method_name(q.options.method))},
                      {"percentile", metadata_number(q.options.percentile)},
                      {"min_sqnr_db", metadata_number(q.options.min_sqnr_db)},
                      {"samples", q.samples},
                      {"layers", layers},
                      {"outputs", outputs}};
  if (q.options.weight_bits != 8) {  // only when asked: other builds' metadata stays as it was
    j["weight_bits"] = q.options.weight_bits;
    j["weight_block_size"] = q.options.weight_block;
  }
  if (q.options.weight_rounding == ptq::WeightRounding::Gptq) {  // only when taken (asked, or 16x8's default)
    j["weight_rounding"] = "gptq";
    j["gptq_layers"] = q.gptq_layers;
  }
  return j;
}

}  // namespace

bool is_mlip_region(const CompileResult& r, const c::Layer& l) {
  return dynamic_cast<const mlip::CompiledRegion*>(r.graph.nodes[static_cast<size_t>(l.node)].compiled.get()) != nullptr;
}

uint64_t cpu_layer_macs(const CompileResult& r, const c::Layer& l) {
  return is_mlip_region(r, l) ? 0 : node_macs(r.graph, r.graph.nodes[static_cast<size_t>(l.node)]);
}

std::string module_metadata(const CompileResult& r, const CompileOptions& options) {
  mlf::Metadata md;
  md.module_name = options.codegen.module_name;
  md.model_name = r.graph.model_name;
  md.targets = r.target.metadata_strings();
  md.workspace_size_bytes = r.module.workspace_size;
  md.constants_size_bytes = r.module.constants_size;
  md.workspace_alignment = options.codegen.workspace_alignment;
  for (const auto& io : r.module.inputs) md.inputs.push_back(tensor_info(io));
  for (const auto& io : r.module.outputs) md.outputs.push_back(tensor_info(io));
  md.extra["mlipc"] = {
      {"version", version_string()},
      {"target", r.target.text},
      {"memory_planner", r.module.plan.algorithm},
      {"workspace_lower_bound_bytes", r.module.workspace_lower_bound},
      {"layers", layer_table(r)},
      {"memory_plan", [&] {
         nlohmann::json plan = nlohmann::json::array();
         const auto& bufs = r.module.liveness.buffers;
         for (size_t i = 0; i < bufs.size(); ++i)
           plan.push_back({{"name", bufs[i].name}, {"offset", r.module.plan.offsets[i]}, {"size", bufs[i].size},
                           {"first", bufs[i].first}, {"last", bufs[i].last}});
         return plan;
       }()},
      {"onnx_nodes", r.onnx_nodes},
      {"onnx_node_names", r.onnx_node_names},
      {"float_dequantize", [&] {
         nlohmann::json v = nlohmann::json::array();
         for (const auto& f : r.float_notes) v.push_back({{"node", f.node}, {"op", f.op}, {"why", f.why}});
         return v;
       }()},
      {"io_dtype", options.io_dtype},
      {"requant", options.requant},
      {"quantize", (r.target.mlip ? r.mlip_options.quantize == "int8" : wants_int8(options, r.target)) ? "int8" : "none"},
      {"quantized_io", [&] {
         nlohmann::json v = nlohmann::json::array();
         for (const auto* list : {&r.module.inputs, &r.module.outputs})
           for (const auto& io : *list)
             if (io.quantized)
               v.push_back({{"name", io.name}, {"kind", list == &r.module.inputs ? "input" : "output"},
                            {"dtype", std::string(dtype_name(io.dtype))},
                            // metadata.json holds whole numbers only: the scale as
                            // text, 9 significant digits (reads back as the float)
                            {"scale", fmt::format("{:.9g}", io.scale)},
                            {"zero_point", io.zero_point}});
         return v;
       }()},
      {"input_members", [&] {
         std::vector<std::string> v;
         for (const auto& io : r.module.inputs) v.push_back(io.member);
         return v;
       }()},
      {"output_members", [&] {
         std::vector<std::string> v;
         for (const auto& io : r.module.outputs) v.push_back(io.member);
         return v;
       }()},
  };
  if (!options.cross.empty()) md.extra["mlipc"]["cross"] = options.cross.to_json();
  // The CPU the C was tuned for (--target-c-mcpu, or what --target-llvm-mcpu
  // implied): its int8 weight rows are padded for it (c/cpu.h).
  if (!options.codegen.cpu.name.empty())
    md.extra["mlipc"]["cpu"] = {{"name", options.codegen.cpu.name}, {"isas", options.codegen.cpu.isas},
                                {"q8_row_align", options.codegen.cpu.q8_row_align()}};
  if (r.quantization) md.extra["mlipc"]["quantization"] = quantization_json(*r.quantization);
  if (r.target.mlip) md.extra["mlip"] = mlip::to_json(r.mlip.report(r.mlip_options));
  return mlf::metadata_to_json(md);
}

}  // namespace mlipc::driver
