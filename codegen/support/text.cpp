#include "support/text.h"

#include <cctype>

#include <fmt/format.h>

namespace mlipc {

namespace {

// Length of the valid UTF-8 sequence starting at s[i], or 0 if there is none.
size_t utf8_length(std::string_view s, size_t i) {
  const auto b = [&](size_t k) { return static_cast<unsigned char>(s[i + k]); };
  const unsigned char c = b(0);
  if (c < 0x80) return 1;
  size_t n = c >= 0xc2 && c <= 0xdf ? 2 : c >= 0xe0 && c <= 0xef ? 3 : c >= 0xf0 && c <= 0xf4 ? 4 : 0;
  if (n == 0 || i + n > s.size()) return 0;
  for (size_t k = 1; k < n; ++k)
    if ((b(k) & 0xc0) != 0x80) return 0;
  // Overlong 3- and 4-byte forms, UTF-16 surrogates, above U+10FFFF.
  if ((c == 0xe0 && b(1) < 0xa0) || (c == 0xed && b(1) >= 0xa0) || (c == 0xf0 && b(1) < 0x90) ||
      (c == 0xf4 && b(1) >= 0x90))
    return 0;
  return n;
}

}  // namespace

std::string printable(std::string_view s) {
  std::string out;
  out.reserve(s.size());
  for (size_t i = 0; i < s.size();) {
    const auto c = static_cast<unsigned char>(s[i]);
    const size_t n = utf8_length(s, i);
    if (c == '\n') out += "\\n";
    else if (c == '\r') out += "\\r";
    else if (c == '\t') out += "\\t";
    else if (c < 0x20 || c == 0x7f || n == 0) out += fmt::format("\\x{:02x}", c);
    else out.append(s.substr(i, n));
    i += n == 0 ? 1 : n;
  }
  return out;
}

bool is_utf8(std::string_view s) {
  for (size_t i = 0; i < s.size();) {
    const size_t n = utf8_length(s, i);
    if (n == 0) return false;
    i += n;
  }
  return true;
}

bool is_c_identifier(std::string_view s) {
  if (s.empty()) return false;
  for (size_t i = 0; i < s.size(); ++i) {
    const char c = s[i];
    const bool alpha = (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || c == '_';
    if (!alpha && !(i > 0 && c >= '0' && c <= '9')) return false;
  }
  return true;
}

bool is_triple_name(std::string_view s) {
  if (s.empty() || s.size() > 128 || !std::isalnum(static_cast<unsigned char>(s.front()))) return false;
  if (s.find("..") != std::string_view::npos) return false;
  for (char c : s)
    if (!std::isalnum(static_cast<unsigned char>(c)) && c != '_' && c != '.' && c != '+' && c != '-') return false;
  return true;
}

}  // namespace mlipc
