// The compiler as one library call: ONNX file in, MLF file map out. The CLI,
// the tests and the benchmarks all go through here.
#pragma once

#include <filesystem>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "c/c_backend.h"
#include "driver/cross.h"
#include "driver/target.h"
#include "frontend/onnx_import.h"
#include "io/npz.h"
#include "ir/graph.h"
#include "mlip/backend.h"
#include "mlip/target.h"
#include "passes/passes.h"
#include "ptq/quantize.h"

namespace mlipc::driver {

struct CompileOptions {
  std::string target = "c";
  frontend::ImportOptions import;
  c::CodegenOptions codegen;
  mlip::Options mlip;  // --target-mrvl-* (used with "mrvl, c")
  // --io-dtype: "float32" (the model's I/O) or "int8" (the quantized tensors
  // at the borders, int8 or uint8 as the model quantizes them: passes::quantize_io).
  std::string io_dtype = "float32";
  // --requant: the int8 operators' requantization arithmetic, "fixed"
  // (TFLite's Q31 multiplier and shift) or "ort" (onnxruntime's float32
  // scale): passes::set_requant_mode, docs/user-guide.md.
  std::string requant = "fixed";
  // Post-training quantization of an fp32 model (ptq::quantize).
  // `quantize` "int8" (--quantize int8) asks for it on --target c; on
  // "mrvl, c" -quantize=int8 in the mattr does (and --quantize int8 must
  // agree with it). A model already quantized needs no calibration.
  std::string quantize = "none";
  std::filesystem::path calibration;  // --calibration FILE.npz
  // Or the same arrays in memory (the Python module's calibration=): read
  // from here, then checked and used as the file's.
  std::optional<io::NamedTensors> calibration_arrays;
  ptq::QuantizeOptions quantize_options;  // --calibration-method, --calibration-percentile, --quantize-min-sqnr-db
  std::filesystem::path emit_qdq;     // --emit-qdq FILE.onnx: the quantized model in QDQ form
  // --target-llvm-mtriple/-mcpu, --cross-compiler: recorded in metadata.json
  // (mlipc.cross) when given; the cross build itself is the caller's.
  CrossTarget cross;
};

struct CompileResult {
  Graph graph;         // after all passes: what the backends compiled
  int onnx_nodes = 0;  // nodes in the ONNX file
  std::vector<std::string> onnx_node_names;  // their origins, "name (Op)", in the file's order
  // DequantizeLinear nodes left feeding float computations (passes/fold_qdq).
  std::vector<passes::FloatNote> float_notes;
  // What calibration did, for a model mlipc quantized.
  std::optional<ptq::QuantizeReport> quantization;
  Target target;
  c::CModule module;
  mlip::MlipResult mlip;  // empty for --target c
  // The MLIP options the compilation uses: the user's, plus what calibration
  // decided (its float layers become fp16 layers of their own).
  mlip::Options mlip_options;
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
