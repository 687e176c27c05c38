// The --target string and the per-target options, tvmc style.
#pragma once

#include <string>
#include <vector>

namespace mlipc::driver {

struct Target {
  bool mlip = false;       // "mrvl, c": offload to the MLIP accelerator
  std::string host = "c";  // the CPU part is always C ("llvm" is accepted as a synonym)
  std::string text;        // as the user wrote it

  // The target strings recorded in metadata.json.
  std::vector<std::string> metadata_strings() const;
};

// Accepts "c", "mrvl, c" and "mrvl, llvm" (spaces optional); throws Error
// listing the accepted values otherwise.
Target parse_target(const std::string& text);

}  // namespace mlipc::driver
