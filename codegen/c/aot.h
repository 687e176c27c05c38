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
  std::string main_body;
  std::vector<std::pair<std::string, const TensorData*>> constants;
};

std::map<std::string, std::string> write_aot_sources(const AotInput& in);

}  // namespace mlipc::c
