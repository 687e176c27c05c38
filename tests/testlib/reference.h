// The reference side of a test, in this process and without the compiler:
// the frontend's refusal of a model, the reference evaluator's outputs, and
// the folder for scratch files.
#pragma once

#include <filesystem>
#include <string>

#include "io/npz.h"
#include "ir/graph.h"

namespace mlipc::test {

// The folder for per-test scratch files, removed at the end of the process.
std::filesystem::path scratch_dir();

class OnnxBuilder;

// The graph of the model `b` builds, imported by the frontend (saved into
// scratch_dir() first, as <tag>_<n>.onnx, n counting the calls).
Graph import_built(const OnnxBuilder& b, const std::string& tag);

// The message importing `onnx` fails with, or "no error": how the operator
// tests check a shape rule's refusals.
std::string import_error(const std::filesystem::path& onnx);

// Runs the reference evaluator on the imported (unoptimized) model.
io::NamedTensors reference_run(const std::filesystem::path& onnx, const io::NamedTensors& inputs);

}  // namespace mlipc::test
