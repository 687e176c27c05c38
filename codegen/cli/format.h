// Number formatting for the command line's tables.
#pragma once

#include <cstdint>
#include <string>

#include <fmt/format.h>

namespace mlipc::cli {

// 1234567 -> "1,234,567"
inline std::string with_commas(uint64_t v) {
  std::string s = std::to_string(v);
  for (int i = static_cast<int>(s.size()) - 3; i > 0; i -= 3) s.insert(static_cast<size_t>(i), ",");
  return s;
}

// "MACs on the MLIP: X of Y (Z%)": X the MLIP layers' MACs
// (mlip::LayerReport::macs), Y X plus the CPU layers' (ops::node_macs, in
// metadata.json's layer table); compile, inspect and run --profile print it.
inline std::string mac_share_line(uint64_t on_mlip, uint64_t total) {
  return fmt::format("MACs on the MLIP: {} of {} ({})", with_commas(on_mlip), with_commas(total),
                     total ? fmt::format("{:.1f}%", 100.0 * static_cast<double>(on_mlip) / static_cast<double>(total))
                           : std::string("the model has none"));
}

}  // namespace mlipc::cli
