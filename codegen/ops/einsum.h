// Einsum of one or two operands, analysed once into loops: the output axes
// (in output order) and the summed axes, each with its extent and its
// element stride in every operand. The reference kernel and the C kernel
// both walk this plan, so they add the same terms in the same order.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "ir/tensor_data.h"

namespace mlipc::ops {

struct EinsumAxis {
  int64_t extent = 1;
  int64_t stride[2] = {0, 0};  // per operand; 0 where an operand lacks the label or broadcasts it
  std::string label;           // "i", or "...0", "...1" for the ellipsis axes (messages)
};

struct EinsumPlan {
  int operands = 0;
  std::vector<EinsumAxis> out;  // the output's axes, outermost first
  std::vector<EinsumAxis> sum;  // summed labels in order of first appearance; the last varies fastest
  Shape out_shape;
};

// Accepted: one or two operands; letters a-z and A-Z; one "..." per term
// (the ellipsis axes broadcast numpy-style); spaces; an explicit output
// after "->" or the implicit one (the ellipsis axes, then the labels that
// occur once, in ASCII order). A label repeated within a term takes the
// diagonal; a label missing from the output is summed. So batched matmuls
// ("bij,bjk->bik", "bhid,bhjd->bhij", "...ij,...jk"), inner and outer
// products, transposes, sums over a label, traces and diagonals all run.
// Three or more operands are refused.
EinsumPlan plan_einsum(const std::string& equation, const std::vector<Shape>& shapes);

}  // namespace mlipc::ops
