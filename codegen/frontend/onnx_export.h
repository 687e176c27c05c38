// IR -> ONNX: writes a graph of standard operators as an ONNX model that
// onnxruntime runs (--emit-qdq: the model post-training quantization made,
// before fold_qdq). Nodes are in the IR's form: opset 17's, with opset 18's
// Pad and Reduce*, so the model imports opset 18.
#pragma once

#include <filesystem>
#include <string>

#include "ir/graph.h"

namespace mlipc::frontend {

constexpr int kExportOpset = 18;

// The serialized ModelProto. Graph outputs are named as the GraphIO says
// (a value of that name elsewhere is renamed). Throws Error for an internal
// operator (mlipc.*), which no other tool runs.
std::string export_onnx(const Graph& g);

// export_onnx written to `path` atomically.
void write_onnx(const Graph& g, const std::filesystem::path& path);

}  // namespace mlipc::frontend
