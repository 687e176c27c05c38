#include "frontend/onnx_import.h"

#include <onnx/onnx_pb.h>

#include <cctype>
#include <set>

#include <fmt/format.h>

#include "frontend/opset.h"
#include "frontend/tensor_proto.h"
#include "ops/infer.h"
#include "support/error.h"
#include "support/file_util.h"
#include "support/limits.h"
#include "support/text.h"

namespace fs = std::filesystem;

namespace mlipc::frontend {

namespace {

bool is_default_domain(const std::string& d) { return d.empty() || d == "ai.onnx"; }


int default_opset(const onnx::ModelProto& m, const std::string& what) {
  for (const auto& o : m.opset_import())
    if (is_default_domain(o.domain())) return static_cast<int>(o.version());
  fail("{}: the model imports no opset of the default ONNX domain", what);
}

Shape declared_shape(const onnx::ValueInfoProto& vi, const ImportOptions& opt, const std::string& what) {
  const auto& type = vi.type();
  if (!type.has_tensor_type()) fail("{}: input '{}' is not a tensor (sequences and maps are not supported)", what, vi.name());
  auto it = opt.input_shapes.find(vi.name());
  const auto& tt = type.tensor_type();
  if (!tt.has_shape()) {
    if (it != opt.input_shapes.end()) return it->second;
    fail("{}: input '{}' has no declared shape; give it with --input-shapes {}:[...]", what, vi.name(), vi.name());
  }
  Shape shape;
  int axis = 0;
  std::string dynamic;
  for (const auto& d : tt.shape().dim()) {
    if (d.has_dim_value() && d.dim_value() >= 0) shape.push_back(d.dim_value());
    else {
      shape.push_back(-1);
      if (dynamic.empty()) dynamic = fmt::format("'{}' at axis {}", d.has_dim_param() ? d.dim_param() : "?", axis);
    }
    ++axis;
  }
  if (it != opt.input_shapes.end()) {
    const Shape& given = it->second;
    if (given.size() != shape.size())
      fail("{}: --input-shapes gives input '{}' rank {} ({}), but the model declares rank {}", what, vi.name(),
           given.size(), shape_str(given), shape.size());
    for (size_t i = 0; i < shape.size(); ++i)
      if (shape[i] >= 0 && shape[i] != given[i])
        fail("{}: --input-shapes gives input '{}' {}, but the model fixes axis {} to {}", what, vi.name(),
             shape_str(given), i, shape[i]);
    return given;
  }
  if (!dynamic.empty()) {
    std::string example;
    for (int64_t d : shape) example += (example.empty() ? "" : ",") + (d < 0 ? std::string("1") : std::to_string(d));
    fail("{}: input '{}' has a dynamic dimension {}; give a static shape with --input-shapes {}:[{}]", what,
         vi.name(), dynamic, vi.name(), example);
  }
  return shape;
}

AttrValue convert_attr(const onnx::AttributeProto& a, const fs::path& dir, const std::string& what) {
  using A = onnx::AttributeProto;
  switch (a.type()) {
    case A::FLOAT: return a.f();
    case A::INT: return static_cast<int64_t>(a.i());
    case A::STRING: return a.s();
    case A::FLOATS: return std::vector<float>(a.floats().begin(), a.floats().end());
    case A::INTS: return std::vector<int64_t>(a.ints().begin(), a.ints().end());
    case A::STRINGS: return std::vector<std::string>(a.strings().begin(), a.strings().end());
    case A::TENSOR: return tensor_from_proto(a.t(), dir, what + " attribute '" + a.name() + "'");
    default: break;
  }
  fail("{}: attribute '{}' has a type mlipc does not support ({})", what, a.name(),
       A::AttributeType_Name(a.type()));
}

class Importer {
 public:
  Importer(const fs::path& path, const ImportOptions& opt) : path_(path), dir_(path.parent_path()), opt_(opt) {}

