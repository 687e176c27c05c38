#include "c/cpu.h"

#include <fmt/format.h>

#include "support/error.h"
#include "support/text.h"

namespace mlipc::c {

namespace {

struct Known {
  std::string_view name;
  CpuTarget::Family family;
  std::vector<std::string> isas;
};

using F = CpuTarget::Family;

// Arm's Cortex-M cores by their extensions (the DSP extension is optional on
// the M33 and M35P; GCC and LLVM enable it for these names), the 64-bit Arm
// cores (Advanced SIMD is part of every AArch64 core), and the x86-64 levels
// and cores with AVX2 or without.
const std::vector<Known>& known() {
  static const std::vector<Known> k = [] {
    const std::vector<std::pair<std::vector<std::string_view>, Known>> groups = {
        {{"cortex-m0", "cortex-m0plus", "cortex-m1", "cortex-m3", "cortex-m23"}, {"", F::CortexM, {}}},
        {{"cortex-m4", "cortex-m7", "cortex-m33", "cortex-m35p"}, {"", F::CortexM, {"dsp"}}},
        {{"cortex-m52", "cortex-m55", "cortex-m85"}, {"", F::CortexM, {"mve", "dsp"}}},
        {{"cortex-a35", "cortex-a53", "cortex-a55", "cortex-a57", "cortex-a65", "cortex-a72", "cortex-a73",
          "cortex-a75", "cortex-a76", "cortex-a77", "cortex-a78", "cortex-a510", "cortex-a520", "cortex-a710",
          "cortex-a715", "cortex-a720", "cortex-x1", "cortex-x2", "cortex-x3", "cortex-x4", "neoverse-e1",
          "neoverse-n1", "neoverse-n2", "neoverse-n3", "neoverse-v1", "neoverse-v2", "neoverse-v3"},
         {"", F::AArch64, {"neon"}}},
        {{"x86-64", "x86-64-v2"}, {"", F::X86_64, {}}},
        {{"x86-64-v3", "x86-64-v4", "haswell", "broadwell", "skylake", "skylake-avx512", "cascadelake",
          "icelake-client", "icelake-server", "sapphirerapids", "alderlake", "znver1", "znver2", "znver3", "znver4"},
         {"", F::X86_64, {"x86"}}},
    };
    std::vector<Known> all;
    for (const auto& [names, known] : groups)
      for (std::string_view name : names) all.push_back({name, known.family, known.isas});
    return all;
  }();
  return k;
}

const Known* find(std::string_view name) {
  for (const Known& k : known())
    if (k.name == name) return &k;
  return nullptr;
}

CpuTarget from(const Known& k) { return {std::string(k.name), k.family, k.isas}; }

}  // namespace

CpuTarget cpu_target(std::string_view name) {
  if (name.empty()) return {};
  if (const Known* k = find(name)) return from(*k);
  std::string names;
  for (const Known& k : known()) names += (names.empty() ? "" : ", ") + std::string(k.name);
  fail("--target-c-mcpu '{}' is not a CPU mlipc knows (known: {})", printable(std::string(name)), names);
}

CpuTarget resolve_cpu(const std::string& c_mcpu, const std::string& llvm_mcpu, const std::string& arch) {
  if (!c_mcpu.empty()) {
    if (!llvm_mcpu.empty() && llvm_mcpu != c_mcpu)
      fail("--target-c-mcpu '{}' and --target-llvm-mcpu '{}' name different CPUs", printable(c_mcpu),
           printable(llvm_mcpu));
    return cpu_target(c_mcpu);
  }
  if (const Known* k = find(llvm_mcpu)) return from(*k);
  if (arch == "aarch64") return {"", F::AArch64, {"neon"}};
  if (arch == "x86_64") return {"", F::X86_64, {}};
  return {};
}

}  // namespace mlipc::c
