// The operator interface of the IR. Each operator is one entry in the table
// (op_table.cpp) with a shape rule and a reference evaluator, written in
// ops/<op>.cpp. The C kernel lives in c/kernels/<op>.cpp and its template
// in templates/kernels/. Shape rules and reference kernels throw Error with a
// message about the operator; the caller prefixes the node's name and op.
#pragma once

#include <cstdint>
#include <string>
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

// An operator whose output is input 0's bytes under another shape.
enum class View : uint8_t {
  None,
  Reshape,  // any shape of the same element count (Reshape, Flatten)
  Axes,     // inserts or drops axes of size 1 (Squeeze, Unsqueeze)
};

// How passes/fold_qdq folds DequantizeLinear -> op -> QuantizeLinear into
// an integer operator; post-training quantization (ptq/classify.cpp) makes
// int8 layers of the same classes. None: no integer form, the op stays a
// float computation between its DequantizeLinear and QuantizeLinear.
enum class QdqFold : uint8_t {
  None,
  Conv,               // Conv, ConvTranspose -> QLinearConv, mlipc.QLinearConvTranspose
  Dense,              // Gemm, MatMul -> QLinearConv 1x1 between Reshapes (constant B), QLinearMatMul
  Binary,             // Add, Mul -> QLinearAdd, QLinearMul
  GlobalAveragePool,  // -> QLinearGlobalAveragePool
  AveragePool,        // -> QLinearAveragePool
  Concat,             // -> tables for the inputs of another scale, then Concat
  Table,              // an activation -> a 256-entry table (mlipc.QLinearLookup); ops::activation_function
  SameScale,          // the op itself on the integers: the scale and zero point pass through unchanged
  QOperatorTable,     // com.microsoft QLinearSigmoid, QLinearLeakyRelu -> mlipc.QLinearLookup
  QOperatorConcat,    // com.microsoft QLinearConcat -> tables, then Concat
};

// Multiply-accumulates of a node (its shapes inferred).
using MacsFn = uint64_t (*)(const Graph& g, const Node& n);
// The axis of the weights that holds the output channels (Gemm's depends on transB).
using WeightAxisFn = int (*)(const Node& n);
// Why a node of its fold class has no integer form with these attributes
// (a Resize that interpolates), "" when it has one.
using QdqRefusalFn = std::string (*)(const Node& n);

// The facts about an operator that passes and backends ask, written once in
// its table row (ops/op_list_<family>.inc). Each is "no" unless the row says
// otherwise; the setters below are what a row writes.
struct OpTraits {
  static constexpr int8_t kAllInputs = -1;

  // Memory: a view; backends emit no code for it and the planner gives the
  // output the input's storage (is_view).
  View view = View::None;
  // Data movement: the output is input 0's elements, each exactly once, under
  // another shape or in another order (the views, Transpose, Identity): no
  // arithmetic, nothing dropped or repeated.
  bool rearranges = false;
  // The node may carry a fused activation (attribute "activation",
  // passes/fuse_activation): its reference and C kernels apply it.
  bool fuses_activation = false;
  // An activation that clamps its input to a constant range (Relu, Clip):
  // quantization folds it into the integer output's range.
  bool clamps = false;
  // Quantization: how fold_qdq folds it, and whether a clamping activation
  // that alone reads its output becomes the integer output's clamp.
  QdqFold qdq = QdqFold::None;
  bool qdq_absorbs_clamp = false;
  QdqRefusalFn qdq_refusal = nullptr;  // nullptr: every node of the class folds
  // Inputs: the weights of a product (-1: none) and the axis of their output
  // channels, its bias (-1: none), and how many leading inputs carry tensor
  // data (the rest are parameters: a shape, axes, pads, bounds).
  int8_t weight = -1;
  WeightAxisFn weight_axis = nullptr;
  int8_t bias = -1;
  int8_t data_inputs = kAllInputs;
  // Multiply-accumulates (nullptr: the operator has none).
  MacsFn macs = nullptr;

  // The setters a table row chains: OpTraits().as_view(View::Reshape).data(1)...
  OpTraits& as_view(View v) { view = v; rearranges = true; return *this; }
  OpTraits& rearranging() { rearranges = true; return *this; }
  OpTraits& fused_activation() { fuses_activation = true; return *this; }
  OpTraits& clamping() { clamps = true; return *this; }
  OpTraits& qdq_fold(QdqFold f) { qdq = f; return *this; }
  OpTraits& absorbs_clamp() { qdq_absorbs_clamp = true; return *this; }
  OpTraits& qdq_unless(QdqRefusalFn f) { qdq_refusal = f; return *this; }
  OpTraits& weights(int8_t input, WeightAxisFn axis) { weight = input; weight_axis = axis; return *this; }
  OpTraits& bias_at(int8_t input) { bias = input; return *this; }
  OpTraits& data(int8_t count) { data_inputs = count; return *this; }
  OpTraits& mac_count(MacsFn f) { macs = f; return *this; }
};

// Weight axes for OpTraits::weights.
inline int weight_rows(const Node&) { return 0; }     // [M, ...]: Conv's weights
inline int weight_columns(const Node&) { return 1; }  // [K, N], [C, M/group, ...]: MatMul's B, ConvTranspose's weights

struct OpDef {
  std::string_view name;  // ONNX op type
  InferFn infer;
  EvalFn eval;
  OpTraits traits;
};

// The table of every operator the IR knows; nullptr if `op` is not in it.
const OpDef* find_op(std::string_view op);
const std::vector<OpDef>& all_ops();

// The traits of `op`; every trait "no" for an operator the table does not hold.
const OpTraits& op_traits(std::string_view op);

// True for operators whose output is the input's bytes under another shape
// (OpTraits::view: Reshape, Flatten, Squeeze, Unsqueeze): backends give them
// no code, and the memory planner gives the output the input's storage.
bool is_view(const Node& n);

// The indices of the inputs of n that carry tensor data (OpTraits::data_inputs):
// every input present, or the leading ones the operator reads as data.
std::vector<size_t> data_inputs(const Node& n);

// The value of n's weights (OpTraits::weight), kNoValue when it has none.
ValueId weight_of(const Node& n);

// Whether op is a quantization operator: QuantizeLinear, DequantizeLinear,
// DynamicQuantizeLinear and the integer ones (QLinear*, ConvInteger,
// MatMulInteger): the family of ops/op_list_quant.inc.
bool is_quantization_op(std::string_view op);

// Multiply-accumulates of n (OpTraits::macs), 0 for an operator that has none.
uint64_t node_macs(const Graph& g, const Node& n);

// Why mlipc refuses an ONNX operator it recognizes (NonZero: its output shape
// depends on the data), or "" when it has no such reason.
std::string_view refused_op_reason(std::string_view op);

// Normalizes a possibly negative axis against `rank`; throws when out of range.
int normalize_axis(int64_t axis, int rank, std::string_view what = "axis");

}  // namespace mlipc
