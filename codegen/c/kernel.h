// The CPU kernel interface. Each operator that runs on the CPU has a prepare
// function (c/kernels/<op>.cpp) that checks the node can run here and fills a
// KernelSpec: which template (templates/kernels/<name>.c) to instantiate, the
// values baked into it, and which node inputs the generated function takes
// as pointers. The framework adds for every template:
//   {{fn}}              the function name
//   {{in<i>_t}}, {{out<i>_t}}  C element types of node input/output i
//   {{in<i>_n}}, {{out<i>_n}}  their element counts
//   {{act}}             the fused activation as a C statement on float `v` ("" if none)
//   {{act_block}}       the same on the `nt` floats at `t`, in place (kmath_n.h's vectors)
// The generated function is `static void {{fn}}(<args as const T*>, <packed as const T*>, <outputs as T*>)`
// with arguments in `args` order, then the constants the kernel packed, then
// every output in order, then, when the kernel asks for scratch_bytes > 0,
// `void* scratch`: a buffer of the arena that lives only while the kernel
// runs (recurrent state, a matrix to factor).
//
// Layouts (c/layout.h): a tensor is stored as its shape says unless the
// backend stores it channels-last; it does so only where the kernels that
// write and read it said they can (KernelSpec::layouts), and tells each
// kernel its tensors' layouts (in_cl, out_cl) before preparing it.
#pragma once

#include <kainjow/mustache.hpp>

#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "c/cpu.h"
#include "ops/activation.h"
#include "ir/graph.h"

namespace mlipc::c {

using TemplateData = kainjow::mustache::data;

// Which tensors of a node its kernel can store channels-last ([N, C, D...]
// as [N, D..., C]; c/layout.h): the inputs in `free` either way, each on its
// own; the inputs in `tied` (the elementwise template's, a convolution's
// residual) the way the output is, whichever it is; output 0 channels-last
// when `output`. Inputs in neither list stay row-major, unless their bytes
// are the same in both layouts.
struct LayoutSupport {
  std::vector<int> free, tied;
  bool output = false;
};

struct KernelSpec {
  std::string template_name;  // file name under templates/kernels/
  std::string op;             // what the call is, when not the node's op (a sub-graph: "mlip.Region"):
                              // the function's name and the layer table's op
  TemplateData data;          // op-specific template values
  std::vector<int> args;      // node input indices passed as pointers, in signature order
  bool returns_status = false;        // the function returns int32_t; non-zero aborts the run
  std::vector<std::string> includes;  // headers lib1.c must include ("mlip/region.h")
  size_t scratch_bytes = 0;           // arena bytes the kernel needs while it runs (its last argument)
  // Constants the kernel makes at compile time (weights packed into the order
  // it reads), passed after the `args`, in order.
  std::vector<std::shared_ptr<const TensorData>> packed;
  // Set by the backend before prepare: node input / output i is stored
  // channels-last (absent: as its shape says).
  std::vector<bool> in_cl, out_cl;
  // Set by prepare: what the kernel could read and write channels-last.
  LayoutSupport layouts;
  // Set by prepare: node inputs whose bytes output 0 may take over (the
  // kernel reads every element before it writes the one at the same index,
  // and declares neither pointer restrict); the backend does where the input
  // dies at this node (memory/liveness.h).
  std::vector<int> in_place;
  // Set by prepare: the scratch bytes a zero-padded copy of the input would
  // take, if the kernel offers one (0: it does not), with whatever else the
  // kernel keeps in its scratch beside the copy (a fused pool's rows), so
  // the backend weighs the whole; set by the backend: use it (it does where
  // the scratch raises no step above the arena's lower bound).
  size_t pad_scratch_bytes = 0;
  bool pad_input = false;
  // Set by the backend before prepare: the CPU the C is for (c/cpu.h;
  // nullptr: none in particular). Kernels read it for what they decide at
  // generation time (padding, blocking); the instruction-set variant is
  // picked by the C (docs/adding-an-operator.md, "Kernel variants").
  const CpuTarget* cpu = nullptr;
  int q8_row_align() const { return cpu ? cpu->q8_row_align() : CpuTarget{}.q8_row_align(); }

  bool input_cl(size_t i) const { return i < in_cl.size() && in_cl[i]; }
  bool output_cl(size_t i) const { return i < out_cl.size() && out_cl[i]; }

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
// "v = v <= 0.0f ? 0.0f : v;" etc., or "" for no activation.
std::string c_activation(const Activation& act);
// The activation applied in place to the `nt` floats at `t` ({{act_block}}):
// Sigmoid, SiLU and Tanh through mlip/kmath_f.h's array forms (loops the
// compiler vectorizes, the same bits as the scalar ones), the others as a
// loop of c_activation; "" for none.
std::string c_activation_block(const Activation& act);
// The piecewise-linear activations (Relu, LeakyRelu, Clip, HardSigmoid,
// HardSwish) on a vector `vt v` ({{act_vector}}): c_activation's operations
// lane by lane, each select as MLIP__VSEL(mask, a, b) (a where the mask of
// type `vm` is set, else b), so the same bits; "" for the others and none.
std::string c_activation_vector(const Activation& act);

// Throws unless input/output i of `n` has one of the element types listed.
void expect_dtype(const Graph& g, const Node& n, int input, std::initializer_list<DType> allowed);
// Throws unless input i of `n` is float32 (the CPU kernels' compute type).
void expect_float(const Graph& g, const Node& n, int input);

}  // namespace mlipc::c
