// The backend-neutral sub-graph op (kSubgraphOp, ir/graph.h): a node whose
// body a backend compiled (passes/partition, then e.g. the MLIP backend).
// What the backend made of the body describes its own C call, so the C
// backend emits the call of any compiled sub-graph without knowing which
// backend compiled it (c/kernels/subgraph.cpp).
#pragma once

#include <map>
#include <string>
#include <vector>

#include "ir/graph.h"

namespace mlipc::ops {

// The C call of one compiled sub-graph: a function instantiated from
// templates/kernels/<template_name>. The C backend gives every such
// template, beside the values below, the lists "ins" and "outs" (one
// entry per input and output of the body: "var" its parameter name,
// "index", "t" its C element type, "bytes" its size) and "num_inputs",
// "num_outputs"; the generated function takes the node inputs `args` (in
// that order) as const pointers, then every node output.
struct SubgraphCall {
  std::string template_name;          // file name under templates/kernels/
  std::string op;                     // the call's name: function name and layer table ("mlip.Region")
  std::vector<std::string> includes;  // headers the generated file must include
  bool returns_status = false;        // the function returns int32_t; non-zero stops the run
  std::vector<int> args;              // node input indices passed as pointers, in signature order
  std::map<std::string, std::string> values;  // {{key}} in the template
  std::map<std::string, bool> flags;          // {{#key}} / {{^key}} sections
};

// What a backend made of a sub-graph that the CPU code calls.
struct CallableSubgraph : CompiledSubgraph {
  // The call of node `n` (the node whose `compiled` this is).
  virtual SubgraphCall c_call(const Node& n) const = 0;
};

}  // namespace mlipc::ops
