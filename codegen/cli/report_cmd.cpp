// mlipc report model.tar [-o report.html]: the HTML report of a tarball
// (cli/report.h), written whole through a temporary file.
#include <memory>

#include <fmt/format.h>

#include "cli/commands.h"
#include "cli/report.h"
#include "support/file_util.h"
#include "support/text.h"

namespace fs = std::filesystem;

namespace mlipc::cli {

void add_report(CLI::App& app) {
  auto tarball = std::make_shared<std::string>();
  auto output = std::make_shared<std::string>();
  CLI::App* c = app.add_subcommand(
      "report", "write a self-contained HTML page of a tarball: summary, graph, memory plan, per-layer bars");
  c->add_option("tarball", *tarball, "the tarball written by mlipc compile");
  c->add_option("-o,--output", *output, "the page to write (default: the tarball's name with .html, in the current folder)");
  c->allow_extras();
  c->callback([tarball, output, c] {
    refuse_extras(*c);
    require_positional(*tarball, *c, "a tarball");
    const fs::path out = output->empty() ? fs::path(fs::path(*tarball).stem().string() + ".html") : fs::path(*output);
    check_report_path(out, {*tarball}, output->empty() ? "the output" : "-o");
    const std::string html = render_report(inspect_data(read_file(*tarball), *tarball));
    write_report(out, html);
    fmt::print("mlipc: report of {} written to {} ({} bytes)\n", printable(*tarball), printable(out.string()),
               html.size());
  });
}

}  // namespace mlipc::cli
