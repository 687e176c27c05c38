// ONNX -> IR. Parses the model with libonnx's protobuf classes, brings every
// node to the form the IR implements (opset.cpp: opset 17's, and opset 18's
// axes input for Pad and Reduce*), then infers static shapes and folds
// constant sub-graphs (ops/infer.h).
#pragma once

#include <filesystem>
#include <map>
#include <string>

#include "ir/graph.h"

namespace mlipc::frontend {

constexpr int kMinOpset = 1;
constexpr int kMaxOpset = 19;

struct ImportOptions {
  // Static shapes for inputs whose dimensions are dynamic (or to confirm them).
  std::map<std::string, Shape> input_shapes;
};

Graph import_onnx(const std::filesystem::path& path, const ImportOptions& options = {});

// The same on a model already in memory; `path` names it in messages and
// locates external data (the fuzz target's entry).
Graph import_onnx_bytes(const std::string& bytes, const std::filesystem::path& path,
                        const ImportOptions& options = {});

// The com.microsoft operators mlipc reads (the QOperator form onnxruntime's
// quantizer writes); no other operator of that domain, and these only there.
bool is_microsoft_op(const std::string& op);
// A QuantizeLinear or DequantizeLinear of int16 (16x8 activations): ONNX has
// them from opset 21 only, so below it they are com.microsoft's (onnxruntime's
// contrib operators, the same definition); the exporter writes them so and the
// importer reads them.
bool is_16bit_qdq(const Graph& g, const Node& n);

// Parses "name:[1,3,224,224] other:[1,10]" (tvmc's --input-shapes form;
// entries separated by spaces). Throws Error on malformed text.
std::map<std::string, Shape> parse_input_shapes(const std::string& spec);

}  // namespace mlipc::frontend
