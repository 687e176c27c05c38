// A model compiled with the default options (target c), its generated C
// built with the host compiler and run on this machine, and compared with
// the reference evaluator: what most operator tests need. A light header
// (no compiler headers); tests that pass compile options or read the
// compiler's result include testlib/model_runner.h.
#pragma once

#include <filesystem>
#include <string>

#include "io/npz.h"
#include "testlib/reference.h"
#include "testlib/tensors.h"

namespace mlipc::test {

// Compiles `onnx` for target c (into a temporary tarball), builds it with
// the host C compiler (cached; testlib/model_runner.h's test_build_flags(),
// -O1 in the default run) and runs it on `inputs`. Returns outputs in model
// order.
io::NamedTensors compile_and_run(const std::filesystem::path& onnx, const io::NamedTensors& inputs);

// Compiles and runs `onnx` on `inputs` (target c), and checks each output
// against the reference evaluator with the given tolerance (gtest EXPECTs).
void expect_matches_reference(const std::filesystem::path& onnx, const io::NamedTensors& inputs,
                              double rtol = 1e-5, double atol = 1e-6);

// The C compiler's messages when the generated kernels of `onnx` do not
// build as strict C99 (-std=c99 -Wall -Wextra -Werror -pedantic), or "".
std::string strict_c99_errors(const std::filesystem::path& onnx);

}  // namespace mlipc::test
