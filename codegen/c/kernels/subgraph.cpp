// A sub-graph a backend compiled (kSubgraphOp): the call it describes
// (ops/subgraph.h), whichever backend compiled it, on the body's inputs
// and outputs.
#include "c/kernels/kernels.h"
#include "ops/subgraph.h"
#include "support/error.h"

namespace mlipc::c::kernels {

namespace {

// "ins" or "outs": one entry per input or output of the body.
std::vector<TemplateData> io_list(const Graph& g, const std::vector<ValueId>& values, size_t count, const char* var) {
  std::vector<TemplateData> list;
  for (size_t i = 0; i < count; ++i) {
    const Value& v = g.value(values[i]);
    TemplateData d;
    d.set("var", var + std::to_string(i));
    d.set("index", std::to_string(i));
    d.set("t", std::string(dtype_ctype(v.dtype)));
    d.set("bytes", std::to_string(tensor_bytes(v.dtype, v.shape)));
    list.push_back(d);
  }
  return list;
}

}  // namespace

void prepare_Subgraph(const Graph& g, const Node& n, KernelSpec& spec) {
  const auto* compiled = dynamic_cast<const ops::CallableSubgraph*>(n.compiled.get());
  if (!compiled || !n.body)
    fail("internal: sub-graph compiled by '{}' has no C call", n.attrs.get_string("compiler", ""));
  if (n.inputs.size() < n.body->inputs.size() || n.outputs.size() < n.body->outputs.size())
    fail("internal: the sub-graph node and its body disagree on inputs/outputs");
  const ops::SubgraphCall call = compiled->c_call(n);
  for (int a : call.args)
    if (a < 0 || static_cast<size_t>(a) >= n.inputs.size()) fail("internal: sub-graph call argument {} is no input", a);
  spec.template_name = call.template_name;
  spec.op = call.op;
  spec.returns_status = call.returns_status;
  spec.includes = call.includes;
  spec.args = call.args;
  spec.set_list("ins", io_list(g, n.inputs, n.body->inputs.size(), "in"));
  spec.set_list("outs", io_list(g, n.outputs, n.body->outputs.size(), "out"));
  spec.set("num_inputs", static_cast<int64_t>(n.body->inputs.size()));
  spec.set("num_outputs", static_cast<int64_t>(n.body->outputs.size()));
  for (const auto& [key, value] : call.values) spec.set(key, value);
  for (const auto& [key, on] : call.flags) spec.set_flag(key, on);
}

}  // namespace mlipc::c::kernels
