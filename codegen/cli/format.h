// Number formatting for the command line's tables.
#pragma once

#include <cstdint>
#include <string>

namespace mlipc::cli {

// 1234567 -> "1,234,567"
inline std::string with_commas(uint64_t v) {
  std::string s = std::to_string(v);
  for (int i = static_cast<int>(s.size()) - 3; i > 0; i -= 3) s.insert(static_cast<size_t>(i), ",");
  return s;
}

}  // namespace mlipc::cli