  // " (input of node 'n' (Op))" for the first node that reads `name`, or "":
  // an error about a tensor says which node it feeds.
  static std::string consumer_of(const onnx::GraphProto& gp, const std::string& name) {
    for (const auto& n : gp.node())
      for (const auto& in : n.input())
        if (in == name)
          return n.name().empty() ? fmt::format(" (input of a {} node)", printable(n.op_type()))
                                  : fmt::format(" (input of node '{}' ({}))", printable(n.name()), printable(n.op_type()));
    return "";
  }

  Graph run(const std::string& bytes) {
    const std::string what = path_.string();
    onnx::ModelProto model;
    if (bytes.empty() || !model.ParseFromString(bytes))
      fail("{}: not an ONNX model (cannot parse it as an ONNX protobuf; is the file truncated?)", what);
    if (!model.has_graph() || model.ir_version() <= 0)
      fail("{}: not an ONNX model (it has no {})", what, model.has_graph() ? "IR version" : "graph");
    g_.opset = default_opset(model, what);
    if (g_.opset < kMinOpset || g_.opset > kMaxOpset)
      fail("{}: opset {} is not supported (mlipc reads opsets {} to {})", what, g_.opset, kMinOpset, kMaxOpset);
    const onnx::GraphProto& gp = model.graph();
    if (gp.node_size() > limits::kMaxNodes)
      fail("{}: the graph has {} nodes, more than mlipc compiles ({})", what, gp.node_size(), limits::kMaxNodes);
    check_names_are_text(gp, what);
    g_.model_name = gp.name().empty() ? path_.stem().string() : gp.name();

    for (const auto& init : gp.initializer()) {
      if (g_.find(init.name()) != kNoValue) fail("{}: initializer '{}' is defined twice", what, init.name());
      ValueId id = g_.add_value(init.name());
      try {
        g_.set_constant(id, tensor_from_proto(init, dir_, fmt::format("{}: initializer '{}'", what, init.name())));
      } catch (const Error& e) {
        fail("{}{}", e.what(), consumer_of(gp, init.name()));
      }
    }
    // Names in --input-shapes must be graph inputs (checked first: a typo
    // there is the likelier mistake than the dynamic dimension it meant to fix).
    std::set<std::string> input_names;
    std::string names;
    for (const auto& vi : gp.input())
      if (g_.find(vi.name()) == kNoValue && input_names.insert(vi.name()).second)
        names += (names.empty() ? "" : ", ") + vi.name();
    for (const auto& [name, shape] : opt_.input_shapes)
      if (!input_names.count(name))
        fail("--input-shapes names '{}', which is not an input of {} (inputs: {})", name, what, names);
    for (const auto& vi : gp.input()) {
      if (g_.find(vi.name()) != kNoValue) continue;  // an initializer listed as input: a constant
      DType dt = DType::Undefined;
      try {
        dt = dtype_from_onnx(vi.type().tensor_type().elem_type(), fmt::format("{}: input '{}'", what, vi.name()));
      } catch (const Error& e) {
        fail("{}{}", e.what(), consumer_of(gp, vi.name()));
      }
      ValueId id = g_.add_value(vi.name(), dt);
      Value& v = g_.value(id);
      v.shape = declared_shape(vi, opt_, what);
      try {
        check_tensor_size(dt, v.shape);
      } catch (const Error& e) {
        fail("{}: input '{}': {}", what, vi.name(), e.what());
      }
      v.shape_known = true;
      g_.inputs.push_back({vi.name(), id});
    }
    std::set<std::string> node_names;
    for (int i = 0; i < gp.node_size(); ++i) import_node(gp.node(i), i, node_names);
    g_.source_nodes = gp.node_size();
    for (const auto* list : {&gp.value_info(), &gp.output()})
      for (const auto& vi : *list) record_declared_shape(vi);

    for (const auto& vi : gp.output()) {
      ValueId id = g_.find(vi.name());
      if (id == kNoValue) fail("{}: graph output '{}' is not produced by any node", what, vi.name());
      g_.outputs.push_back({vi.name(), id});
    }
    if (g_.outputs.empty()) fail("{}: the graph has no outputs", what);

    canonicalize_opset(g_);
    infer_and_fold(g_);
    return std::move(g_);
  }

