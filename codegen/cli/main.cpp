// `mlipc compile | run`: the command line, tvmc style. Each subcommand lives
// in its own file; this one wires them and turns every error into one line
// on stderr and a non-zero exit.
#include <CLI/CLI.hpp>

#include <cstdio>
#include <exception>

#include "cli/commands.h"
#include "driver/compile.h"
#include "support/error.h"

int main(int argc, char** argv) {
  CLI::App app{"mlipc: ahead-of-time compiler for ML inference on MLIP accelerators and CPUs", "mlipc"};
  app.set_version_flag("--version", mlipc::driver::version_string());
  app.require_subcommand(1);
  app.failure_message([](const CLI::App*, const CLI::Error& e) {
    return std::string("mlipc: error: ") + e.what() + "\n";
  });
  mlipc::cli::add_compile(app);
  mlipc::cli::add_run(app);
  mlipc::cli::add_inspect(app);
  try {
    app.parse(argc, argv);
  } catch (const CLI::ParseError& e) {
    return app.exit(e);
  } catch (const mlipc::Error& e) {
    std::fprintf(stderr, "mlipc: error: %s\n", e.what());
    return 1;
  } catch (const std::exception& e) {
    std::fprintf(stderr, "mlipc: error: %s\n", e.what());
    return 1;
  }
  return 0;
}
