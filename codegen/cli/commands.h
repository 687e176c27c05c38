// Subcommands of the mlipc command line. Each registers itself on the app and
// runs from a parse callback; errors propagate as mlipc::Error.
#pragma once

#include <CLI/CLI.hpp>

namespace mlipc::cli {

void add_compile(CLI::App& app);
void add_run(CLI::App& app);
void add_inspect(CLI::App& app);
void add_report(CLI::App& app);
void add_serve(CLI::App& app);

// Subcommands take unknown arguments (allow_extras) so that this, first in
// their callback, refuses them in one line naming the first unknown option.
void refuse_extras(const CLI::App& cmd);
// The positional argument (not marked required, so refuse_extras speaks first).
void require_positional(const std::string& value, const CLI::App& cmd, const char* what);

}  // namespace mlipc::cli
