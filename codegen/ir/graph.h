// The IR: a graph of values (tensors) and nodes (operators) in topological
// order. It knows no file format; the frontend builds it, passes rewrite it,
// backends read it.
#pragma once

#include <memory>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

#include "ir/attrs.h"
#include "ir/tensor_data.h"

namespace mlipc {

using ValueId = int32_t;
constexpr ValueId kNoValue = -1;  // an omitted optional input

struct Value {
  std::string name;  // unique in the graph (the ONNX value name where there is one)
  DType dtype = DType::Undefined;
  Shape shape;
  bool shape_known = false;
  std::shared_ptr<const TensorData> constant;  // set for initializers and folded values
  // The static shape the model declares for a computed value (value_info or
  // a graph output), if it declares one: shape rules whose output shape
  // depends on run-time data use it (checked when the data arrives).
  std::shared_ptr<const Shape> declared_shape;

  bool is_constant() const { return constant != nullptr; }
  size_t nbytes() const { return static_cast<size_t>(numel(shape)) * dtype_size(dtype); }
};

class Graph;

// The op of a node that stands for a sub-graph a backend compiles
// (passes/partition): its `body` holds the nodes, its attribute "compiler"
// names the backend ("mrvl").
inline constexpr const char* kSubgraphOp = "mlipc.Subgraph";

// What a backend made of a sub-graph node's body (for the MLIP, a command
// buffer and its report: mlip::CompiledRegion). The backend that made it
// defines the type; the backends that read it (the C backend's call) cast.
struct CompiledSubgraph {
  virtual ~CompiledSubgraph() = default;
};

struct Node {
  std::string op;    // ONNX op type, or an internal op ("mlipc.Copy", ...)
  std::string name;  // unique node name: the ONNX name, or "<op>_<k>" when the model has none
  std::vector<std::string> origins;  // "name (Op)" of every ONNX node this node stands for
  std::vector<ValueId> inputs;       // kNoValue for an omitted optional input
  std::vector<ValueId> outputs;
  Attrs attrs;
  // A sub-graph the node stands for (op kSubgraphOp): its inputs and outputs
  // correspond, in order, to this node's first inputs and outputs.
  std::shared_ptr<const Graph> body;
  std::shared_ptr<const CompiledSubgraph> compiled;  // set by the backend that compiled `body`

  bool has_input(size_t i) const { return i < inputs.size() && inputs[i] != kNoValue; }
  // "node 'name' (Op)": how diagnostics name a node.
  std::string describe() const;
};

// A graph input or output as the user sees it: its name stays even when
// passes make it refer to another value.
struct GraphIO {
  std::string name;
  ValueId value = kNoValue;
  // Set when the tensor is exposed quantized (--io-dtype int8,
  // passes/quantize_io): real = scale * (q - zero_point).
  bool quantized = false;
  float scale = 0.0f;
  int32_t zero_point = 0;
};

class Graph {
 public:
  std::vector<Node> nodes;  // topological order: the schedule
  std::vector<GraphIO> inputs;
  std::vector<GraphIO> outputs;
  int opset = 0;            // default-domain opset the model was written for
  std::string model_name;   // graph name from the file
  int source_nodes = 0;     // nodes in the source model, before folding and fusion
  std::vector<std::string> source_origins;  // "name (Op)" of each of them, in the model's order

  ValueId add_value(const std::string& name, DType dtype = DType::Undefined);
  // Adds a constant value named after `base` (made unique).
  ValueId add_constant(const std::string& base, TensorData data);
  // Turns an existing value into a constant (folding).
  void set_constant(ValueId id, TensorData data);

  Value& value(ValueId id) { return values_.at(static_cast<size_t>(id)); }
  const Value& value(ValueId id) const { return values_.at(static_cast<size_t>(id)); }
  size_t num_values() const { return values_.size(); }
  ValueId find(std::string_view name) const;  // kNoValue if there is none
  std::string unique_name(const std::string& base) const;

  // For each value, the indices of the nodes reading it (once per node).
  std::vector<std::vector<int>> consumers() const;
  // Index of the node producing each value, -1 for inputs and constants.
  std::vector<int> producers() const;
  bool is_graph_output(ValueId id) const;
  bool is_graph_input(ValueId id) const;

  // Replaces every node input reading `from` with `to` (graph outputs unchanged).
  void replace_uses(ValueId from, ValueId to);
  // Removes the nodes whose flag is set, keeping the order of the rest.
  void erase_nodes(const std::vector<bool>& dead);
  // Removes nodes none of whose outputs reach a graph output.
  void remove_dead_nodes();

 private:
  std::vector<Value> values_;
  std::unordered_map<std::string, ValueId> by_name_;
};

// Multi-line text form of the graph with shapes and ONNX origins
// (src/<module>.graph in the tarball, and `mlipc inspect`).
std::string graph_to_text(const Graph& g);

}  // namespace mlipc
