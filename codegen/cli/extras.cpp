// What no option or positional of a subcommand took: tvmc's parser names the
// first unknown option, so mlipc does too (one line), instead of listing
// everything left over, model file included.
#include "cli/commands.h"
#include "support/error.h"
#include "support/text.h"

namespace mlipc::cli {

void refuse_extras(const CLI::App& cmd) {
  const std::vector<std::string> rest = cmd.remaining();
  if (rest.empty()) return;
  const std::string& name = cmd.get_name();
  for (const std::string& a : rest)
    if (a.size() > 1 && a[0] == '-')
      fail("unknown option '{}' for mlipc {} (mlipc {} --help lists the options)", printable(a.substr(0, a.find('='))),
           name, name);
  fail("unexpected argument '{}' for mlipc {}: it takes one {}", printable(rest.front()), name,
       name == "compile" ? "model file" : "tarball");
}

void require_positional(const std::string& value, const CLI::App& cmd, const char* what) {
  if (value.empty()) fail("mlipc {} needs {} (mlipc {} --help)", cmd.get_name(), what, cmd.get_name());
}

}  // namespace mlipc::cli
