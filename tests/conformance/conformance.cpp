#include "conformance.h"

#include <onnx/onnx_pb.h>

#include <algorithm>
#include <cstdlib>
#include <map>
#include <set>

#include <fmt/format.h>

#include "frontend/tensor_proto.h"
#include "ir/op.h"
#include "support/error.h"
#include "support/file_util.h"
#include "testlib/model_runner.h"

namespace fs = std::filesystem;

namespace mlipc::conformance {

std::vector<Case> discover() {
  const char* env = std::getenv("MLIPC_ONNX_TESTDATA");
  fs::path root = env && *env ? fs::path(env) : fs::path("/usr/share/libonnx-testdata/data");
  std::vector<Case> cases;
  for (const char* suite : {"node", "pytorch-converted"}) {
    fs::path dir = root / suite;
    if (!fs::is_directory(dir)) continue;
    for (const auto& e : fs::directory_iterator(dir))
      if (fs::exists(e.path() / "model.onnx")) {
        std::string s = suite;
        std::replace(s.begin(), s.end(), '-', '_');
        cases.push_back({s + "_" + e.path().filename().string(), e.path()});
      }
  }
  std::sort(cases.begin(), cases.end(), [](const Case& a, const Case& b) { return a.name < b.name; });
  return cases;
}

std::string static_skip_reason(const fs::path& model_path) {
  onnx::ModelProto m;
  std::string bytes = read_file(model_path);
  if (!m.ParseFromString(bytes)) return "model does not parse";
  std::set<std::string> missing;
  for (const auto& n : m.graph().node())
    if (!find_op(n.op_type())) missing.insert(n.op_type());
  if (!missing.empty()) return fmt::format("operator not supported: {}", *missing.begin());
  for (const auto& vi : m.graph().input())
    if (!vi.type().has_tensor_type()) return "non-tensor (sequence/optional) input";
  for (const auto& vi : m.graph().output())
    if (!vi.type().has_tensor_type()) return "non-tensor (sequence/optional) output";
  for (const auto& n : m.graph().node()) {
    if (n.op_type() == "Dropout" && n.input_size() >= 3 && !n.input(2).empty())
      return "training-mode Dropout (random)";
    for (const auto& a : n.attribute())
      if (a.name() == "training_mode" && a.i() != 0) return "training-mode BatchNormalization";
  }
  return "";
}

Result run_case(const Case& c, const Config& config) {
  Result r;
  if (std::string why = static_skip_reason(c.dir / "model.onnx"); !why.empty()) {
    r.outcome = Outcome::Skip;
    r.detail = why;
    return r;
  }
  onnx::ModelProto m;
  m.ParseFromString(read_file(c.dir / "model.onnx"));
  std::set<std::string> initializers;
  for (const auto& t : m.graph().initializer()) initializers.insert(t.name());
  std::vector<std::string> input_names, output_names;
  for (const auto& vi : m.graph().input())
    if (!initializers.count(vi.name())) input_names.push_back(vi.name());
  for (const auto& vi : m.graph().output()) output_names.push_back(vi.name());

  fs::path data = c.dir / "test_data_set_0";
  io::NamedTensors inputs;
  for (size_t i = 0; i < input_names.size(); ++i)
    inputs.emplace_back(input_names[i], frontend::load_tensor_pb(data / fmt::format("input_{}.pb", i)));

  driver::CompileOptions opt;
  opt.target = config.target;
  io::NamedTensors got;
  driver::CompileResult compiled;
  try {
    got = test::compile_and_run(c.dir / "model.onnx", inputs, opt, &compiled);
  } catch (const Error& e) {
    std::string msg = e.what();
    // Operators the issue lists as folded-only (Shape, Gather, Slice, Cast,
    // ConstantOfShape) have no CPU kernel when their input is a graph input.
    if (msg.find("supported only on constant inputs") != std::string::npos) {
      r.outcome = Outcome::Skip;
      size_t p = msg.find(": ");
      r.detail = "folded-only operator on a run-time input" +
                 (p == std::string::npos ? "" : " (" + msg.substr(msg.find('(') + 1, msg.find(')') - msg.find('(') - 1) + ")");
      return r;
    }
    r.detail = msg;
    return r;
  }
  if (got.size() != output_names.size()) {
    r.detail = fmt::format("{} outputs, expected {}", got.size(), output_names.size());
    return r;
  }
  r.mlip = !compiled.mlip.regions.empty();
  const double rtol = r.mlip ? config.mlip_rtol : config.rtol, atol = r.mlip ? config.mlip_atol : config.atol;
  for (size_t i = 0; i < got.size(); ++i) {
    TensorData want = frontend::load_tensor_pb(data / fmt::format("output_{}.pb", i));
    std::string diff = test::compare(got[i].second, want, rtol, atol);
    if (!diff.empty()) {
      r.detail = fmt::format("output '{}': {}", output_names[i], diff);
      return r;
    }
  }
  r.outcome = Outcome::Pass;
  return r;
}

void record(const fs::path& dir, const Case& c, const Result& r) {
  fs::create_directories(dir);
  std::string text = r.outcome == Outcome::Pass ? (r.mlip ? "pass mlip" : "pass")
                                                : (r.outcome == Outcome::Skip ? "skip: " : "fail: ") + r.detail;
  write_file(dir / c.name, text + "\n");
}

int summarize(const fs::path& dir, const std::string& title) {
  int pass = 0, skip = 0, failed = 0, mlip = 0;
  std::map<std::string, int> reasons;
  std::vector<std::string> failures;
  if (fs::is_directory(dir))
    for (const auto& e : fs::directory_iterator(dir)) {
      std::string text = read_file(e.path());
      if (!text.empty() && text.back() == '\n') text.pop_back();
      if (text == "pass") ++pass;
      else if (text == "pass mlip") {
        ++pass;
        ++mlip;
      }
      else if (text.rfind("skip: ", 0) == 0) {
        ++skip;
        reasons[text.substr(6)]++;
      } else {
        ++failed;
        failures.push_back(e.path().filename().string() + ": " + text);
      }
    }
  fmt::print("{}: {} passed, {} skipped, {} failed (of {} ONNX node tests)\n", title, pass, skip, failed,
             pass + skip + failed);
  if (mlip) fmt::print("  passed through an MLIP region: {} (the others ran on the CPU alone)\n", mlip);
  std::vector<std::pair<int, std::string>> by_count;
  for (const auto& [why, n] : reasons) by_count.emplace_back(n, why);
  std::sort(by_count.rbegin(), by_count.rend());
  for (const auto& [n, why] : by_count) fmt::print("  skipped {:>4}  {}\n", n, why);
  for (const std::string& f : failures) fmt::print("  FAILED {}\n", f);
  return failed;
}

}  // namespace mlipc::conformance
