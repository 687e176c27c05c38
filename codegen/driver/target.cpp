#include "driver/target.h"

#include <cctype>

#include "support/error.h"

namespace mlipc::driver {

namespace {
std::vector<std::string> split_targets(const std::string& text) {
  std::vector<std::string> parts;
  std::string cur;
  for (char ch : text + ",") {
    if (ch == ',') {
      parts.push_back(cur);
      cur.clear();
    } else if (!std::isspace(static_cast<unsigned char>(ch))) {
      cur += ch;
    }
  }
  return parts;
}
}  // namespace

std::vector<std::string> Target::metadata_strings() const {
  if (mlip) return {"mrvl", "c"};
  return {"c"};
}

Target parse_target(const std::string& text) {
  std::vector<std::string> parts = split_targets(text);
  Target t;
  t.text = text;
  if (parts.size() == 1 && parts[0] == "c") return t;
  if (parts.size() == 2 && parts[0] == "mrvl" && (parts[1] == "c" || parts[1] == "llvm")) {
    t.mlip = true;
    return t;
  }
  fail("unknown --target '{}' (allowed: \"c\", \"mrvl, c\", \"mrvl, llvm\")", text);
}

}  // namespace mlipc::driver
