#include "resources/resources.h"

#include "support/error.h"

namespace mlipc::resources {

std::string_view get(std::string_view path) {
  for (const Resource& r : table())
    if (r.path == path) return r.content;
  fail("internal: resource '{}' is not embedded in this build", path);
}

std::vector<Resource> under(std::string_view prefix) {
  std::vector<Resource> out;
  for (const Resource& r : table())
    if (r.path.substr(0, prefix.size()) == prefix) out.push_back(r);
  return out;
}

}  // namespace mlipc::resources
