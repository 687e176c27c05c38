// The suite's two modes. The default run (scripts/test.sh, plain ctest)
// checks each code path once; MLIPC_TEST_FULL=1 widens the sweeps that
// repeat a path over more configurations (every MLIP tile count and weight
// placement, every randomized seed) and scripts/test.sh then also runs the
// tests it leaves out by default (docs/architecture.md section 8 lists both).
#pragma once

namespace mlipc::test {

// MLIPC_TEST_FULL=1 in the environment.
bool full_suite();

}  // namespace mlipc::test
