#include "driver/compile.h"

#include <fmt/format.h>

#include "ir/infer.h"
#include "mlf/archive.h"
#include "mlf/metadata.h"
#include "mlf/params.h"
#include "mlip/partition.h"
#include "passes/passes.h"
#include "resources/resources.h"
#include "support/error.h"
#include "support/limits.h"

namespace mlipc::driver {

std::string version_string() { return "mlipc 0.1.0"; }

namespace {

void add_runtime_files(std::map<std::string, std::string>& files) {
  for (const auto& r : resources::under("runtime/")) files[std::string(r.path)] = std::string(r.content);
  // Firmware-facing templates live under templates/mlf in the sources and
  // under templates/ in the tarball, as in TVM's MLF.
  for (const auto& r : resources::under("templates/mlf/"))
    files["templates/" + std::string(r.path.substr(14))] = std::string(r.content);
}

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

}  // namespace

void check_workspace_alignment(size_t alignment) {
  if (alignment == 0 || (alignment & (alignment - 1)) != 0 || alignment > limits::kMaxWorkspaceAlignment)
    fail("--workspace-byte-alignment {} must be a power of two from 1 to {}", alignment,
         limits::kMaxWorkspaceAlignment);
}

CompileResult compile_model(const std::filesystem::path& onnx, const CompileOptions& options) {
  CompileResult r;
  check_workspace_alignment(options.codegen.workspace_alignment);
  r.target = parse_target(options.target);
  if (r.target.mlip) mlip::validate_options(options.mlip);
  if (!c::valid_module_name(options.codegen.module_name))
    fail("--module-name '{}' is not a C identifier (letters, digits, '_'; not starting with a digit)",
         options.codegen.module_name);

  if (options.io_dtype != "float32" && options.io_dtype != "int8")
    fail("--io-dtype '{}' (allowed: float32, int8)", options.io_dtype);

  r.graph = frontend::import_onnx(onnx, options.import);
  r.onnx_nodes = r.graph.source_nodes;
  passes::simplify(r.graph);
  passes::fold_batchnorm(r.graph);
  passes::fuse_pad(r.graph);
  if (options.io_dtype == "int8") passes::quantize_io(r.graph);
  r.float_notes = passes::fold_qdq(r.graph);
  mlip::Partition partition;
  if (r.target.mlip) partition = mlip::partition(r.graph, options.mlip);
  passes::fuse_activation(r.graph, options.codegen.arena_reuse);
  if (options.codegen.arena_reuse) {
    passes::fuse_residual(r.graph);
    passes::fuse_pool(r.graph);
  }
  passes::materialize_outputs(r.graph);
  infer_shapes(r.graph);
  if (r.target.mlip) r.mlip = mlip::lower_regions(r.graph, options.mlip, partition);

  c::CodegenOptions cg = options.codegen;
  cg.generator = version_string();
  r.module = c::generate(r.graph, cg);

  const std::string& m = cg.module_name;
  r.files = std::move(r.module.files);  // hundreds of megabytes for a large model: moved, not copied
  for (const auto& [path, content] : r.mlip.files) r.files[path] = content;
  r.files["src/" + m + ".graph"] = graph_to_text(r.graph);
  r.files["parameters/" + m + ".params"] = mlf::write_params(r.module.constants);
  add_runtime_files(r.files);

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
  if (r.target.mlip) md.extra["mlip"] = mlip::to_json(r.mlip.report(options.mlip));
  r.files["metadata.json"] = mlf::metadata_to_json(md);
  return r;
}

void write_tarball(const CompileResult& result, const std::filesystem::path& path) {
  mlf::write_tar(path, result.files);
}

}  // namespace mlipc::driver
