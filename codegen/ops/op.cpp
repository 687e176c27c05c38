#include "ops/op.h"

#include <algorithm>
#include <limits>

#include "support/error.h"

namespace mlipc {

const Value& InferContext::input(int i) const {
  if (!has_input(i)) fail("required input #{} is missing", i);
  return g_.value(n_.inputs[static_cast<size_t>(i)]);
}

const TensorData* InferContext::in_const(int i) const {
  if (!has_input(i)) return nullptr;
  return g_.value(n_.inputs[static_cast<size_t>(i)]).constant.get();
}

const TensorData& InferContext::require_const(int i, std::string_view what) const {
  const TensorData* t = in_const(i);
  if (!t)
    fail("input #{} ('{}', {}) must be a constant known at compile time; it is computed at run time", i,
         input(i).name, what);
  return *t;
}

const TensorData& InferContext::require_shape_const(int i, std::string_view what) const {
  const TensorData* t = in_const(i);
  if (!t)
    fail("input #{} ('{}', {}) must be a constant known at compile time: the output shape depends on its value, "
         "and mlipc plans every shape statically; here it is computed at run time",
         i, input(i).name, what);
  return *t;
}

void InferContext::set_output(int i, DType dtype, Shape shape) {
  if (i >= num_outputs()) fail("internal: output #{} set but the node has {}", i, num_outputs());
  ValueId id = n_.outputs[static_cast<size_t>(i)];
  if (id == kNoValue) return;  // an optional output the model does not use
  // The kernels index tensors with int32_t and folding allocates the output:
  // refuse larger tensors here, before anything is allocated (and before the
  // element count can overflow).
  constexpr int64_t kMaxElements = std::numeric_limits<int32_t>::max();
  if (std::find(shape.begin(), shape.end(), 0) == shape.end()) {
    int64_t n = 1;
    for (int64_t d : shape) {
      if (d < 0) fail("internal: output #{} has a negative dimension in {}", i, shape_str(shape));
      if (n > kMaxElements / d)
        fail("output #{} {} would have more than 2^31 - 1 elements, the most a tensor may have", i, shape_str(shape));
      n *= d;
    }
  }
  check_tensor_size(dtype, shape);  // every value is bounded before anything allocates it
  Value& v = g_.value(id);
  v.dtype = dtype;
  v.shape = std::move(shape);
  v.shape_known = true;
}

const Shape* InferContext::declared_output(int i) const {
  if (i >= num_outputs() || n_.outputs[static_cast<size_t>(i)] == kNoValue) return nullptr;
  return g_.value(n_.outputs[static_cast<size_t>(i)]).declared_shape.get();
}

void InferContext::expect_inputs(int lo, int hi) const {
  int n = num_inputs();
  if (n < lo || n > hi) {
    if (lo == hi) fail("expects {} input(s), got {}", lo, n);
    fail("expects {} to {} inputs, got {}", lo, hi, n);
  }
}

void InferContext::expect_dtype(int i, std::initializer_list<DType> allowed) const {
  DType t = in_dtype(i);
  if (std::find(allowed.begin(), allowed.end(), t) != allowed.end()) return;
  std::string names;
  for (DType a : allowed) names += (names.empty() ? "" : ", ") + std::string(dtype_name(a));
  fail("input #{} ('{}') has element type {}; supported: {}", i, input(i).name, dtype_name(t), names);
}

const TensorData& EvalContext::in(int i) const {
  if (!has_input(i)) fail("required input #{} is missing", i);
  return *inputs[static_cast<size_t>(i)];
}

bool is_view(const Node& n) { return op_traits(n.op).view != View::None; }

std::vector<size_t> data_inputs(const Node& n) {
  const int8_t count = op_traits(n.op).data_inputs;
  std::vector<size_t> v;
  if (count != OpTraits::kAllInputs) {
    for (size_t k = 0; k < static_cast<size_t>(count) && k < n.inputs.size(); ++k) v.push_back(k);
    return v;
  }
  for (size_t k = 0; k < n.inputs.size(); ++k)
    if (n.has_input(k)) v.push_back(k);
  return v;
}

ValueId weight_of(const Node& n) {
  const int8_t w = op_traits(n.op).weight;
  return w >= 0 && static_cast<size_t>(w) < n.inputs.size() ? n.inputs[static_cast<size_t>(w)] : kNoValue;
}

uint64_t node_macs(const Graph& g, const Node& n) {
  const MacsFn f = op_traits(n.op).macs;
  return f ? f(g, n) : 0;
}

int normalize_axis(int64_t axis, int rank, std::string_view what) {
  if (axis < -rank || axis >= std::max(rank, 1)) fail("{} {} is out of range for rank {}", what, axis, rank);
  return static_cast<int>(axis < 0 ? axis + rank : axis);
}

}  // namespace mlipc
