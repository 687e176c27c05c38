#include "c/constants.h"

#include <algorithm>
#include <cstring>
#include <vector>

#include <fmt/format.h>

namespace mlipc::c {

namespace {

// Always three octal digits: a following digit can never extend the escape,
// and no trigraph or quote can form.
void append_octal(std::string& s, uint8_t b) {
  s += '\\';
  s += static_cast<char>('0' + (b >> 6));
  s += static_cast<char>('0' + ((b >> 3) & 7));
  s += static_cast<char>('0' + (b & 7));
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

std::string string_literal(const uint8_t* p, size_t n) {
  std::string s = "\"";
  s.reserve(n * 4 + 2);
  for (size_t i = 0; i < n; ++i) append_octal(s, p[i]);
  return s + "\"";
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
  std::string init = "{{";
  if (rows > 0) {
    init += "{";
    for (size_t r = 0; r < rows; ++r)
      init += "\n" + string_literal(p + r * kConstantRowBytes, kConstantRowBytes) + (r + 1 < rows ? "," : "");
    init += "}";
  }
  if (tail > 0) init += std::string(rows > 0 ? ",\n" : "\n") + string_literal(p + rows * kConstantRowBytes, tail);
  init += "}}";
  return fmt::format("/* {} {} */\n{} MLIP_SECTION(\".rodata.tvm\") MLIP_ALIGNED(16) = {};\n", dtype_name(t.dtype()),
                     shape_str(t.shape()), c_constant_declarator(sym, t), init);
}

std::string c_constant_values(const std::string& sym) { return sym + ".v"; }

}  // namespace mlipc::c
