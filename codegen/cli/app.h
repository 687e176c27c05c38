// The command line's entry point, in the library with the subcommands so that
// CLI11 (a header-only parser whose every includer compiles a few seconds of
// it) is parsed in one translation unit of the build (codegen/CMakeLists.txt).
#pragma once

namespace mlipc::cli {

// Parses argv, runs the subcommand; returns the process's exit status.
int main_command(int argc, char** argv);

}  // namespace mlipc::cli
