#include "testlib/suite_mode.h"

#include <cstdlib>
#include <cstring>

namespace mlipc::test {

bool full_suite() {
  const char* v = std::getenv("MLIPC_TEST_FULL");
  return v != nullptr && std::strcmp(v, "1") == 0;
}

}  // namespace mlipc::test
