#include "frontend/onnx_export.h"

#include <map>
#include <set>

#include <onnx/onnx_pb.h>

#include "frontend/onnx_import.h"
#include "frontend/tensor_proto.h"
#include "support/error.h"
#include "support/file_util.h"

namespace mlipc::frontend {

namespace {

void set_attr(onnx::AttributeProto& a, const std::string& name, const AttrValue& v) {
  using A = onnx::AttributeProto;
  a.set_name(name);
  if (const auto* i = std::get_if<int64_t>(&v)) {
    a.set_type(A::INT);
    a.set_i(*i);
  } else if (const auto* f = std::get_if<float>(&v)) {
    a.set_type(A::FLOAT);
    a.set_f(*f);
  } else if (const auto* s = std::get_if<std::string>(&v)) {
    a.set_type(A::STRING);
    a.set_s(*s);
  } else if (const auto* is = std::get_if<std::vector<int64_t>>(&v)) {
    a.set_type(A::INTS);
    for (int64_t x : *is) a.add_ints(x);
  } else if (const auto* fs = std::get_if<std::vector<float>>(&v)) {
    a.set_type(A::FLOATS);
    for (float x : *fs) a.add_floats(x);
  } else if (const auto* ss = std::get_if<std::vector<std::string>>(&v)) {
    a.set_type(A::STRINGS);
    for (const std::string& x : *ss) a.add_strings(x);
  } else {
    a.set_type(A::TENSOR);
    tensor_to_proto(std::get<TensorData>(v), "", *a.mutable_t());
  }
}

void set_type(onnx::ValueInfoProto& vi, const std::string& name, const Value& v) {
  vi.set_name(name);
  auto* t = vi.mutable_type()->mutable_tensor_type();
  t->set_elem_type(onnx_dtype(v.dtype));
  auto* shape = t->mutable_shape();
  for (int64_t d : v.shape) shape->add_dim()->set_dim_value(d);
}

}  // namespace

std::string export_onnx(const Graph& g) {
  // Names: each graph input and output keeps its own; a value that holds
  // one of those names but is not that input or output takes another.
  std::map<ValueId, std::string> names;
  std::set<std::string> taken;
  for (const std::vector<GraphIO>* list : {&g.inputs, &g.outputs})
    for (const GraphIO& io : *list) {
      names[io.value] = io.name;
      taken.insert(io.name);
    }
  auto name_of = [&](ValueId v) -> std::string {
    if (auto it = names.find(v); it != names.end()) return it->second;
    std::string n = g.value(v).name;
    for (int k = 1; taken.count(n); ++k) n = g.value(v).name + "_" + std::to_string(k);
    taken.insert(n);
    return names[v] = n;
  };

  onnx::ModelProto m;
  m.set_ir_version(8);  // opset 18's
  m.set_producer_name("mlipc");
  auto* opset = m.add_opset_import();
  opset->set_domain("");
  opset->set_version(kExportOpset);
  bool microsoft = false;
  onnx::GraphProto* gp = m.mutable_graph();
  gp->set_name(g.model_name.empty() ? "mlipc" : g.model_name);
  std::set<ValueId> initializers;
  for (const Node& n : g.nodes) {
    if (n.op.rfind("mlipc.", 0) == 0)
      fail("{}: an internal operator of mlipc cannot be written as ONNX", n.describe());
    onnx::NodeProto* np = gp->add_node();
    np->set_op_type(n.op);
    np->set_name(n.name);
    if (is_microsoft_op(n.op) || is_16bit_qdq(g, n)) {
      np->set_domain("com.microsoft");
      microsoft = true;
    }
    for (ValueId v : n.inputs) {
      np->add_input(v == kNoValue ? "" : name_of(v));
      if (v != kNoValue && g.value(v).is_constant() && initializers.insert(v).second)
        tensor_to_proto(*g.value(v).constant, name_of(v), *gp->add_initializer());
    }
    for (ValueId v : n.outputs) np->add_output(v == kNoValue ? "" : name_of(v));
    for (const auto& [key, value] : n.attrs.all()) set_attr(*np->add_attribute(), key, value);
  }
  if (microsoft) {
    auto* ms = m.add_opset_import();
    ms->set_domain("com.microsoft");
    ms->set_version(1);
  }
  for (const GraphIO& in : g.inputs) set_type(*gp->add_input(), in.name, g.value(in.value));
  for (const GraphIO& out : g.outputs) {
    if (g.value(out.value).is_constant() && initializers.insert(out.value).second)
      tensor_to_proto(*g.value(out.value).constant, out.name, *gp->add_initializer());
    set_type(*gp->add_output(), out.name, g.value(out.value));
  }
  std::string bytes;
  if (!m.SerializeToString(&bytes)) fail("cannot serialize the ONNX model of '{}'", g.model_name);
  return bytes;
}

void write_onnx(const Graph& g, const std::filesystem::path& path) { write_file_atomic(path, export_onnx(g)); }

}  // namespace mlipc::frontend
