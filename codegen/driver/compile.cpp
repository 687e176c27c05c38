#include "driver/compile.h"

#include <algorithm>
#include <cmath>

#include <fmt/format.h>

#include "driver/calibration_data.h"
#include "frontend/onnx_export.h"
#include "ops/infer.h"
#include "mlf/archive.h"
#include "mlf/metadata.h"
#include "mlf/params.h"
#include "mlip/partition.h"
#include "passes/passes.h"
#include "resources/tarball_files.h"
#include "support/error.h"
#include "support/limits.h"

namespace mlipc::driver {

std::string version_string() { return "mlipc 0.1.0"; }

namespace {

nlohmann::json layer_table(const CompileResult& r) {
  nlohmann::json layers = nlohmann::json::array();
  for (size_t i = 0; i < r.module.layers.size(); ++i) {
    const c::Layer& l = r.module.layers[i];
    layers.push_back({{"index", i}, {"function", l.function}, {"op", l.op}, {"onnx_nodes", l.origins},
                      {"node", r.graph.nodes[static_cast<size_t>(l.node)].name}});
  }
  return layers;
}

mlf::TensorInfo tensor_info(const c::IoInfo& io) { return {io.name, io.dtype, io.shape, io.size_bytes}; }

// Whether int8 is asked for, after checking the quantization options
// agree with each other and with the target (before any work).
bool wants_int8(const CompileOptions& o, const Target& t) {
  if (o.quantize != "none" && o.quantize != "int8") fail("--quantize '{}' (allowed: none, int8)", o.quantize);
  const bool mlip_int8 = t.mlip && o.mlip.quantize == "int8";
  if (t.mlip && o.quantize == "int8" && !mlip_int8)
    fail("--quantize int8 with target '{}': say -quantize=int8 in --target-mrvl-mattr too", t.text);
  const bool int8 = o.quantize == "int8" || mlip_int8;
  const std::string ask = t.mlip ? "-quantize=int8" : "--quantize int8";
  if (!o.calibration.empty() && !int8) fail("--calibration needs int8 quantization ({})", ask);
  if (!o.emit_qdq.empty() && o.calibration.empty())
    fail("--emit-qdq writes the model calibration quantized: it needs --calibration FILE.npz");
  const passes::QuantizeOptions& q = o.quantize_options;
  if (!(q.percentile > 0.0 && q.percentile <= 100.0))
    fail("--calibration-percentile {} must be above 0 and at most 100", q.percentile);
  if (std::isnan(q.min_sqnr_db)) fail("--quantize-min-sqnr-db must be a number");
  return int8;
}

// Quantizes an fp32 model on its calibration data; a model that is
// quantized already is taken as it is.
void quantize_model(CompileResult& r, const CompileOptions& o, mlip::Options& mlip_options) {
  const std::string ask = r.target.mlip ? "-quantize=int8" : "--quantize int8";
  if (passes::has_quantized_tensors(r.graph)) {
    if (!o.calibration.empty())
      fail("--calibration: the model is quantized already (QDQ or QOperator); {} takes it as it is", ask);
    return;
  }
  if (o.calibration.empty())
    fail("{} on an fp32 model needs calibration data: --calibration FILE.npz (one array per model input, named "
         "as the input, with a leading sample axis)", ask);
  const std::vector<std::vector<TensorData>> samples = read_calibration(o.calibration, r.graph);
  r.quantization = passes::quantize(r.graph, samples, o.quantize_options);
  // The layers mixed precision keeps float may be fp16 layers on the MLIP.
  mlip_options.fp16_float_layers = true;
}

std::string metadata_number(double v) {
  if (std::isnan(v)) return "-";
  if (std::isinf(v)) return v > 0 ? "inf" : "-inf";
  return fmt::format("{:.6g}", v);
}

// metadata.json's "quantization" (mlipc key): numbers as text, as the file
// holds whole numbers only.
nlohmann::json quantization_json(const passes::QuantizeReport& q) {
  nlohmann::json layers = nlohmann::json::array();
  for (const passes::LayerQuantization& l : q.layers)
    layers.push_back({{"node", l.node},
                      {"op", l.op},
                      {"onnx_nodes", l.origins},
                      {"precision", l.int8 ? "int8" : "float"},
                      {"why", l.why},
                      {"sqnr_db", metadata_number(l.sqnr_db)},
                      {"max_abs_error", metadata_number(l.max_abs_error)},
                      {"model_sqnr_db", metadata_number(l.model_sqnr_db)},
                      {"model_max_abs_error", metadata_number(l.model_max_abs_error)}});
  nlohmann::json outputs = nlohmann::json::array();
  for (const passes::OutputQuantization& o : q.outputs)
    outputs.push_back({{"name", o.name},
                       {"sqnr_db", metadata_number(o.sqnr_db)},
                       {"max_abs_error", metadata_number(o.max_abs_error)}});
  return {{"method", std::string(calib::method_name(q.options.method))},
          {"percentile", metadata_number(q.options.percentile)},
          {"min_sqnr_db", metadata_number(q.options.min_sqnr_db)},
          {"samples", q.samples},
          {"layers", layers},
          {"outputs", outputs}};
}

}  // namespace

void check_workspace_alignment(size_t alignment) {
  if (alignment == 0 || (alignment & (alignment - 1)) != 0 || alignment > limits::kMaxWorkspaceAlignment)
    fail("--workspace-byte-alignment {} must be a power of two from 1 to {}", alignment,
         limits::kMaxWorkspaceAlignment);
}

CompileResult import_model(const std::filesystem::path& onnx, const CompileOptions& options) {
  CompileResult r;
  check_workspace_alignment(options.codegen.workspace_alignment);
  r.target = parse_target(options.target);
  if (r.target.mlip) mlip::validate_options(options.mlip);
  if (!c::valid_module_name(options.codegen.module_name))
    fail("--module-name '{}' is not a C identifier (letters, digits, '_'; not starting with a digit)",
         options.codegen.module_name);

  if (options.io_dtype != "float32" && options.io_dtype != "int8")
    fail("--io-dtype '{}' (allowed: float32, int8)", options.io_dtype);
  const bool int8 = wants_int8(options, r.target);
  r.mlip_options = options.mlip;

  r.graph = frontend::import_onnx(onnx, options.import);
  r.onnx_nodes = r.graph.source_nodes;
  passes::simplify(r.graph);
  passes::fold_batchnorm(r.graph);
  passes::fuse_pad(r.graph);
  if (int8) quantize_model(r, options, r.mlip_options);
  if (options.io_dtype == "int8") passes::quantize_io(r.graph);
  r.float_notes = passes::fold_qdq(r.graph);
  passes::fuse_pad(r.graph);  // the integer Pads of QDQ and QOperator models into their QLinearConv
  return r;
}

void compile_graph(CompileResult& r, const CompileOptions& options) {
  const mlip::Options& mlip_options = r.mlip_options;
  mlip::Partition partition;
  if (r.target.mlip) partition = mlip::partition(r.graph, mlip_options);
  passes::fuse_activation(r.graph, options.codegen.arena_reuse);
  if (options.codegen.arena_reuse) {
    passes::fuse_residual(r.graph);
    passes::fuse_pool(r.graph);
  }
  passes::materialize_outputs(r.graph);
  infer_shapes(r.graph);
  if (r.target.mlip) r.mlip = mlip::lower_regions(r.graph, mlip_options, partition);

  c::CodegenOptions cg = options.codegen;
  cg.generator = version_string();
  r.module = c::generate(r.graph, cg);

  const std::string& m = cg.module_name;
  r.files = std::move(r.module.files);  // hundreds of megabytes for a large model: moved, not copied
  for (const auto& [path, content] : r.mlip.files) r.files[path] = content;
  r.files["src/" + m + ".graph"] = graph_to_text(r.graph);
  r.files["parameters/" + m + ".params"] = mlf::write_params(r.module.constants);
  // The runtime and templates; the simulator only for a module that calls it.
  for (auto& [path, content] : resources::tarball_files(!r.mlip.regions.empty())) r.files[path] = std::move(content);

  mlf::Metadata md;
  md.module_name = m;
  md.model_name = r.graph.model_name;
  md.targets = r.target.metadata_strings();
  md.workspace_size_bytes = r.module.workspace_size;
  md.constants_size_bytes = r.module.constants_size;
  md.workspace_alignment = cg.workspace_alignment;
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
      {"float_dequantize", [&] {
         nlohmann::json v = nlohmann::json::array();
         for (const auto& f : r.float_notes) v.push_back({{"node", f.node}, {"op", f.op}, {"why", f.why}});
         return v;
       }()},
      {"io_dtype", options.io_dtype},
      {"quantize", wants_int8(options, r.target) ? "int8" : "none"},
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
  if (r.quantization) md.extra["mlipc"]["quantization"] = quantization_json(*r.quantization);
  if (r.target.mlip) md.extra["mlip"] = mlip::to_json(r.mlip.report(mlip_options));
  r.files["metadata.json"] = mlf::metadata_to_json(md);
}

CompileResult compile_model(const std::filesystem::path& onnx, const CompileOptions& options) {
  CompileResult r = import_model(onnx, options);
  compile_graph(r, options);
  // Last, so that a compilation that fails leaves no file behind.
  if (r.quantization && !options.emit_qdq.empty()) frontend::write_onnx(r.quantization->qdq, options.emit_qdq);
  return r;
}

void write_tarball(const CompileResult& result, const std::filesystem::path& path) {
  mlf::write_tar(path, result.files);
}

}  // namespace mlipc::driver
