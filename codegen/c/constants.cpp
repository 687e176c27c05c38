#include "c/constants.h"

#include <algorithm>
#include <cstring>
#include <vector>

#include <fmt/format.h>

namespace mlipc::c {

namespace {

// A printable byte stands for itself, except '"', '\\' and '?' (no quote,
// escape or trigraph can form); every other byte is an escape of always
// three octal digits, so a following digit can never extend it. Random
// bytes average 2.9 characters instead of 4.
void append_byte(std::string& s, uint8_t b) {
  if (b >= 0x20 && b <= 0x7e && b != '"' && b != '\\' && b != '?') {
    s += static_cast<char>(b);
    return;
  }
  const char e[4] = {'\\', static_cast<char>('0' + (b >> 6)), static_cast<char>('0' + ((b >> 3) & 7)),
                     static_cast<char>('0' + (b & 7))};
  s.append(e, 4);
}

// The constant's bytes in little-endian order whatever the machine running
// mlipc: the targets read them as values (`.v`), and lib0.c refuses a
// big-endian target.
std::vector<uint8_t> little_endian_bytes(const TensorData& t) {
  std::vector<uint8_t> b(t.raw(), t.raw() + t.nbytes());
  const uint16_t probe = 1;
  uint8_t first = 0;
  std::memcpy(&first, &probe, 1);
  const size_t w = dtype_size(t.dtype());
  if (first == 0 && w > 1)
    for (size_t i = 0; i + w <= b.size(); i += w) std::reverse(b.begin() + static_cast<ptrdiff_t>(i), b.begin() + static_cast<ptrdiff_t>(i + w));
  return b;
}

// Appends the literal in place: a large model's constants are hundreds of
// megabytes of text, so no temporary strings.
void append_string_literal(std::string& s, const uint8_t* p, size_t n) {
  s += '"';
  for (size_t i = 0; i < n; ++i) append_byte(s, p[i]);
  s += '"';
}

}  // namespace

// The bytes are a struct of full rows and a tail (either may be absent);
// lib0.c checks that the compiler puts no padding between uint8_t arrays.
std::string c_constant_declarator(const std::string& sym, const TensorData& t) {
  const size_t bytes = t.nbytes(), rows = bytes / kConstantRowBytes, tail = bytes % kConstantRowBytes;
  std::string members;
  if (rows > 0) members += fmt::format(" uint8_t r[{}][{}];", rows, kConstantRowBytes);
  if (tail > 0) members += fmt::format(" uint8_t t[{}];", tail);
  return fmt::format("const union {{ struct {{{} }} b; {} v[{}]; }} {}", members, dtype_ctype(t.dtype()), t.numel(),
                     sym);
}

std::string c_constant_definition(const std::string& sym, const TensorData& t) {
  const size_t bytes = t.nbytes(), rows = bytes / kConstantRowBytes, tail = bytes % kConstantRowBytes;
  const std::vector<uint8_t> le = little_endian_bytes(t);
  const uint8_t* p = le.data();
  std::string out = fmt::format("/* {} {} */\n{} MLIP_SECTION(\".rodata.tvm\") MLIP_ALIGNED(16) = ", dtype_name(t.dtype()),
                                shape_str(t.shape()), c_constant_declarator(sym, t));
  out.reserve(out.size() + bytes * 4 + (rows + 1) * 4 + 16);
  out += "{{";
  if (rows > 0) {
    out += "{";
    for (size_t r = 0; r < rows; ++r) {
      out += '\n';
      append_string_literal(out, p + r * kConstantRowBytes, kConstantRowBytes);
      if (r + 1 < rows) out += ',';
    }
    out += "}";
  }
  if (tail > 0) {
    out += rows > 0 ? ",\n" : "\n";
    append_string_literal(out, p + rows * kConstantRowBytes, tail);
  }
  out += "}};\n";
  return out;
}

std::string c_constant_values(const std::string& sym) { return sym + ".v"; }

}  // namespace mlipc::c
