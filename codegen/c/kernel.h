// The CPU kernel interface. Each operator that runs on the CPU has a prepare
// function (c/kernels/<op>.cpp) that checks the node can run here and fills a
// KernelSpec: which template (templates/kernels/<name>.c) to instantiate, the
// values baked into it, and which node inputs the generated function takes
// as pointers. The framework adds for every template:
//   {{fn}}              the function name
//   {{in<i>_t}}, {{out<i>_t}}  C element types of node input/output i
//   {{in<i>_n}}, {{out<i>_n}}  their element counts
//   {{act}}             the fused activation as a C statement on float `v` ("" if none)
// The generated function is `static void {{fn}}(<args as const T*>, <outputs as T*>)`
// with arguments in `args` order, then every output in order, then, when the
// kernel asks for scratch_bytes > 0, `void* scratch`: a buffer of the arena
// that lives only while the kernel runs (recurrent state, a matrix to factor).
#pragma once

#include <kainjow/mustache.hpp>

#include <string>
#include <string_view>
#include <vector>

#include "ir/activation.h"
#include "ir/graph.h"

namespace mlipc::c {

using TemplateData = kainjow::mustache::data;

struct KernelSpec {
  std::string template_name;  // file name under templates/kernels/
  std::string op;             // what the call is, when not the node's op (a sub-graph: "mlip.Region"):
                              // the function's name and the layer table's op
  TemplateData data;          // op-specific template values
  std::vector<int> args;      // node input indices passed as pointers, in signature order
  bool returns_status = false;        // the function returns int32_t; non-zero aborts the run
  std::vector<std::string> includes;  // headers lib1.c must include ("mlip/region.h")
  size_t scratch_bytes = 0;           // arena bytes the kernel needs while it runs (its last argument)

  void set(const std::string& key, const std::string& v) { data.set(key, v); }
  void set(const std::string& key, int64_t v) { data.set(key, std::to_string(v)); }
  void set_flag(const std::string& key, bool on) { data.set(key, on ? TemplateData(TemplateData::type::bool_true) : TemplateData(TemplateData::type::bool_false)); }
  // A list of objects for {{#key}}...{{/key}} sections.
  void set_list(const std::string& key, const std::vector<TemplateData>& items);
};

// Throws Error (the caller names the node) when the node cannot run on the CPU.
using PrepareFn = void (*)(const Graph& g, const Node& n, KernelSpec& spec);

struct KernelDef {
  std::string_view op;
  PrepareFn prepare;
};

// nullptr when the operator has no CPU kernel.
const KernelDef* find_kernel(std::string_view op);

// C literals that round-trip exactly: "0.1f", "1.0f", "-INFINITY", "NAN".
std::string c_float(float v);
std::string c_double(double v);
std::string c_int(int64_t v);  // "-2147483647 - 1"-safe, with LL suffix outside int32 range
// A C string literal's content (quotes, backslashes, '?' and control bytes escaped).
std::string c_string(const std::string& s);
// A C literal of a one-element tensor's value in its element type
// (float16/bfloat16: their bit patterns).
std::string c_scalar(const TensorData& v);
// Sanitized C identifier from a model name ("conv1/out:0" -> "conv1_out_0").
std::string c_ident(std::string_view name);
// "v = v > 0.0f ? v : 0.0f;" etc., or "" for no activation.
std::string c_activation(const Activation& act);

// Throws unless input/output i of `n` has one of the element types listed.
void expect_dtype(const Graph& g, const Node& n, int input, std::initializer_list<DType> allowed);
// Throws unless input i of `n` is float32 (the CPU kernels' compute type).
void expect_float(const Graph& g, const Node& n, int input);

}  // namespace mlipc::c
