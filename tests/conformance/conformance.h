// The ONNX backend node tests (Debian's libonnx-testdata) as mlipc tests:
// each test folder is compiled for a target, run through the generated C on
// this machine, and compared with the stored expected outputs.
#pragma once

#include <filesystem>
#include <string>
#include <vector>

namespace mlipc::conformance {

struct Case {
  std::string name;             // "node_test_add"
  std::filesystem::path dir;    // .../node/test_add
};

// The test folders under $MLIPC_ONNX_TESTDATA (default
// /usr/share/libonnx-testdata/data), suites node and pytorch-converted.
std::vector<Case> discover();

// Why a case is not attempted ("" when it is). Decided from the model alone:
// an operator mlipc does not implement, non-tensor (sequence/optional)
// inputs, or training-mode semantics.
std::string static_skip_reason(const std::filesystem::path& model);

enum class Outcome { Pass, Skip, Fail };
struct Result {
  Outcome outcome = Outcome::Fail;
  std::string detail;  // skip reason or failure message
  bool mlip = false;   // at least one MLIP region ran
  bool bound = false;  // a shape-determining graph input was bound as a constant
};

struct Config {
  std::string target = "c";
  double rtol = 1e-4;  // for outputs computed on the CPU alone
  double atol = 1e-5;
  double mlip_rtol = 2e-2;  // when an MLIP region (fp16) took part
  double mlip_atol = 2e-2;
};

Result run_case(const Case& c, const Config& config);

// Result files: one per case in `dir`: "pass" (with " mlip" and/or " bound"),
// "skip: <reason>" or "fail: <message>".
void record(const std::filesystem::path& dir, const Case& c, const Result& r);
// Prints counts (and skip reasons grouped) for the results in `dir`; returns
// the number of failures.
int summarize(const std::filesystem::path& dir, const std::string& title);

}  // namespace mlipc::conformance
