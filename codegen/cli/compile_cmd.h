// mlipc compile's options and work, declared once for the command line
// (add_compile) and the Python module (python/mlipc_ext.cpp), which parses
// its keyword arguments as these options' tokens.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include <CLI/CLI.hpp>

#include "io/npz.h"

namespace mlipc::cli {

struct CompileArgs {
  std::string model;
  std::string output;
  std::string target = "c";
  std::vector<std::string> input_shapes;
  std::string module_name = "default";
  std::string alignment = "16";  // numbers as text: cli/number_option.h reads them
  std::string planner = "hill_climb";
  std::string arena_reuse = "on";
  std::string output_names = "onnx";
  std::string mcpu = "cn10ka";
  std::string num_tiles = "8";
  std::string mattr = "sim -wb_pin_ocm=0";  // -quantize unset: the model decides (driver/quantization.h)
  std::string io_dtype = "float32";
  std::string requant = "fixed";
  std::string llvm_mtriple;
  std::string llvm_mcpu;
  std::string c_mcpu;
  std::string cross_compiler;
  std::string cross_compiler_options;
  std::string quantize = "none";
  std::string calibration;
  // The calibration arrays in memory (the Python module's calibration=),
  // in place of the --calibration file: the same checks from there on.
  std::optional<io::NamedTensors> calibration_arrays;
  std::string calibration_method = "minmax";
  std::string calibration_percentile = "99.99";
  std::string min_sqnr_db = "20";
  std::string weight_bits = "8", weight_block = "32";
  std::string weight_rounding;  // empty: nearest for int8, gptq for int16x8
  std::string emit_qdq;
  std::string pes;  // --pes: a mesh tarball (cli/mesh_cmd.cpp)
  std::string report;  // --report: the HTML report of the tarball written (cli/report.h)
  bool emit_qdq_given = false;  // --emit-qdq '' is refused, not taken as absent
  std::string pe_memory;
  bool pes_given = false, pe_memory_given = false;
};

// Declares compile's positional and options on `c`, read into `args` (which
// must outlive `c`'s parse).
void declare_compile_options(CLI::App& c, CompileArgs& args);
// After `c` parsed: refuses what no option took and a missing model, and
// notes which options were given.
void read_compile_args(const CLI::App& c, CompileArgs& args);
// Compiles and writes the tarball; returns the summary `mlipc compile` prints.
std::string run_compile(const CompileArgs& args);
// --report: writes the HTML report of the tarball written; returns its line.
std::string write_compile_report(const CompileArgs& args);

}  // namespace mlipc::cli