 private:
  void import_node(const onnx::NodeProto& np, int index, std::set<std::string>& names) {
    Node n;
    n.op = np.op_type();
    n.name = np.name().empty() ? fmt::format("{}_{}", np.op_type(), index) : np.name();
    for (int k = 1; names.count(n.name); ++k) n.name = fmt::format("{}_{}", np.name(), k);
    names.insert(n.name);
    n.origins.push_back(fmt::format("{} ({})", n.name, n.op));
    g_.source_origins.push_back(n.origins.back());
    const std::string what = fmt::format("{}: {}", path_.string(), n.describe());
    if (np.domain() == "com.microsoft") {
      // onnxruntime's QuantizeLinear/DequantizeLinear: ONNX's, with int16 and
      // uint16 below opset 21 (what its quantizer writes for 16-bit activations).
      const bool qdq = n.op == "QuantizeLinear" || n.op == "DequantizeLinear";
      if (!is_microsoft_op(n.op) && !qdq)
        fail("{}: operator {} of domain 'com.microsoft' is not supported (of that domain only QLinearAdd, "
             "QLinearMul, QLinearGlobalAveragePool, QLinearAveragePool, QLinearConcat, QLinearSigmoid, QLinearLeakyRelu, "
             "QuantizeLinear and DequantizeLinear are)",
             what, n.op);
    } else if (!is_default_domain(np.domain())) {
      fail("{}: operator domain '{}' is not supported (only the default ONNX domain and com.microsoft's "
           "QLinear operators are)", what, np.domain());
    } else if (is_microsoft_op(n.op)) {
      fail("{}: {} is not an operator of the default ONNX domain (it is com.microsoft's)", what, n.op);
    }
    for (const auto& a : np.attribute()) {
      if (!a.ref_attr_name().empty()) fail("{}: attribute references (functions) are not supported", what);
      if (a.type() == onnx::AttributeProto::GRAPH || a.type() == onnx::AttributeProto::GRAPHS) continue;
      n.attrs.set(a.name(), convert_attr(a, dir_, what));
    }
    for (const std::string& in : np.input()) {
      if (in.empty()) {
        n.inputs.push_back(kNoValue);
        continue;
      }
      ValueId id = g_.find(in);
      if (id == kNoValue)
        fail("{}: input '{}' is not produced by an earlier node, an initializer or a graph input", what, in);
      n.inputs.push_back(id);
    }
    // An omitted trailing output is dropped; an omitted output before a
    // named one still needs storage, so it gets an internal name.
    int last = np.output_size() - 1;
    while (last >= 0 && np.output(last).empty()) --last;
    for (int k = 0; k <= last; ++k) {
      const std::string& out = np.output(k);
      if (out.empty()) {
        n.outputs.push_back(g_.add_value(g_.unique_name(fmt::format("{}_unused_output_{}", n.name, k))));
        continue;
      }
      if (g_.find(out) != kNoValue) fail("{}: output '{}' is defined twice", what, out);
      n.outputs.push_back(g_.add_value(out));
    }
    g_.nodes.push_back(std::move(n));
  }

  // Names become JSON strings (metadata.json, the MLIP nodes JSON) and .npz
  // keys, which are text; ONNX stores them as bytes, so a name that is not
  // UTF-8 is refused here rather than altered on its way out.
  static void check_names_are_text(const onnx::GraphProto& gp, const std::string& what) {
    const auto check = [&](const std::string& kind, const std::string& name) {
      if (!is_utf8(name)) fail("{}: {} '{}' is not valid UTF-8 (ONNX names are text)", what, kind, name);
    };
    check("graph name", gp.name());
    for (const auto& t : gp.initializer()) check("initializer", t.name());
    for (const auto* list : {&gp.input(), &gp.output(), &gp.value_info()})
      for (const auto& vi : *list) check("tensor", vi.name());
    for (const auto& np : gp.node()) {
      check("node", np.name());
      for (const std::string& v : np.input()) check(fmt::format("input of node '{}' ({})", np.name(), np.op_type()), v);
      for (const std::string& v : np.output()) check(fmt::format("output of node '{}' ({})", np.name(), np.op_type()), v);
    }
  }

