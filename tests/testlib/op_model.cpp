#include "testlib/op_model.h"

#include <gtest/gtest.h>

#include <algorithm>

#include <fmt/format.h>

#include "frontend/onnx_import.h"
#include "mlip/model.h"
#include "ops/evaluator.h"
#include "support/error.h"
#include "support/file_util.h"
#include "testlib/model_runner.h"
#include "testlib/onnx_builder.h"

namespace fs = std::filesystem;

namespace mlipc::test {

OpModel::OpModel(std::string op, int opset) : op_(std::move(op)), opset_(opset) {}

OpModel& OpModel::input(const std::string& name, DType dtype, const Shape& shape) {
  inputs_.push_back({name, dtype, shape, false, TensorData()});
  return *this;
}

OpModel& OpModel::constant(const std::string& name, TensorData value) {
  const DType t = value.dtype();
  const Shape s = value.shape();
  inputs_.push_back({name, t, s, true, std::move(value)});
  return *this;
}

OpModel& OpModel::omitted() {
  inputs_.push_back({"", DType::Undefined, {}, false, TensorData()});
  return *this;
}

OpModel& OpModel::attr(const std::string& name, AttrValue value) {
  attrs_.emplace_back(name, std::move(value));
  return *this;
}

OpModel& OpModel::outputs(std::vector<std::string> names) {
  outputs_ = std::move(names);
  return *this;
}

OpModel& OpModel::domain(std::string d) {
  domain_ = std::move(d);
  return *this;
}

namespace {

// Adds `m`'s node to `b`, every name prefixed with `prefix`.
void add_to(OnnxBuilder& b, const OpModel& m, const std::string& prefix) {
  std::vector<std::string> ins, outs;
  for (const OpModel::Input& in : m.inputs()) {
    if (in.name.empty()) {
      ins.emplace_back();
      continue;
    }
    ins.push_back(prefix + in.name);
    if (in.is_constant) b.initializer(prefix + in.name, in.value);
    else b.input(prefix + in.name, in.dtype, in.shape);
  }
  for (const std::string& o : m.output_names()) outs.push_back(o.empty() ? o : prefix + o);
  b.node(m.op(), ins, outs, m.attrs(), prefix + m.op());
  if (!m.op_domain().empty()) b.in_domain(m.op_domain());
  for (const std::string& o : outs)
    if (!o.empty()) b.output(o);
}

std::string model_bytes(const OpModel& m) {
  OnnxBuilder b(m.opset(), m.op());
  add_to(b, m, "");
  return b.bytes();
}

fs::path save_bytes(const std::string& bytes, const std::string& stem) {
  static int counter = 0;
  const fs::path p = scratch_dir() / fmt::format("{}_{}.onnx", stem, counter++);
  write_file(p, bytes);
  return p;
}

io::NamedTensors reference_of(const std::string& bytes, const std::string& name, const io::NamedTensors& inputs) {
  Graph g = frontend::import_onnx_bytes(bytes, name);
  std::vector<TensorData> ins;
  for (const GraphIO& io : g.inputs) {
    auto it = std::find_if(inputs.begin(), inputs.end(), [&](const auto& p) { return p.first == io.name; });
    if (it == inputs.end()) fail("{}: no value for input '{}'", name, io.name);
    ins.push_back(it->second);
  }
  std::vector<TensorData> outs = evaluate(g, ins);
  io::NamedTensors result;
  for (size_t i = 0; i < outs.size(); ++i) result.emplace_back(g.outputs[i].name, std::move(outs[i]));
  return result;
}

driver::CompileOptions options_for(const std::string& target) {
  driver::CompileOptions o;
  o.target = target;
  return o;
}

}  // namespace

std::string OpModel::bytes() const { return model_bytes(*this); }

fs::path OpModel::save() const { return save_bytes(bytes(), op_); }

Inferred infer(const OpModel& m) {
  Graph g = frontend::import_onnx_bytes(m.bytes(), m.op() + ".onnx");
  Inferred r;
  for (const GraphIO& o : g.outputs) {
    r.dtypes.push_back(g.value(o.value).dtype);
    r.shapes.push_back(g.value(o.value).shape);
  }
  r.folded = g.nodes.empty();
  if (!g.nodes.empty()) r.attrs = g.nodes[0].attrs;
  return r;
}

std::string infer_error(const OpModel& m) {
  try {
    infer(m);
  } catch (const Error& e) {
    return e.what();
  }
  return "no error";
}

io::NamedTensors reference(const OpModel& m, const io::NamedTensors& inputs) {
  return reference_of(m.bytes(), m.op() + ".onnx", inputs);
}

void expect_matches_reference(const OpModel& m, const io::NamedTensors& inputs, double rtol, double atol,
                              const std::vector<std::string>& targets) {
  OpBatch b;
  b.add(m.op(), m, inputs, rtol, atol);
  b.expect_matches_reference(targets);
}

void OpBatch::add(std::string label, const OpModel& m, io::NamedTensors inputs, double rtol, double atol) {
  cases_.push_back({std::move(label), m, std::move(inputs), rtol, atol});
}

namespace {

// Graph inputs and outputs a case adds to a model.
size_t io_count(const OpModel& m) {
  size_t n = 0;
  for (const OpModel::Input& in : m.inputs()) n += !in.name.empty() && !in.is_constant;
  for (const std::string& o : m.output_names()) n += !o.empty();
  return n;
}

}  // namespace

void OpBatch::expect_matches_reference(const std::vector<std::string>& targets) const {
  ASSERT_FALSE(cases_.empty());
  // Models of consecutive cases, each within the runtime's limit on a
  // model's inputs and outputs together (MLIP_MAX_IO_TENSORS).
  size_t first = 0;
  while (first < cases_.size()) {
    size_t last = first, io = 0;
    while (last < cases_.size() && (last == first || io + io_count(cases_[last].model) <= MLIP_MAX_IO_TENSORS))
      io += io_count(cases_[last++].model);
    expect_chunk(first, last, targets);
    if (::testing::Test::HasFatalFailure()) return;
    first = last;
  }
}

void OpBatch::expect_chunk(size_t first, size_t last, const std::vector<std::string>& targets) const {
  // One model: case k's names prefixed "c<k>_"; a batch of one keeps its names.
  const bool single = cases_.size() == 1;
  auto prefix = [&](size_t k) { return single ? std::string() : fmt::format("c{}_", k); };
  const OpModel& head = cases_[first].model;
  OnnxBuilder b(head.opset(), head.op());
  io::NamedTensors inputs;
  for (size_t k = first; k < last; ++k) {
    ASSERT_EQ(cases_[k].model.opset(), head.opset()) << "case '" << cases_[k].label << "'";
    add_to(b, cases_[k].model, prefix(k));
    for (const auto& [name, value] : cases_[k].inputs) inputs.emplace_back(prefix(k) + name, value);
  }
  const std::string bytes = b.bytes();
  const std::string stem = single ? head.op() : fmt::format("{}_batch", head.op());
  const io::NamedTensors want = reference_of(bytes, stem + ".onnx", inputs);
  const fs::path path = save_bytes(bytes, stem);
  for (const std::string& target : targets) {
    SCOPED_TRACE("target " + target);
    const io::NamedTensors got = compile_and_run(path, inputs, options_for(target), nullptr, operator_test_flags());
    ASSERT_EQ(got.size(), want.size());
    size_t i = 0;
    for (size_t k = first; k < last; ++k)
      for (const std::string& o : cases_[k].model.output_names()) {
        if (o.empty()) continue;
        EXPECT_EQ(got[i].first, want[i].first);
        EXPECT_EQ(compare(got[i].second, want[i].second, cases_[k].rtol, cases_[k].atol), "")
            << "case '" << cases_[k].label << "', output '" << o << "'";
        ++i;
      }
  }
}

}  // namespace mlipc::test
