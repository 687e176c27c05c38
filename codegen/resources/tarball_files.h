// The files every tarball carries beside its module's generated code
// (docs/mlf.md, "Layout mlipc writes"): the runtime, laid out as TVM's
// standalone CRT, and the firmware-facing templates. What `mlipc compile`
// writes (driver) and what `mlipc run` accepts (host) come from here.
#pragma once

#include <map>
#include <set>
#include <string>
#include <string_view>

namespace mlipc::resources {

// The path below `prefix` ("templates/mlf/crt_config.h.template" below
// "templates/mlf/" is "crt_config.h.template"); fails when it is not below.
std::string_view below(std::string_view path, std::string_view prefix);

// The simulator as a tarball carries it: every file of runtime/sim
// concatenated into one translation unit (the compiler inlines the small
// readers across files: 9 KB less Cortex-M code than separate objects),
// so that every build compiles it once, however it globs.
inline constexpr const char* kSimulatorSource = "runtime/src/sim/mlip_sim.c";
// What the TVM adapter carries for firmware that compiles only it: weak
// copies of the core and, with MLIP regions, of the simulator.
inline constexpr const char* kAdapterRuntimeCopy = "runtime/src/runtime/crt/common/mlip_runtime_copy.h";

// runtime/ and templates/ of a module's tarball, by path: the headers, the
// core, the pipeline runtime, the TVM adapter and its runtime copy, the
// simulator (`with_simulator`: the module has MLIP regions; a CPU-only
// tarball has none, so no build of it compiles the simulator), the
// crt_config and platform templates, templates/firmware without main.c
// (written for the module).
std::map<std::string, std::string> tarball_files(bool with_simulator);

// Every path tarball_files() writes, with or without the simulator, and
// templates/firmware/main.c.
std::set<std::string> tarball_file_names();

}  // namespace mlipc::resources
