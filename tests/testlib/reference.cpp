#include "testlib/reference.h"

#include <algorithm>
#include <atomic>
#include <vector>

#include "frontend/onnx_import.h"
#include "ops/evaluator.h"
#include "support/error.h"
#include "support/file_util.h"
#include "testlib/onnx_builder.h"

namespace fs = std::filesystem;

namespace mlipc::test {

fs::path scratch_dir() {
  static TempDir dir("mlipc-test");
  return dir.path();
}

Graph import_built(const OnnxBuilder& b, const std::string& tag) {
  static std::atomic<int> k{0};
  return frontend::import_onnx(b.save(scratch_dir(), tag + "_" + std::to_string(k++) + ".onnx"));
}

std::string import_error(const fs::path& onnx) {
  try {
    frontend::import_onnx(onnx);
  } catch (const Error& e) {
    return e.what();
  }
  return "no error";
}

io::NamedTensors reference_run(const fs::path& onnx, const io::NamedTensors& inputs) {
  Graph g = frontend::import_onnx(onnx);
  std::vector<TensorData> ins;
  for (const GraphIO& io : g.inputs) {
    auto it = std::find_if(inputs.begin(), inputs.end(), [&](const auto& p) { return p.first == io.name; });
    if (it == inputs.end()) fail("reference_run: input '{}' missing", io.name);
    ins.push_back(it->second);
  }
  std::vector<TensorData> outs = evaluate(g, ins);
  io::NamedTensors result;
  for (size_t i = 0; i < outs.size(); ++i) result.emplace_back(g.outputs[i].name, std::move(outs[i]));
  return result;
}

}  // namespace mlipc::test
