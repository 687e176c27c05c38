// Renders the AOT sources from templates/aot: the header with microTVM's
// interface, lib0.c (constants, workspace, tvmgen_<m>_run, the model
// descriptor for the checked DLPack entry) and lib1.c (kernels, main).
#pragma once

#include <map>
#include <string>
#include <vector>

#include "c/c_backend.h"

namespace mlipc::c {

struct AotKernel {
  std::string comment;
  std::string code;  // the whole static function
  std::string call;  // "fn(args);"
  std::vector<std::string> includes;
  bool returns_status = false;  // the call can fail at run time
};

struct AotInput {
  std::string module;
  std::string generator;
  size_t workspace_size = 0;
  size_t workspace_alignment = 16;
  std::vector<IoInfo> inputs, outputs;
  std::vector<AotKernel> kernels;
  // The main function's lines, one entry per layer, in schedule order.
  std::vector<std::string> main_steps;
  std::vector<std::pair<std::string, const TensorData*>> constants;
};

// A main function with more layers than this calls them in parts of
// kLayersPerPart, each a function of its own that the compiler may not
// inline: the compiler inlines every layer's static function into the one
// function that calls it, and its optimizer's time grows with the square of
// that function's size (10,000 layers: 200 s at -O3, most of it in one
// function). Models of up to kMaxLayersInMain layers keep one main.
constexpr size_t kMaxLayersInMain = 256;
constexpr size_t kLayersPerPart = 64;

std::map<std::string, std::string> write_aot_sources(const AotInput& in);

}  // namespace mlipc::c
