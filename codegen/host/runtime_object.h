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
#include "mlf/archive.h"

namespace mlipc::host::steps {

// The runtime parts every build compiles: the core and the simulator (absent
// from a CPU-only tarball). runtime/src/runtime/crt is the TVM adapter, which
// firmware built the TVM way compiles instead.
const std::vector<std::string>& runtime_parts();

// The tarball's runtime/ folder (headers and sources), the same for every
// tarball of one mlipc build: extracted once into `cache`/runtime-<hash of
// its files>/ (staged, then renamed: a concurrent run may win) and shared by
// every build, which writes only its own generated files. Every file a run
// creates costs the kernel a new inode (a third of the conformance program's
// own CPU time in a profile), and the runtime's forty-odd files were most of
// a build's.
// Returns that folder.
std::filesystem::path runtime_tree(const mlf::FileMap& files, const std::filesystem::path& cache,
                                   const std::filesystem::path& tarball);
// Writes dir/runtime_all.c including the .c files of each of dir/`parts`
// (renamed into place, unless it holds that text already: dir may be a
// runtime_tree that concurrent builds compile in) and returns its object
// from the cache under `cache`/objects.
std::filesystem::path runtime_object(const std::filesystem::path& dir, const std::vector<std::string>& parts,
                                     const Toolchain& tc, const std::filesystem::path& cache, int timeout);

}  // namespace mlipc::host::steps
