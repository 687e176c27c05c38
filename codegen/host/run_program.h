// Running a program a host build made (the model's host program, a mesh's
// pipeline runner).
#pragma once

#include <filesystem>
#include <string>
#include <vector>

#include "support/process.h"

namespace mlipc::host::steps {

// A timeout, a crash or a non-zero exit is one line naming the tarball and
// `what` ran ("model", "pipeline") with the program's first error line.
ProcessResult run_program(const std::vector<std::string>& argv, const std::filesystem::path& cwd, int timeout_seconds,
                          const std::filesystem::path& tarball, const char* what);

}  // namespace mlipc::host::steps
