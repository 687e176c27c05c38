// The operator table: one entry per operator the IR understands, each with
// its shape rule and reference kernel (ops/<op>.cpp). Operators that only
// appear in constant sub-graphs (Shape, Gather, Cast ...) are here too; the
// C backend's table (c/kernel_table.cpp) says which run on the CPU.
#include <algorithm>

#include "ops/op.h"
#include "ops/conv_transpose.h"
#include "ops/ops.h"
#include "ops/qlinear.h"

namespace mlipc {

const std::vector<OpDef>& all_ops() {
  static const std::vector<OpDef> table = {
#define MLIPC_OP(name) {#name, ops::infer_##name, ops::eval_##name},
#include "ops/op_list.inc"
#undef MLIPC_OP
      {kSubgraphOp, ops::infer_Subgraph, ops::eval_Subgraph},
      {ops::kQLookupOp, ops::infer_QLinearLookup, ops::eval_QLinearLookup},
      {ops::kQConvTransposeOp, ops::infer_QLinearConvTranspose, ops::eval_QLinearConvTranspose},
  };
  return table;
}

const OpDef* find_op(std::string_view op) {
  const auto& t = all_ops();
  auto it = std::find_if(t.begin(), t.end(), [&](const OpDef& d) { return d.name == op; });
  return it == t.end() ? nullptr : &*it;
}

std::string_view refused_op_reason(std::string_view op) {
  // Their output shapes are counts of what the data holds; mlipc plans every
  // tensor's size at compile time.
  if (op == "NonZero" || op == "Unique" || op == "Compress" || op == "NonMaxSuppression")
    return "its output shape depends on the input data, and mlipc needs every shape at compile time (static "
           "memory plan)";
  return "";
}

}  // namespace mlipc
