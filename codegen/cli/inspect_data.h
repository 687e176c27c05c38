// What `mlipc inspect` shows of a tarball, read once from its metadata.json
// (or pipeline.json and the stages' metadata.json for a mesh) into one
// structure; the text (inspect_cmd.cpp, mesh_cmd.cpp), --json
// (inspect_json.cpp, schema docs/inspect.schema.json) and the HTML report
// (report_*.cpp) are three renderings of it. The compiled graph's nodes
// (src/<module>.graph) and a mesh's per-stage models are the report's only
// (--json has no key for them).
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "ir/tensor_data.h"
#include "mesh/manifest.h"
#include "mlip/report.h"

namespace mlipc::cli {

// The version of --json's schema (docs/inspect-json.md): raised when a field
// changes meaning or is removed; adding a field keeps it.
constexpr int kInspectSchemaVersion = 1;

struct InspectIo {
  std::string name;
  DType dtype = DType::Undefined;
  Shape shape;
  // --io-dtype int8: real = scale * (q - zero_point); scale as metadata.json
  // holds it (text, 9 significant digits).
  std::optional<std::string> scale;
  int64_t zero_point = 0;
};

// One entry of the schedule: an MLIP region or a CPU layer.
struct InspectStep {
  int region = -1;  // index into InspectModel::mlip.regions, -1 for a CPU layer
  std::string node;  // its node of the compiled graph (src/<module>.graph)
  std::string op, function;
  std::vector<std::string> onnx_nodes;
  uint64_t macs = 0;
  std::optional<std::string> cpu_reason;  // why the MLIP backend left it on the CPU
};

// Numbers of the quantization report are text in metadata.json ("-" when
// undefined, "inf"); nullopt when the key is missing.
using ReportText = std::optional<std::string>;

struct InspectQuantLayer {
  ReportText node, op, precision, sqnr_db, max_abs_error, model_sqnr_db, model_max_abs_error;
  std::string why;
  std::vector<std::string> onnx_nodes;
  // Output channels whose weight scale PTQ raised so that the bias fits int32.
  std::vector<int64_t> bias_raised_channels;
};

struct InspectQuantization {
  ReportText method, percentile, min_sqnr_db;
  uint64_t samples = 0;
  struct Output {
    ReportText name, sqnr_db, max_abs_error;
  };
  std::vector<Output> outputs;
  std::vector<InspectQuantLayer> layers;
};

struct InspectNote {
  std::string node, op, why;
};

struct InspectBuffer {
  std::string name;
  uint64_t offset = 0, size = 0;
  int first = 0, last = 0;
};

// A node of the compiled graph (src/<module>.graph): a CPU layer, an MLIP
// region or a node that is no layer (a view of its input's buffer), the
// values it reads and writes (constants left out) and its ONNX nodes. The
// report draws the edges between layers and names a buffer's producer and
// consumers from it.
struct InspectGraphNode {
  std::string name, op;
  std::vector<std::string> inputs, outputs;
  std::vector<std::string> origins;  // "NAME (Op)"
};

struct InspectModel {
  std::string tarball, model_name, module_name, target;
  std::vector<InspectIo> inputs, outputs;
  bool has_mlip = false;
  mlip::MlipReport mlip;          // empty without MLIP
  std::string quantize_line;      // driver::quantize_line, with MLIP
  std::vector<InspectStep> schedule;
  uint64_t macs_mlip = 0, macs_total = 0;
  std::vector<InspectNote> float_dequantize;
  std::optional<InspectQuantization> quantization;
  std::string memory_planner;  // "?" when not recorded
  uint64_t arena_bytes = 0, lower_bound_bytes = 0, constants_bytes = 0;
  std::vector<InspectBuffer> memory_plan;
  uint64_t onnx_node_count = 0;  // nodes of the ONNX model, folded ones too (0: not recorded)
  std::vector<std::string> onnx_node_names;  // their origins "name (Op)" (empty: not recorded)
  std::vector<InspectGraphNode> graph;  // empty when the tarball has no src/<module>.graph
};

struct InspectMesh {
  std::string tarball;
  mesh::Manifest manifest;
  bool has_mlip = false;  // a stage has MLIP regions
  mlip::Options mlip_options;  // the first such stage's (the stages share them)
  uint64_t macs_mlip = 0, macs_total = 0;
  std::vector<InspectModel> stages;  // each stage's own model, in manifest order (the HTML report draws them)
};

struct InspectData {
  std::optional<InspectModel> model;  // exactly one of the two
  std::optional<InspectMesh> mesh;
};

// Throws Error naming the tarball (never a JSON exception).
InspectData inspect_data(const std::string& bytes, const std::string& tarball);

}  // namespace mlipc::cli
