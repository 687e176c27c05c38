// One operator as a model, for operator tests: a one-node ONNX graph built
// in memory from its inputs, constants and attributes, and what tests do
// with it without writing files or starting processes:
//   - the shape rule: infer() imports the model in memory (the frontend and
//     the shape rules users run) and returns the outputs' types and shapes
//     and the node's attributes as the shape rule stored them;
//     infer_error() returns the refusal;
//   - the reference evaluator: reference() runs the node on given inputs;
// and, through the generated C on this machine (a compile, a C build and a
// run per model), expect_matches_reference() on targets c and "mrvl, c".
// An OpBatch compiles many cases as one model (independent nodes side by
// side), so that a sweep of operator configurations costs one C build and
// one run per target instead of one each. Example:
//   OpModel m("MaxPool");
//   m.input("x", DType::Float32, {1, 3, 8, 8}).attr("kernel_shape", ints{3, 3});
//   EXPECT_EQ(infer(m).shapes[0], (Shape{1, 3, 6, 6}));
//   OpBatch b;
//   b.add("3x3", m, {{"x", random_tensor(DType::Float32, {1, 3, 8, 8}, 1)}});
//   b.expect_matches_reference();            // target c, bit for bit
#pragma once

#include <filesystem>
#include <string>
#include <utility>
#include <vector>

#include "io/npz.h"
#include "ir/attrs.h"
#include "ir/tensor_data.h"
#include "testlib/onnx_builder.h"  // ints, floats
#include "testlib/tensors.h"

namespace mlipc::test {

class OpModel {
 public:
  explicit OpModel(std::string op, int opset = 17);

  // A graph input (a negative dimension is a dynamic one named "N").
  OpModel& input(const std::string& name, DType dtype, const Shape& shape);
  // An input that is a constant (an initializer).
  OpModel& constant(const std::string& name, TensorData value);
  // An omitted optional input (the empty name).
  OpModel& omitted();
  OpModel& attr(const std::string& name, AttrValue value);
  // The node's outputs; by default one, "y".
  OpModel& outputs(std::vector<std::string> names);
  // The node's operator domain ("com.microsoft"), version 1.
  OpModel& domain(std::string d);

  const std::string& op() const { return op_; }
  int opset() const { return opset_; }

  struct Input {
    std::string name;  // "" when omitted
    DType dtype = DType::Undefined;
    Shape shape;
    bool is_constant = false;
    TensorData value;  // when is_constant
  };
  const std::vector<Input>& inputs() const { return inputs_; }
  const std::vector<std::pair<std::string, AttrValue>>& attrs() const { return attrs_; }
  const std::vector<std::string>& output_names() const { return outputs_; }
  const std::string& op_domain() const { return domain_; }

  // The serialized ModelProto; save() writes it into scratch_dir().
  std::string bytes() const;
  std::filesystem::path save() const;

 private:
  std::string op_;
  int opset_;
  std::string domain_;
  std::vector<Input> inputs_;
  std::vector<std::pair<std::string, AttrValue>> attrs_;
  std::vector<std::string> outputs_ = {"y"};
};

// What the shape rule made of the node (after import: constants folded).
struct Inferred {
  std::vector<DType> dtypes;  // per output
  std::vector<Shape> shapes;
  Attrs attrs;                // the node's attributes as stored (empty when the node folded)
  bool folded = false;        // every input was constant: the outputs are constants
};

// Imports `m` in memory; throws Error with the frontend's message.
Inferred infer(const OpModel& m);
// The message importing `m` fails with, or "no error" (as import_error).
std::string infer_error(const OpModel& m);
// The reference evaluator's outputs of `m` on `inputs` (by input name), in memory.
io::NamedTensors reference(const OpModel& m, const io::NamedTensors& inputs);

// Compiles `m` for each target, builds and runs the generated C on
// `inputs`, and checks each output against the reference evaluator within
// rtol/atol (gtest EXPECTs naming the target and output).
void expect_matches_reference(const OpModel& m, const io::NamedTensors& inputs, double rtol = 0.0,
                              double atol = 0.0, const std::vector<std::string>& targets = {"c"});

// Cases of one operator test compiled together: every case's node, inputs
// and outputs renamed "c<k>_<name>" in one model (several when they have
// more than 64 inputs and outputs together), so that each target costs one
// compile, one C build and one run per model. The nodes are independent:
// each gets its own kernel, as it would alone. All cases share one opset.
class OpBatch {
 public:
  void add(std::string label, const OpModel& m, io::NamedTensors inputs, double rtol = 0.0, double atol = 0.0);
  size_t size() const { return cases_.size(); }
  // Each case's outputs against the reference evaluator's; a mismatch names the case.
  void expect_matches_reference(const std::vector<std::string>& targets = {"c"}) const;

 private:
  struct Case {
    std::string label;
    OpModel model;
    io::NamedTensors inputs;
    double rtol, atol;
  };
  void expect_chunk(size_t first, size_t last, const std::vector<std::string>& targets) const;
  std::vector<Case> cases_;
};

}  // namespace mlipc::test
