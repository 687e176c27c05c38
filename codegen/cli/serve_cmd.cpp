// mlipc serve --port N [...]: the remote-run server (serve/server.h) inside
// the host binary, with the same options and code as the standalone
// mlipc-serve that is cross-built for a board (docs/user-guide.md, "Remote run").
#include <cstdio>
#include <cstdlib>
#include <string>
#include <vector>

#include "cli/commands.h"
#include "serve/server.h"

namespace mlipc::cli {

void add_serve(CLI::App& app) {
  CLI::App* c = app.add_subcommand(
      "serve", "run the runners `mlipc run --remote` sends, one job at a time (mlipc serve --help: the options)");
  // Every argument goes to the server's own parser (serve/server.c), --help too.
  c->set_help_flag();
  c->prefix_command();
  c->callback([c] {
    std::vector<std::string> args = c->remaining();
    std::vector<char*> argv;
    std::string prog = "mlipc serve";
    argv.push_back(prog.data());
    for (std::string& a : args) argv.push_back(a.data());
    argv.push_back(nullptr);
    const int rc = mlrx_serve_main(static_cast<int>(args.size() + 1), argv.data());
    std::fflush(stdout);
    // The server printed its one-line error already.
    if (rc != 0) std::exit(rc);
  });
}

}  // namespace mlipc::cli
