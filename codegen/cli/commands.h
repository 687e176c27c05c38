// Subcommands of the mlipc command line. Each registers itself on the app and
// runs from a parse callback; errors propagate as mlipc::Error.
#pragma once

#include <CLI/CLI.hpp>

namespace mlipc::cli {

void add_compile(CLI::App& app);
void add_run(CLI::App& app);
void add_inspect(CLI::App& app);

}  // namespace mlipc::cli
