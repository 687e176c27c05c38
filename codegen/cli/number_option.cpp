#include "cli/number_option.h"

#include <cerrno>
#include <cmath>
#include <cstdlib>

#include <fmt/format.h>

#include "cli/format.h"
#include "support/error.h"
#include "support/text.h"

namespace mlipc::cli {

namespace {

std::string signed_commas(int64_t v) {
  return v < 0 ? "-" + with_commas(0 - static_cast<uint64_t>(v)) : with_commas(static_cast<uint64_t>(v));
}

}  // namespace

int64_t parse_whole(std::string_view option, const std::string& text, int64_t lo, int64_t hi, std::string_view unit) {
  const std::string range =
      fmt::format("allowed: {} to {}{}{}", signed_commas(lo), signed_commas(hi), unit.empty() ? "" : " ", unit);
  const size_t first = !text.empty() && text[0] == '-' ? 1 : 0;
  bool digits = text.size() > first;
  for (size_t i = first; i < text.size() && digits; ++i) digits = text[i] >= '0' && text[i] <= '9';
  if (!digits) fail("{} '{}' is not a whole number ({})", option, printable(text), range);
  // Any number of digits is read without wrapping: past int64 it is out of
  // range like any other value above hi.
  errno = 0;
  const long long v = std::strtoll(text.c_str(), nullptr, 10);
  if (errno == ERANGE || v < lo || v > hi) fail("{} {} is out of range ({})", option, printable(text), range);
  return v;
}

double parse_real(std::string_view option, const std::string& text, std::string_view allowed) {
  const char* begin = text.c_str();
  char* end = nullptr;
  errno = 0;
  const double v = text.empty() || std::isspace(static_cast<unsigned char>(text[0])) ? NAN : std::strtod(begin, &end);
  if (end != begin + text.size() || std::isnan(v) || std::isinf(v) || errno == ERANGE)
    fail("{} '{}' is not a finite number (allowed: {})", option, printable(text), allowed);
  return v;
}

}  // namespace mlipc::cli
