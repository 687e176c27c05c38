// tvmc's LLVM target options and cross compiler, as mlipc reads them. mlipc's
// CPU part is always C (the "c" or "llvm" of --target), so "llvm" names no
// code generator here: --target-llvm-mtriple says which machine the C is
// built for, --target-llvm-mcpu becomes the cross compiler's CPU flag, and
// --cross-compiler (with --cross-compiler-options) builds it
// (docs/user-guide.md, "Cross builds").
#pragma once

#include <string>
#include <vector>

#include <nlohmann/json.hpp>

namespace mlipc::driver {

struct CrossTarget {
  std::string triple;                  // --target-llvm-mtriple, else the compiler's own (-dumpmachine)
  std::string mcpu;                    // --target-llvm-mcpu
  std::string compiler;                // --cross-compiler
  std::vector<std::string> options;    // --cross-compiler-options, split at spaces
  std::vector<std::string> cpu_flags;  // mcpu as the compiler takes it (cpu_flags_for)

  bool empty() const { return triple.empty() && mcpu.empty() && compiler.empty(); }
  // The architecture part of the triple ("aarch64" for aarch64-linux-gnu;
  // arm64 is aarch64, amd64 is x86_64); "" without a triple.
  std::string arch() const;
  // A Linux triple: a runner executable can be built and run under qemu-user.
  bool linux_triple() const;
  // Everything the cross compiler gets besides the sources: --target for
  // clang, the CPU flag, then the user's options.
  std::vector<std::string> compiler_flags() const;
  // Recorded in metadata.json under mlipc.cross (what `run` reads).
  nlohmann::json to_json() const;
  static CrossTarget from_json(const nlohmann::json& j);
};

// --target-llvm-mcpu mapped onto a GCC/clang flag for `arch`: -march=<cpu>
// on x86 (LLVM's CPU names are GCC's -march names there, and GCC's -mcpu is
// obsolete on x86), -mcpu=<cpu> everywhere else (Arm, AArch64, RISC-V).
std::vector<std::string> cpu_flags_for(const std::string& arch, const std::string& mcpu);

// The architecture part of a triple, normalized (arm64 -> aarch64, amd64 -> x86_64).
std::string triple_arch(const std::string& triple);

// This machine's architecture, as triple_arch names it.
std::string host_arch();

// Builds the CrossTarget from the command line and checks it with the cross
// compiler itself, before the model is compiled: the compiler runs
// (-dumpmachine), builds for the triple's architecture, and accepts the CPU
// flag and the options on an empty file. Throws Error with one line naming
// the option otherwise. Without --cross-compiler nothing is asked: the triple
// and CPU are only recorded.
CrossTarget resolve_cross(const std::string& triple, const std::string& mcpu, const std::string& compiler,
                          const std::string& options);

}  // namespace mlipc::driver
