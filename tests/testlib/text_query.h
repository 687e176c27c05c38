// What the kernel tests ask of generated text: how often a marker (a
// template's header comment, a call) occurs in it.
#pragma once

#include <cstddef>
#include <string>

namespace mlipc::test {

// The occurrences of `what` in `text`, overlapping ones included.
inline size_t count_occurrences(const std::string& text, const std::string& what) {
  size_t n = 0;
  for (size_t at = text.find(what); at != std::string::npos; at = text.find(what, at + 1)) ++n;
  return n;
}

}  // namespace mlipc::test
