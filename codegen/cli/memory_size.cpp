#include "cli/memory_size.h"

#include <cctype>

#include "support/error.h"
#include "support/text.h"

namespace mlipc::cli {

uint64_t parse_memory_size(const std::string& text) {
  size_t i = 0;
  while (i < text.size() && std::isdigit(static_cast<unsigned char>(text[i]))) ++i;
  const std::string digits = text.substr(0, i), unit = text.substr(i);
  uint64_t scale = 0;
  if (unit.empty() || unit == "B") scale = 1;
  else if (unit == "K" || unit == "KiB" || unit == "k" || unit == "KB") scale = 1024;
  else if (unit == "M" || unit == "MiB" || unit == "MB") scale = 1024 * 1024;
  else if (unit == "G" || unit == "GiB" || unit == "GB") scale = 1024ull * 1024 * 1024;
  if (digits.empty() || digits.size() > 12 || scale == 0)
    fail("--pe-memory '{}': give bytes, or a size in KiB, MiB or GiB (512KiB, 1MiB)", printable(text));
  const uint64_t v = std::stoull(digits) * scale;
  if (v == 0) fail("--pe-memory '{}' must be more than 0", printable(text));
  return v;
}

}  // namespace mlipc::cli
