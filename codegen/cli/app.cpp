// `mlipc compile | run`: the command line, tvmc style. Each subcommand lives
// in its own file; this one wires them and turns every error into one line
// on stderr and a non-zero exit.
#include "cli/app.h"

#include <CLI/CLI.hpp>

#include <csignal>
#include <cstdio>
#include <exception>

#include "cli/commands.h"
#include "driver/compile.h"
#include "support/error.h"
#include "support/process.h"
#include "support/text.h"

namespace mlipc::cli {
namespace {

// One line, whatever names from a model the message quotes.
int error_line(const char* what) {
  std::fprintf(stderr, "mlipc: error: %s\n", mlipc::printable(what).c_str());
  return 1;
}

}  // namespace

int main_command(int argc, char** argv) {
  CLI::App app{"mlipc: ahead-of-time compiler for ML inference on MLIP accelerators and CPUs", "mlipc"};
  app.set_version_flag("--version", mlipc::driver::version_string());
  app.require_subcommand(1);
  mlipc::cli::add_compile(app);
  mlipc::cli::add_run(app);
  mlipc::cli::add_inspect(app);
  mlipc::cli::add_report(app);
  mlipc::cli::add_serve(app);
  // SIGINT, SIGTERM, SIGHUP kill a running compiler or model first.
  mlipc::install_interrupt_handlers();
  try {
    app.parse(argc, argv);
  } catch (const CLI::ParseError& e) {
    // --help and --version print and succeed; any other parse error is a
    // usage error like every other: one line, exit 1 (not CLI11's own codes).
    if (e.get_exit_code() == 0) return app.exit(e);
    return error_line(e.what());
  } catch (const mlipc::Interrupted& e) {
    // Temporary folders are gone (unwound); end as the signal asked.
    std::fflush(stdout);
    error_line(e.what());
    std::signal(e.signal(), SIG_DFL);
    std::raise(e.signal());
    return 128 + e.signal();
  } catch (const std::exception& e) {
    return error_line(e.what());
  }
  return 0;
}

}  // namespace mlipc::cli