  // Keeps the static shape the model declares for a node output, if any.
  void record_declared_shape(const onnx::ValueInfoProto& vi) {
    const ValueId id = g_.find(vi.name());
    if (id == kNoValue || g_.value(id).is_constant() || g_.is_graph_input(id)) return;
    if (!vi.type().has_tensor_type() || !vi.type().tensor_type().has_shape()) return;
    Shape shape;
    for (const auto& d : vi.type().tensor_type().shape().dim()) {
      if (!d.has_dim_value() || d.dim_value() < 0) return;
      shape.push_back(d.dim_value());
    }
    g_.value(id).declared_shape = std::make_shared<const Shape>(std::move(shape));
  }

  fs::path path_;
  fs::path dir_;
  const ImportOptions& opt_;
  Graph g_;
};

}  // namespace

Graph import_onnx(const fs::path& path, const ImportOptions& options) {
  return Importer(path, options).run(read_file(path));
}

Graph import_onnx_bytes(const std::string& bytes, const fs::path& path, const ImportOptions& options) {
  return Importer(path, options).run(bytes);
}

bool is_16bit_qdq(const Graph& g, const Node& n) {
  if (n.op != "QuantizeLinear" && n.op != "DequantizeLinear") return false;
  const ValueId q = n.op == "QuantizeLinear" ? n.outputs[0] : n.inputs[0];
  return q != kNoValue && g.value(q).dtype == DType::Int16;
}

bool is_microsoft_op(const std::string& op) {
  static const std::set<std::string> ops = {"QLinearAdd", "QLinearMul", "QLinearGlobalAveragePool", "QLinearConcat",
                                            "QLinearSigmoid", "QLinearLeakyRelu", "QLinearAveragePool"};
  return ops.count(op) != 0;
}

std::map<std::string, Shape> parse_input_shapes(const std::string& spec) {
  std::map<std::string, Shape> out;
  size_t i = 0;
  auto bad = [&](const char* why) {
    fail("--input-shapes '{}': {} (expected name:[d0,d1,...] entries separated by spaces)", spec, why);
  };
  while (i < spec.size()) {
    while (i < spec.size() && std::isspace(static_cast<unsigned char>(spec[i]))) ++i;
    if (i >= spec.size()) break;
    size_t colon = spec.find(":[", i);
    if (colon == std::string::npos || colon == i) bad("missing 'name:['");
    std::string name = spec.substr(i, colon - i);
    size_t close = spec.find(']', colon);
    if (close == std::string::npos) bad("missing ']'");
    Shape shape;
    std::string dims = spec.substr(colon + 2, close - colon - 2);
    size_t p = 0;
    while (p < dims.size()) {
      size_t comma = dims.find(',', p);
      std::string d = dims.substr(p, comma == std::string::npos ? std::string::npos : comma - p);
      size_t used = 0;
      long long v = -1;
      try {
        v = std::stoll(d, &used);
      } catch (const std::exception&) {
        bad("a dimension is not an integer");
      }
      while (used < d.size() && std::isspace(static_cast<unsigned char>(d[used]))) ++used;
      if (used != d.size() || v < 0) bad("a dimension is not a non-negative integer");
      shape.push_back(v);
      if (comma == std::string::npos) break;
      p = comma + 1;
    }
    if (out.count(name)) bad("an input is given twice");
    out[name] = shape;
    i = close + 1;
  }
  return out;
}

}  // namespace mlipc::frontend
