#include "cli/memory_size.h"

#include <cctype>

#include "support/error.h"
#include "support/text.h"

namespace mlipc::cli {

uint64_t parse_memory_size(const std::string& text) {
  constexpr const char* kAllowed = "allowed: 1 byte to 1 TiB, as bytes or with K/KiB, M/MiB or G/GiB: 512KiB, 1MiB";
  size_t i = 0;
  while (i < text.size() && std::isdigit(static_cast<unsigned char>(text[i]))) ++i;
  const std::string digits = text.substr(0, i), unit = text.substr(i);
  uint64_t scale = 0;
  if (unit.empty() || unit == "B") scale = 1;
  else if (unit == "K" || unit == "KiB" || unit == "k" || unit == "KB") scale = 1024;
  else if (unit == "M" || unit == "MiB" || unit == "MB") scale = 1024 * 1024;
  else if (unit == "G" || unit == "GiB" || unit == "GB") scale = 1024ull * 1024 * 1024;
  if (digits.empty() || scale == 0) fail("--pe-memory '{}' is not a size ({})", printable(text), kAllowed);
  // Compared before multiplying: no size wraps around to a small one.
  size_t nonzero = digits.find_first_not_of('0');
  const std::string significant = nonzero == std::string::npos ? "0" : digits.substr(nonzero);
  const uint64_t v = significant.size() > 13 ? kMaxPeMemory + 1 : std::stoull(significant);
  if (v == 0) fail("--pe-memory '{}' is out of range ({})", printable(text), kAllowed);
  if (v > kMaxPeMemory / scale) fail("--pe-memory '{}' is more than 1 TiB ({})", printable(text), kAllowed);
  return v * scale;
}

}  // namespace mlipc::cli
