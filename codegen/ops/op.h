// The operator interface of the IR. Each operator is one entry in the table
// (op_table.cpp) with a shape rule and a reference evaluator, written in
// ops/<op>.cpp. The C kernel lives in c/kernels/<op>.cpp and its template
// in templates/kernels/. Shape rules and reference kernels throw Error with a
// message about the operator; the caller prefixes the node's name and op.
#pragma once

#include <string_view>
#include <vector>

#include "ir/graph.h"

namespace mlipc {

// What a shape rule sees: input types, shapes and constant values, the
// attributes (which it may normalize, e.g. resolve auto_pad into pads), and
// where it writes the output types and shapes.
class InferContext {
 public:
  InferContext(Graph& g, Node& n) : g_(g), n_(n) {}

  const Node& node() const { return n_; }
  Attrs& attrs() { return n_.attrs; }
  int num_inputs() const { return static_cast<int>(n_.inputs.size()); }
  int num_outputs() const { return static_cast<int>(n_.outputs.size()); }
  bool has_input(int i) const { return n_.has_input(static_cast<size_t>(i)); }
  const Value& input(int i) const;           // throws when the input is omitted
  const Shape& in_shape(int i) const { return input(i).shape; }
  DType in_dtype(int i) const { return input(i).dtype; }
  int in_rank(int i) const { return static_cast<int>(input(i).shape.size()); }
  const TensorData* in_const(int i) const;   // nullptr when absent or computed at run time
  // The constant value of input i; throws "input i ('name', what) must be a constant".
  const TensorData& require_const(int i, std::string_view what) const;
  // The same for an input whose value sets the output shape (Expand's shape,
  // Tile's repeats ...): the message says the shape would depend on run-time data.
  const TensorData& require_shape_const(int i, std::string_view what) const;
  void set_output(int i, DType dtype, Shape shape);
  // The static shape the model declares for output i, or null.
  const Shape* declared_output(int i) const;
  // Checks the input count lies in [lo, hi].
  void expect_inputs(int lo, int hi) const;
  // Checks input i has one of the listed element types.
  void expect_dtype(int i, std::initializer_list<DType> allowed) const;

 private:
  Graph& g_;
  Node& n_;
};

// What a reference kernel sees: input tensors (nullptr for omitted inputs) and
// output tensors already sized by the shape rule.
struct EvalContext {
  const Node& node;
  std::vector<const TensorData*> inputs;
  std::vector<TensorData>& outputs;
  const Attrs& attrs() const { return node.attrs; }
  const TensorData& in(int i) const;  // throws when omitted
  bool has_input(int i) const { return i < static_cast<int>(inputs.size()) && inputs[i] != nullptr; }
};

using InferFn = void (*)(InferContext&);
using EvalFn = void (*)(EvalContext&);

struct OpDef {
  std::string_view name;  // ONNX op type
  InferFn infer;
  EvalFn eval;
};

// The table of every operator the IR knows; nullptr if `op` is not in it.
const OpDef* find_op(std::string_view op);
const std::vector<OpDef>& all_ops();

// True for operators whose output is the input's bytes under another shape
// (Reshape, Flatten, Squeeze, Unsqueeze): backends give them no code, and the
// memory planner gives the output the input's storage.
bool is_view(const Node& n);

// Why mlipc refuses an ONNX operator it recognizes (NonZero: its output shape
// depends on the data), or "" when it has no such reason.
std::string_view refused_op_reason(std::string_view op);

// Normalizes a possibly negative axis against `rank`; throws when out of range.
int normalize_axis(int64_t axis, int rank, std::string_view what = "axis");

}  // namespace mlipc
