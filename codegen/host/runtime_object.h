// The runtime of a host build as one object: the tarball's runtime/src
// parts (core, the simulator when the tarball has one, the pipeline for a
// mesh) in one translation unit, cached by the runtime's sources and
// headers, the compiler and its flags, and nothing of the model: every
// model of one mlipc build links the same object, compiled once.
#pragma once

#include <filesystem>
#include <string>
#include <vector>

#include "host/toolchain.h"

namespace mlipc::host::steps {

// The runtime parts every build compiles: the core and the simulator (absent
// from a CPU-only tarball). runtime/src/runtime/crt is the TVM adapter, which
// firmware built the TVM way compiles instead.
const std::vector<std::string>& runtime_parts();

// Writes dir/runtime_all.c including the .c files of each of dir/`parts`
// and returns its object from the cache under `cache`/objects.
std::filesystem::path runtime_object(const std::filesystem::path& dir, const std::vector<std::string>& parts,
                                     const Toolchain& tc, const std::filesystem::path& cache, int timeout);

}  // namespace mlipc::host::steps
