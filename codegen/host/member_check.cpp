#include "host/member_check.h"

#include <algorithm>
#include <set>
#include <string_view>

#include "resources/tarball_files.h"
#include "support/error.h"
#include "support/text.h"

namespace mlipc::host::steps {

namespace {

// prefix, then digits, then suffix.
bool number_between(std::string_view s, std::string_view prefix, std::string_view suffix) {
  if (s.size() <= prefix.size() + suffix.size() || s.substr(0, prefix.size()) != prefix ||
      s.substr(s.size() - suffix.size()) != suffix)
    return false;
  std::string_view mid = s.substr(prefix.size(), s.size() - prefix.size() - suffix.size());
  return std::all_of(mid.begin(), mid.end(), [](char c) { return c >= '0' && c <= '9'; });
}

// mlip/<r>.bin, mlip/<r>-nodes.json, mlip/<r>-consts.json, <r> a C identifier.
bool region_file(std::string_view s) {
  if (s.substr(0, 5) != "mlip/") return false;
  s.remove_prefix(5);
  for (std::string_view suffix : {"-nodes.json", "-consts.json", ".bin"})
    if (s.size() > suffix.size() && s.substr(s.size() - suffix.size()) == suffix)
      return is_c_identifier(s.substr(0, s.size() - suffix.size()));
  return false;
}

}  // namespace

// metadata.json; the generated C of the module (codegen/host/src/<m>_lib<N>.c,
// codegen/host/include/tvmgen_<m>.h); parameters/<m>.params, src/<m>.graph;
// per MLIP region mlip/<r>.bin, -nodes.json, -consts.json; and under runtime/
// and templates/ exactly the files this mlipc writes into a tarball
// (resources/tarball_files.h). Any other member (an extra .c file, a script,
// a Makefile) refuses the whole tarball before anything is compiled.
void check_members(const mlf::FileMap& files, const std::string& module, const std::filesystem::path& tarball) {
  static const std::set<std::string> carried = resources::tarball_file_names();
  const std::string& m = module;
  for (const auto& [name, data] : files) {
    const bool known = name == "metadata.json" || number_between(name, "codegen/host/src/" + m + "_lib", ".c") ||
                       name == "codegen/host/include/tvmgen_" + m + ".h" || name == "parameters/" + m + ".params" ||
                       name == "src/" + m + ".graph" || region_file(name) || carried.count(name) > 0;
    if (!known)
      fail("{}: member '{}' is not a file mlipc compile writes; mlipc run builds only mlipc's own tarballs "
           "(docs/security.md)",
           tarball.string(), printable(name));
  }
}

}  // namespace mlipc::host::steps
