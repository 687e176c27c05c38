#include "testlib/onnx_builder.h"

#include <onnx/onnx_pb.h>

#include <fmt/format.h>

#include "support/error.h"
#include "support/file_util.h"

namespace mlipc::test {

namespace {

int onnx_type(DType t) {
  switch (t) {
    case DType::Float32: return onnx::TensorProto::FLOAT;
    case DType::Float16: return onnx::TensorProto::FLOAT16;
    case DType::BFloat16: return onnx::TensorProto::BFLOAT16;
    case DType::Float64: return onnx::TensorProto::DOUBLE;
    case DType::Int8: return onnx::TensorProto::INT8;
    case DType::Int16: return onnx::TensorProto::INT16;
    case DType::Int32: return onnx::TensorProto::INT32;
    case DType::Int64: return onnx::TensorProto::INT64;
    case DType::UInt8: return onnx::TensorProto::UINT8;
    case DType::UInt16: return onnx::TensorProto::UINT16;
    case DType::UInt32: return onnx::TensorProto::UINT32;
    case DType::UInt64: return onnx::TensorProto::UINT64;
    case DType::Bool: return onnx::TensorProto::BOOL;
    default: fail("no ONNX type for {}", dtype_name(t));
  }
}

void to_proto(const TensorData& t, const std::string& name, onnx::TensorProto* p) {
  p->set_name(name);
  p->set_data_type(onnx_type(t.dtype()));
  for (int64_t d : t.shape()) p->add_dims(d);
  p->set_raw_data(std::string(reinterpret_cast<const char*>(t.raw()), t.nbytes()));
}

}  // namespace

struct OnnxBuilder::Impl {
  onnx::ModelProto model;
  int counter = 0;
};

OnnxBuilder::OnnxBuilder(int opset, std::string name) : impl_(new Impl) {
  impl_->model.set_ir_version(opset >= 15 ? 8 : 7);
  impl_->model.set_producer_name("mlipc-tests");
  auto* o = impl_->model.add_opset_import();
  o->set_domain("");
  o->set_version(opset);
  impl_->model.mutable_graph()->set_name(name);
}

OnnxBuilder::~OnnxBuilder() { delete impl_; }

OnnxBuilder& OnnxBuilder::input(const std::string& name, DType dtype, const Shape& shape) {
  auto* vi = impl_->model.mutable_graph()->add_input();
  vi->set_name(name);
  auto* tt = vi->mutable_type()->mutable_tensor_type();
  tt->set_elem_type(onnx_type(dtype));
  auto* sh = tt->mutable_shape();
  for (int64_t d : shape) {
    auto* dim = sh->add_dim();
    if (d < 0) dim->set_dim_param("N");
    else dim->set_dim_value(d);
  }
  return *this;
}

OnnxBuilder& OnnxBuilder::initializer(const std::string& name, const TensorData& value) {
  to_proto(value, name, impl_->model.mutable_graph()->add_initializer());
  return *this;
}

OnnxBuilder& OnnxBuilder::in_domain(const std::string& domain) {
  auto* g = impl_->model.mutable_graph();
  if (g->node_size() == 0) fail("OnnxBuilder: in_domain before any node");
  g->mutable_node(g->node_size() - 1)->set_domain(domain);
  for (const auto& o : impl_->model.opset_import())
    if (o.domain() == domain) return *this;
  auto* o = impl_->model.add_opset_import();
  o->set_domain(domain);
  o->set_version(1);
  return *this;
}

OnnxBuilder& OnnxBuilder::node(const std::string& op, const std::vector<std::string>& inputs,
                               const std::vector<std::string>& outputs,
                               const std::vector<std::pair<std::string, AttrValue>>& attrs, const std::string& name) {
  auto* n = impl_->model.mutable_graph()->add_node();
  n->set_op_type(op);
  n->set_name(name.empty() ? fmt::format("{}_{}", op, impl_->counter++) : name);
  for (const auto& i : inputs) n->add_input(i);
  for (const auto& o : outputs) n->add_output(o);
  for (const auto& [key, value] : attrs) {
    auto* a = n->add_attribute();
    a->set_name(key);
    using A = onnx::AttributeProto;
    if (auto* i = std::get_if<int64_t>(&value)) { a->set_type(A::INT); a->set_i(*i); }
    else if (auto* f = std::get_if<float>(&value)) { a->set_type(A::FLOAT); a->set_f(*f); }
    else if (auto* s = std::get_if<std::string>(&value)) { a->set_type(A::STRING); a->set_s(*s); }
    else if (auto* is = std::get_if<std::vector<int64_t>>(&value)) {
      a->set_type(A::INTS);
      for (int64_t v : *is) a->add_ints(v);
    } else if (auto* fs = std::get_if<std::vector<float>>(&value)) {
      a->set_type(A::FLOATS);
      for (float v : *fs) a->add_floats(v);
    } else if (auto* ss = std::get_if<std::vector<std::string>>(&value)) {
      a->set_type(A::STRINGS);
      for (const std::string& v : *ss) a->add_strings(v);
    } else if (auto* t = std::get_if<TensorData>(&value)) {
      a->set_type(A::TENSOR);
      to_proto(*t, "", a->mutable_t());
    } else {
      fail("OnnxBuilder: unsupported attribute type for '{}'", key);
    }
  }
  return *this;
}

OnnxBuilder& OnnxBuilder::declare(const std::string& name, DType dtype, const Shape& shape) {
  auto* vi = impl_->model.mutable_graph()->add_value_info();
  vi->set_name(name);
  auto* tt = vi->mutable_type()->mutable_tensor_type();
  tt->set_elem_type(onnx_type(dtype));
  auto* sh = tt->mutable_shape();
  for (int64_t d : shape) sh->add_dim()->set_dim_value(d);
  return *this;
}

OnnxBuilder& OnnxBuilder::output(const std::string& name) {
  impl_->model.mutable_graph()->add_output()->set_name(name);
  return *this;
}

std::string OnnxBuilder::bytes() const {
  std::string s;
  impl_->model.SerializeToString(&s);
  return s;
}

std::filesystem::path OnnxBuilder::save(const std::filesystem::path& dir, const std::string& file) const {
  std::filesystem::path p = dir / file;
  write_file(p, bytes());
  return p;
}

std::string layer_norm_decomposition(OnnxBuilder& b, const std::string& x, const std::string& prefix,
                                     const std::string& eps, const std::string& two, const std::string& gamma,
                                     const std::string& beta, const std::string& y) {
  const std::string p = prefix;
  b.node("ReduceMean", {x}, {p + "mean"}, {{"axes", ints{-1}}});
  b.node("Sub", {x, p + "mean"}, {p + "d"});
  if (two.empty())
    b.node("Mul", {p + "d", p + "d"}, {p + "sq"});
  else
    b.node("Pow", {p + "d", two}, {p + "sq"});
  b.node("ReduceMean", {p + "sq"}, {p + "var"}, {{"axes", ints{-1}}});
  b.node("Add", {p + "var", eps}, {p + "ve"});
  b.node("Sqrt", {p + "ve"}, {p + "sd"});
  std::string out = gamma.empty() && beta.empty() && !y.empty() ? y : p + "n";
  b.node("Div", {p + "d", p + "sd"}, {out});
  if (!gamma.empty()) {
    const std::string in = out;
    out = beta.empty() && !y.empty() ? y : p + "ng";
    b.node("Mul", {in, gamma}, {out});
  }
  if (!beta.empty()) {
    const std::string in = out;
    out = y.empty() ? p + "nb" : y;
    b.node("Add", {in, beta}, {out});
  }
  return out;
}

}  // namespace mlipc::test
