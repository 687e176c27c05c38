// The operator table: one entry per operator the IR understands, each with
// its shape rule and reference kernel (ops/<op>.cpp) and its traits
// (ops/op.h, OpTraits). Operators that only
// appear in constant sub-graphs (Shape, Gather, Cast ...) are here too; the
// C backend's table (c/kernel_table.cpp) says which run on the CPU.
#include <unordered_map>

#include "ops/op.h"
#include "ops/conv_transpose.h"
#include "ops/ops.h"
#include "ops/qlinear.h"

namespace mlipc {

const std::vector<OpDef>& all_ops() {
  static const std::vector<OpDef> table = {
#define MLIPC_OP(name) {#name, ops::infer_##name, ops::eval_##name, OpTraits()},
#define MLIPC_OP_TRAITS(name, traits) {#name, ops::infer_##name, ops::eval_##name, traits},
#include "ops/op_list.inc"
#undef MLIPC_OP_TRAITS
#undef MLIPC_OP
      {kSubgraphOp, ops::infer_Subgraph, ops::eval_Subgraph, OpTraits()},
      {ops::kQLookupOp, ops::infer_QLinearLookup, ops::eval_QLinearLookup, OpTraits()},
      {ops::kQConvTransposeOp, ops::infer_QLinearConvTranspose, ops::eval_QLinearConvTranspose,
       OpTraits().weights(3, weight_columns).bias_at(8).mac_count(ops::conv_transpose_macs)},
  };
  return table;
}

const OpDef* find_op(std::string_view op) {
  // Passes ask for every node (is_view, op_traits): a hash lookup, not a scan.
  static const std::unordered_map<std::string_view, const OpDef*> index = [] {
    std::unordered_map<std::string_view, const OpDef*> m;
    for (const OpDef& d : all_ops()) m.emplace(d.name, &d);
    return m;
  }();
  auto it = index.find(op);
  return it == index.end() ? nullptr : it->second;
}

bool is_quantization_op(std::string_view op) {
  // The rows of ops/op_list_quant.inc, and the integer operators fold_qdq writes.
  static const std::unordered_map<std::string_view, bool> family = {
#define MLIPC_OP(name) {#name, true},
#define MLIPC_OP_TRAITS(name, traits) {#name, true},
#include "ops/op_list_quant.inc"
#undef MLIPC_OP_TRAITS
#undef MLIPC_OP
      {ops::kQLookupOp, true},
      {ops::kQConvTransposeOp, true},
  };
  return family.count(op) > 0;
}

const OpTraits& op_traits(std::string_view op) {
  static const OpTraits none;
  const OpDef* d = find_op(op);
  return d ? d->traits : none;
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
