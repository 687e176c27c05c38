// Building an extracted tarball for the real targets and running it under
// QEMU, for the end-to-end tests of issue 10: an AArch64 Linux program
// (qemu-aarch64) with a plain hosted main through the checked entry, and the
// tarball's own bare-metal firmware template (templates/firmware) for QEMU's
// Cortex-M boards (qemu-system-arm, semihosting). Both give the raw bytes of
// every output, to compare with `mlipc run` on the host.
#pragma once

#include <filesystem>
#include <string>
#include <vector>

#include "io/npz.h"

namespace mlipc::test {

// Whether `tool` is on PATH.
bool have_tool(const std::string& tool);

// The C sources every build of a tarball compiles: codegen/host/src (the
// generated code and, for an MLIP module, the simulator it carries) and the
// runtime core, relative to `dir`, sorted.
std::vector<std::string> tarball_c_sources(const std::filesystem::path& dir);

// A hosted main for module "default": raw input files in, raw output files
// out, through mlip_model_run_checked.
extern const char* const kHostedMain;

struct TargetRun {
  std::string error;                 // empty when it built and ran
  std::vector<std::string> outputs;  // the raw bytes of each output
  std::string log;                   // what the program printed
  double build_seconds = 0, run_seconds = 0;
};

// Builds `x` (an extracted tarball of module "default") with
// aarch64-linux-gnu-gcc, `flags` and -static, and runs it under qemu-aarch64
// on `inputs`.
TargetRun run_aarch64(const std::filesystem::path& x, const std::vector<std::string>& flags,
                      const io::NamedTensors& inputs, size_t num_outputs);

// Writes the header templates/firmware/main.c includes with INPUTS=...:
// fw_input<k>, the bytes of each input.
void write_firmware_inputs(const std::filesystem::path& header, const io::NamedTensors& inputs);

// Builds `x`'s templates/firmware with make (BOARD=board and the given make
// variables, INPUTS from `inputs` unless it is empty) and runs the image
// under qemu-system-arm; parses what main.c prints. `elf` receives the
// image's path.
TargetRun run_firmware(const std::filesystem::path& x, const std::string& board, const std::vector<std::string>& vars,
                       const io::NamedTensors& inputs, std::filesystem::path* elf = nullptr);

// The outputs templates/firmware/main.c prints ("output <k> <member>
// <dtype> <size>", then hex words), back to bytes; sets `error` on text it
// cannot read.
std::vector<std::string> parse_firmware_outputs(const std::string& text, std::string* error);

// Symbols of an ELF or object (arm-none-eabi-nm) that are heap or
// printf-family functions: malloc, free, calloc, realloc, printf, sprintf,
// vsnprintf, ... ("U name" for undefined ones).
std::vector<std::string> heap_or_printf_symbols(const std::filesystem::path& file, bool undefined_only);

}  // namespace mlipc::test
