// The member rule of `mlipc run` (docs/security.md, "Tarballs"): it builds
// only tarballs holding nothing but files `mlipc compile` writes.
#pragma once

#include <filesystem>
#include <string>

#include "mlf/archive.h"

namespace mlipc::host::steps {

// Refuses (one line naming `tarball` and the member) a member that mlipc
// compile does not write for `module`.
void check_members(const mlf::FileMap& files, const std::string& module, const std::filesystem::path& tarball);

}  // namespace mlipc::host::steps
