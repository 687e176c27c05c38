// The compiler as one library call: ONNX file in, MLF file map out. The CLI,
// the tests and the benchmarks all go through here.
#pragma once

#include <filesystem>
#include <map>
#include <string>

#include "c/c_backend.h"
#include "driver/cross.h"
#include "driver/target.h"
#include "frontend/onnx_import.h"
#include "ir/graph.h"
#include "mlip/backend.h"
#include "mlip/target.h"
#include "passes/passes.h"

namespace mlipc::driver {

struct CompileOptions {
  std::string target = "c";
  frontend::ImportOptions import;
  c::CodegenOptions codegen;
  mlip::Options mlip;  // --target-mrvl-* (used with "mrvl, c")
  // --io-dtype: "float32" (the model's I/O) or "int8" (the quantized tensors
  // at the borders, int8 or uint8 as the model quantizes them: passes::quantize_io).
  std::string io_dtype = "float32";
  // --target-llvm-mtriple/-mcpu, --cross-compiler: recorded in metadata.json
  // (mlipc.cross) when given; the cross build itself is the caller's.
  CrossTarget cross;
};

struct CompileResult {
  Graph graph;         // after all passes: what the backends compiled
  int onnx_nodes = 0;  // nodes in the ONNX file
  // DequantizeLinear nodes left feeding float computations (passes/fold_qdq).
  std::vector<passes::FloatNote> float_notes;
  Target target;
  c::CModule module;
  mlip::MlipResult mlip;  // empty for --target c
  std::map<std::string, std::string> files;  // the MLF tarball's content
};

CompileResult compile_model(const std::filesystem::path& onnx, const CompileOptions& options);

// compile_model in two halves, for callers that compile parts of one model
// (codegen/mesh: a pipeline's stages): import_model reads the file and runs
// the target-independent passes (the result holds the graph, its ONNX node
// count, target and float notes); compile_graph compiles r.graph for the
// target and fills the rest of r.
CompileResult import_model(const std::filesystem::path& onnx, const CompileOptions& options);
void compile_graph(CompileResult& r, const CompileOptions& options);

// --workspace-byte-alignment: a power of two from 1 to
// limits::kMaxWorkspaceAlignment (4096); throws Error otherwise.
void check_workspace_alignment(size_t alignment);

// Writes result.files as the MLF tarball at `path` (atomically).
void write_tarball(const CompileResult& result, const std::filesystem::path& path);

// "mlipc <version>"
std::string version_string();

}  // namespace mlipc::driver
