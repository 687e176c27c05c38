#include "driver/compile.h"

#include <algorithm>

#include <fmt/format.h>

#include "driver/metadata.h"
#include "driver/quantization.h"
#include "frontend/onnx_export.h"
#include "ops/infer.h"
#include "mlf/archive.h"
#include "mlf/params.h"
#include "mlip/partition.h"
#include "passes/passes.h"
#include "resources/tarball_files.h"
#include "support/error.h"
#include "support/limits.h"

namespace mlipc::driver {

std::string version_string() { return "mlipc 0.1.0"; }

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
  const ops::RequantMode requant = passes::parse_requant_mode(options.requant);
  bool int8 = wants_int8(options, r.target);
  r.mlip_options = options.mlip;

  r.graph = frontend::import_onnx(onnx, options.import);
  r.onnx_nodes = r.graph.source_nodes;
  r.onnx_node_names = r.graph.source_origins;
  passes::simplify(r.graph);
  passes::fold_batchnorm(r.graph);
  passes::fuse_pad(r.graph);
  if (r.target.mlip) int8 = choose_mlip_quantize(r, options);  // -quantize unset: the model decides
  if (int8) quantize_model(r, options, r.mlip_options);
  if (options.io_dtype == "int8") passes::quantize_io(r.graph);
  r.float_notes = passes::fold_qdq(r.graph);
  passes::fuse_pad(r.graph);  // the integer Pads of QDQ and QOperator models into their QLinearConv
  passes::set_requant_mode(r.graph, requant);
  return r;
}

void compile_graph(CompileResult& r, const CompileOptions& options) {
  const mlip::Options& mlip_options = r.mlip_options;
  mlip::Partition partition;
  if (r.target.mlip) partition = mlip::partition(r.graph, mlip_options);
  passes::fuse_gelu(r.graph);
  passes::fuse_layer_norm(r.graph);
  passes::fuse_transpose_norm(r.graph);
  if (options.codegen.arena_reuse) passes::fuse_matmul_bias(r.graph);  // before fuse_activation: bias, then activation
  passes::fuse_activation(r.graph, options.codegen.arena_reuse);
  if (options.codegen.arena_reuse) {
    passes::fuse_matmul_epilogue(r.graph);
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

  r.files["metadata.json"] = module_metadata(r, options);
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
