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

// $MLIPC_ONNX_TESTDATA, by default /usr/share/libonnx-testdata/data.
std::filesystem::path testdata_root();
// The test folders under testdata_root(), suites node and pytorch-converted.
std::vector<Case> discover();

// The skip classes, each "<class>: <detail>" in a skip reason. The first
// six are the classes issue 8 leaves out of scope; "not yet supported" is an
// operator of issue 8's list that mlipc's op table lacks so far, "outside
// the list" one that is neither in that list nor in an out-of-scope class.
inline constexpr const char* kSkipDataDependent = "data-dependent output shape";
inline constexpr const char* kSkipTraining = "training operators";
inline constexpr const char* kSkipStrings = "strings";
inline constexpr const char* kSkipSequences = "sequences/optional";
inline constexpr const char* kSkipControlFlow = "control flow";
inline constexpr const char* kSkipRandom = "random generators";
inline constexpr const char* kSkipNotYet = "operator not yet supported";
inline constexpr const char* kSkipOutside = "operator outside issue 8's list";
// A case whose data binary16 cannot hold, when an MLIP region (fp16 tensors)
// takes part and the result is then out of tolerance (beyond_fp16() in
// conformance.cpp lists each with the evidence).
inline constexpr const char* kSkipBeyondFp16 = "data beyond binary16 on the MLIP";

// Why a case is not attempted ("" when it is), decided from the model alone:
// an operator or a tensor of an out-of-scope class, training-mode semantics,
// or an operator mlipc's op table lacks. A node test whose operators are all
// in the op table is never skipped: it passes or fails (a model that does
// not parse fails).
std::string static_skip_reason(const std::filesystem::path& model);

enum class Outcome { Pass, Skip, Fail };
struct Result {
  Outcome outcome = Outcome::Fail;
  std::string detail;  // skip reason or failure message
  bool mlip = false;   // at least one MLIP region ran
  bool bound = false;  // a shape-determining graph input was bound as a constant
  bool type_only = false;  // an input read only for its type was fed at its declared shape
  bool corrected = false;  // compared with the spec's values, the stored ones being wrong
  int roundings = 0;       // MLIP cases: the fp16 roundings counted in the compiled model
  double ratio = 0;        // MLIP cases: the worst error over the fp16 bound, over every output
};

struct Config {
  std::string target = "c";
  double rtol = 1e-4;  // for outputs computed on the CPU alone
  double atol = 1e-5;
  // When an MLIP region (fp16) took part, the outputs are compared with the
  // fp16 bound derived for the compiled model (testlib/fp16_bound.h), the
  // model tests' bound, instead.
};

Result run_case(const Case& c, const Config& config);

// Result files: one per case in `dir`: "pass" (with " mlip R=<roundings>
// ratio=<worst error / bound>" and/or " bound", ...),
// "skip: <reason>" or "fail: <message>".
void record(const std::filesystem::path& dir, const Case& c, const Result& r);
// Prints the counts for the results in `dir` of every case discover() finds,
// each skip class with its count and contents, and every failure; returns
// the number of failures, counting a case without a result as one, or 1
// when there are no cases at all.
int summarize(const std::filesystem::path& dir, const std::string& title);

}  // namespace mlipc::conformance
