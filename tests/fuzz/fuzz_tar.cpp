// libFuzzer target: what `mlipc inspect` and `mlipc run` read from a tarball
// before anything is compiled: the tar reader, metadata.json, the rule on
// the members mlipc writes, the host driver rendered from the metadata, and
// the whole inspect report. Any input may be refused with mlipc::Error;
// nothing else is acceptable.
#include <cstddef>
#include <cstdint>
#include <string>

#include "cli/inspect.h"
#include "host/host_model.h"
#include "support/error.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const std::string bytes(reinterpret_cast<const char*>(data), size);
  try {
    const mlipc::cli::InspectData d = mlipc::cli::inspect_data(bytes, "fuzz.tar");
    (void)mlipc::cli::render_inspect(d);
    (void)mlipc::cli::render_inspect_json(d);
  } catch (const mlipc::Error&) {
  }
  try {
    (void)mlipc::host::check_tarball(bytes, "fuzz.tar");
  } catch (const mlipc::Error&) {
  }
  return 0;
}
