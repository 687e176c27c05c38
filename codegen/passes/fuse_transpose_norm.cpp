// A LayerNormalization over the channels of a channels-first tensor, as
// ConvNeXt-style models write it:
//   Transpose(x, [0, 2, ..., r-1, 1]) -> LayerNormalization(axis -1)
//   [-> Transpose([0, r-1, 1, ..., r-2])]
// -> one LayerNormalization that reads x [N, C, S...] itself
// (mlipc_channels_in = 1: the normalized axis is x's axis 1) and, with the
// second Transpose, writes [N, C, S...] (mlipc_channels_out = 1). A
// Transpose only moves values, so each row (the C values of one position)
// is normalized by the same operations in the same order: the same bits,
// and the transposed tensors never exist. Matched when the LayerNormalization
// has one output and normalizes the last axis alone, Scale and B cover it
// whole ([C] or [1, ..., C]), and each Transpose's output is read by the
// next node alone and is no graph output. Runs on the CPU's nodes (after
// the MLIP partition).
#include <numeric>

#include "ops/transpose.h"
#include "passes/passes.h"

namespace mlipc::passes {

namespace {

// perm moves axis 1 last ([0, 2, ..., r-1, 1]), or, `back`, last to 1.
bool channels_perm(const std::vector<int>& perm, bool back) {
  const int r = static_cast<int>(perm.size());
  if (r < 3 || perm[0] != 0) return false;
  for (int a = 1; a < r; ++a) {
    const int want = back ? (a == 1 ? r - 1 : a - 1) : (a == r - 1 ? 1 : a + 1);
    if (perm[static_cast<size_t>(a)] != want) return false;
  }
  return true;
}

bool covers_last(const Graph& g, const Node& n, size_t i, int64_t c) {
  if (!n.has_input(i)) return true;
  const Shape& s = g.value(n.inputs[i]).shape;
  if (s.empty() || s.back() != c) return false;
  for (size_t k = 0; k + 1 < s.size(); ++k)
    if (s[k] != 1) return false;
  return true;
}

}  // namespace

void fuse_transpose_norm(Graph& g) {
  const auto consumers = g.consumers();
  std::vector<bool> dead(g.nodes.size(), false);
  auto sole_reader = [&](ValueId v) -> int {
    if (consumers[v].size() != 1 || g.is_graph_output(v)) return -1;
    const int k = consumers[v][0];
    return dead[static_cast<size_t>(k)] ? -1 : k;
  };
  for (size_t ti = 0; ti < g.nodes.size(); ++ti) {
    const Node& t = g.nodes[ti];
    if (dead[ti] || t.op != "Transpose" || t.inputs.size() != 1 || t.outputs.size() != 1) continue;
    const Value& x = g.value(t.inputs[0]);
    if (x.dtype != DType::Float32 || x.shape.size() < 3) continue;
    const int rank = static_cast<int>(x.shape.size());
    if (!channels_perm(ops::transpose_perm(t.attrs, rank), false)) continue;
    const int li = sole_reader(t.outputs[0]);
    if (li < 0) continue;
    Node& ln = g.nodes[static_cast<size_t>(li)];
    if (ln.op != "LayerNormalization" || ln.inputs[0] != t.outputs[0] || ln.outputs.size() != 1 ||
        ln.attrs.has("mlipc_channels_in"))
      continue;
    const int64_t axis = ln.attrs.get_int("axis", -1);
    if (axis != -1 && axis != rank - 1) continue;
    if (!covers_last(g, ln, 1, x.shape[1]) || !covers_last(g, ln, 2, x.shape[1])) continue;
    ln.inputs[0] = t.inputs[0];
    ln.attrs.set("mlipc_channels_in", int64_t{1});
    ln.origins.insert(ln.origins.begin(), t.origins.begin(), t.origins.end());
    dead[ti] = true;
    // The Transpose back, if the normalized tensor goes only there.
    const int bi = sole_reader(ln.outputs[0]);
    if (bi < 0) continue;
    const Node& b = g.nodes[static_cast<size_t>(bi)];
    if (b.op != "Transpose" || b.outputs.size() != 1 || !channels_perm(ops::transpose_perm(b.attrs, rank), true))
      continue;
    ln.outputs[0] = b.outputs[0];
    ln.attrs.set("mlipc_channels_out", int64_t{1});
    ln.origins.insert(ln.origins.end(), b.origins.begin(), b.origins.end());
    dead[static_cast<size_t>(bi)] = true;
  }
  g.erase_nodes(dead);
}

}  // namespace mlipc::passes
