// Registers one GoogleTest per ONNX node test folder, so that ctest reports
// each by name: conformance.<suite>.<folder>. The suite, target and
// tolerances are compile-time definitions (one executable per target);
// --results=DIR records outcomes, --summary prints the counts instead.
#include <gtest/gtest.h>

#include <cstring>
#include <string>

#include <fmt/format.h>

#include "conformance.h"

namespace {

using mlipc::conformance::Case;
using mlipc::conformance::Config;
using mlipc::conformance::Outcome;

Config g_config{MLIPC_CONFORMANCE_TARGET, MLIPC_CONFORMANCE_RTOL, MLIPC_CONFORMANCE_ATOL};
std::string g_results;

class CaseTest : public ::testing::Test {
 public:
  explicit CaseTest(Case c) : c_(std::move(c)) {}
  void TestBody() override {
    mlipc::conformance::Result r = mlipc::conformance::run_case(c_, g_config);
    if (!g_results.empty()) mlipc::conformance::record(g_results, c_, r);
    if (r.outcome == Outcome::Skip) GTEST_SKIP() << r.detail;
    EXPECT_EQ(r.outcome, Outcome::Pass) << r.detail;
  }

 private:
  Case c_;
};

}  // namespace

int main(int argc, char** argv) {
  ::testing::InitGoogleTest(&argc, argv);
  bool summary = false;
  const std::string suite = MLIPC_CONFORMANCE_SUITE;
  for (int i = 1; i < argc; ++i) {
    std::string a = argv[i];
    if (a.rfind("--results=", 0) == 0) g_results = a.substr(10);
    else if (a == "--summary") summary = true;
  }
  if (summary) {
    int failed = mlipc::conformance::summarize(
        g_results, fmt::format("ONNX conformance, target \"{}\" (rtol {}, atol {}; the model's fp16 bound where an MLIP "
                               "region runs)",
                               g_config.target, g_config.rtol, g_config.atol));
    return failed == 0 ? 0 : 1;
  }
  for (const Case& c : mlipc::conformance::discover()) {
    ::testing::RegisterTest(suite.c_str(), c.name.c_str(), nullptr, nullptr, __FILE__, __LINE__,
                            [c]() -> ::testing::Test* { return new CaseTest(c); });
  }
  return RUN_ALL_TESTS();
}
