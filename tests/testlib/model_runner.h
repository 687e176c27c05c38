// Compile an ONNX model with given options, run it through the generated C
// on this machine, and compare with a reference: the helpers behind the
// model and conformance tests that choose a target or read the compiler's
// result. It includes the compiler's interface (driver/compile.h); operator
// tests that need neither include the light testlib/c_runner.h.
#pragma once

#include <filesystem>
#include <string>
#include <vector>

#include "driver/compile.h"
#include "host/host_model.h"
#include "io/npz.h"
#include "ir/tensor_data.h"
#include "testlib/c_runner.h"

namespace mlipc::test {

// Compiles `onnx` with `options` (into a temporary tarball), builds it with
// the host C compiler (cached) and runs it on `inputs`. Returns outputs in
// model order. When `compiled` is given, it receives the compiler's result.
// `cc_flags`: the host build's compiler flags; empty: test_build_flags().
io::NamedTensors compile_and_run(const std::filesystem::path& onnx, const io::NamedTensors& inputs,
                                 const driver::CompileOptions& options, driver::CompileResult* compiled = nullptr,
                                 const std::vector<std::string>& cc_flags = {});

// The host build's flags of the single-operator tests (the ONNX conformance
// cases, OpBatch, quantized_mlip_test.cpp's int8 MLIP-against-CPU
// comparisons): `mlipc run`'s (host_flags()) with its -O3 replaced by
// $MLIPC_TEST_OP_OPT, default -O1; every other flag stays (-march=native: the
// kernels' same vector paths; -ffp-contract=off). The generated C is a fixed
// sequence of IEEE operations, so its bits do not depend on the level
// (XplatGnu, QemuSweep, the TVM demo flow and runtime.kmath_xplat hold -O0,
// -O2 and -Os builds to the host's -O3 bits). -O1 builds 384 cold cases in
// 51 CPU-s against -O3's 70 (-O0: 51 too); the model tests keep -O3, what
// users run. A sanitizer build's flags (-O1 already) are returned unchanged.
std::vector<std::string> operator_test_flags();

// The host build's flags of the tests that check the generated C's bits
// against another build of the same model (tile counts, weight placement,
// MLIP regions against the CPU build, requantization modes, quantized I/O),
// the reference evaluator or onnxruntime: operator_test_flags() (-O1) in the
// default run, `mlipc run`'s host_flags() (-O3) with MLIPC_TEST_FULL=1. The
// bits do not depend on the level (above); a model compiled for three tilings
// and its CPU build is four -O3 compiles of the model's kernels, two to three
// times -O1's CPU time (VWW's kernels: 4.1 against 1.6 CPU-s). The tests of
// what `mlipc run` itself builds pass host_flags(): Models.MatchesOnnxruntime
// (every suite model, against onnxruntime), the host bits the cross and
// firmware builds are held to (xplat_test.cpp, firmware_test.cpp), the
// tarball globbed by hand (glob_test.cpp), the vector-width variants' -O3
// build, and every test of the command line (`mlipc run` builds at -O3).
std::vector<std::string> test_build_flags();

// What HostModel::build needs in a test: the build folder's test cache and
// test_build_flags().
host::BuildOptions test_build_options();

// The host build's flags of a kernel test's vector-width variant (`extra`:
// -DMLIP_KVEC_SCALAR, -mno-avx2, ...; unit.PackedWidths, unit.AttentionKernels),
// each compared with mlipc run's own -O3 build of the same tarball: `extra`
// after host_flags() with -O0 for its -O3 in the default run, after
// host_flags() (-O3) with MLIPC_TEST_FULL=1. The width is chosen in the
// source (the kernels' vector types, mlip/kvec.h, and the -m flags'
// instruction sets), which -O0 compiles as -O3 does; no sum is reassociated
// at any level. -O3 took 3.8 to 5.6 CPU-s per variant of PackedWidths'
// model, -O1 1.3 to 1.9 (stop 43); with the model's kernels grown, the
// whole test took 46.0 CPU-s with -O1 variants and 13.2 with -O0 ones,
// AttentionKernels' 13.3 and 3.3 (stop 47). The other tests stay at -O1:
// the PTQ tests, which run their builds over data sets, took 40 CPU-s at
// -O0 against 25 at -O1, and the conformance cases cost the same at both.
std::vector<std::string> width_variant_flags(const std::vector<std::string>& extra);

// Builds the tarball `tar` and runs it on `inputs`: with no `extra` flags,
// mlipc run's own build (host::host_flags()); else width_variant_flags(extra).
io::NamedTensors run_width_variant(const std::filesystem::path& tar, const io::NamedTensors& inputs,
                                   const std::vector<std::string>& extra);

// Compiles with `options` and runs `onnx` on `inputs`, and checks each
// output against the reference evaluator with the given tolerance.
void expect_matches_reference(const std::filesystem::path& onnx, const io::NamedTensors& inputs, double rtol,
                              double atol, const driver::CompileOptions& options);

// `--target "mrvl, c"` on `tiles` tiles of `mcpu`, weights pinned in OCM or
// streamed: the options the MLIP tests compile with.
driver::CompileOptions mrvl_options(int tiles = 8, bool pin = false, const std::string& mcpu = "cn10ka");

// The layer kinds of MLIP region `region` of a compiled model, in order.
std::vector<std::string> layer_kinds(const driver::CompileResult& r, size_t region = 0);

// Whether the C backend stores value `name` of a compiled model
// channels-last (c/layout.h); a name the graph lacks fails the test.
bool stored_channels_last(const driver::CompileResult& r, const std::string& name);

}  // namespace mlipc::test
