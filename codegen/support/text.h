// Printing names that come from a model or a tarball: a newline or a
// control byte in an ONNX name must not split a one-line message or move
// the terminal's cursor.
#pragma once

#include <string>
#include <string_view>

namespace mlipc {

// `s` with \n, \r, \t as those escapes and every other control byte
// (0x00-0x1f, 0x7f) and every byte that is not part of valid UTF-8 as
// \xNN; a backslash stays as it is; valid UTF-8 is kept.
std::string printable(std::string_view s);

// True when `s` is valid UTF-8 (no overlong forms, surrogates or code
// points above U+10FFFF).
bool is_utf8(std::string_view s);

// True for a C identifier: [A-Za-z_][A-Za-z0-9_]*.
bool is_c_identifier(std::string_view s);

// True when `s` can be a target triple (aarch64-linux-gnu,
// thumbv8.1m.main-none-eabi): letters, digits and '_', '.', '+', '-',
// starting with a letter or digit, no "..", at most 128 bytes. A triple
// names a folder beside the tarball and Debian's sysroot (/usr/<triple>):
// a path in it would put a cross build anywhere.
bool is_triple_name(std::string_view s);

}  // namespace mlipc
