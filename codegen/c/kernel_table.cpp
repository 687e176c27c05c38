// The CPU kernel table: one entry per operator that has a C kernel. The
// prepare functions live in c/kernels/<op>.cpp.
#include <algorithm>
#include <vector>

#include "c/kernel.h"
#include "c/kernels/kernels.h"
#include "ops/conv_transpose.h"
#include "ops/qlinear.h"

namespace mlipc::c {

const KernelDef* find_kernel(std::string_view op) {
  static const std::vector<KernelDef> table = {
#define MLIPC_KERNEL(name) {#name, kernels::prepare_##name},
#include "c/kernels/kernel_list.inc"
#undef MLIPC_KERNEL
      {kSubgraphOp, kernels::prepare_Subgraph},
      {ops::kQLookupOp, kernels::prepare_QLinearLookup},
      {ops::kQConvTransposeOp, kernels::prepare_QLinearConvTranspose},
  };
  auto it = std::find_if(table.begin(), table.end(), [&](const KernelDef& k) { return k.op == op; });
  return it == table.end() ? nullptr : &*it;
}

}  // namespace mlipc::c
