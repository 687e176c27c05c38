#include "ops/broadcast.h"

#include <algorithm>

#include "support/error.h"

namespace mlipc::ops {

Shape broadcast_shapes(const Shape& a, const Shape& b) {
  const size_t rank = std::max(a.size(), b.size());
  Shape out(rank);
  for (size_t i = 0; i < rank; ++i) {
    // Align from the last axis; missing leading axes count as 1.
    const int64_t da = i < rank - a.size() ? 1 : a[i - (rank - a.size())];
    const int64_t db = i < rank - b.size() ? 1 : b[i - (rank - b.size())];
    if (da != db && da != 1 && db != 1)
      fail("shapes {} and {} cannot be broadcast (axis {}: {} vs {}); numpy broadcasting needs equal sizes or 1",
           shape_str(a), shape_str(b), i, da, db);
    out[i] = da == 1 ? db : da;
  }
  return out;
}

bool broadcasts_to(const Shape& in, const Shape& out) {
  if (in.size() > out.size()) return false;
  const size_t lead = out.size() - in.size();
  for (size_t i = 0; i < in.size(); ++i)
    if (in[i] != 1 && in[i] != out[lead + i]) return false;
  return true;
}

std::vector<int64_t> broadcast_strides(const Shape& in, const Shape& out) {
  if (!broadcasts_to(in, out)) fail("internal: shape {} does not broadcast to {}", shape_str(in), shape_str(out));
  const std::vector<int64_t> s = strides_of(in);
  const size_t lead = out.size() - in.size();
  std::vector<int64_t> r(out.size(), 0);
  for (size_t i = 0; i < in.size(); ++i) r[lead + i] = in[i] == 1 ? 0 : s[i];
  return r;
}

Loops simplify_loops(const Shape& out, const std::vector<std::vector<int64_t>>& strides) {
  Loops l;
  l.strides.resize(strides.size());
  for (size_t d = 0; d < out.size(); ++d) {
    if (out[d] == 1) continue;  // a single trip moves no offset
    bool merge = !l.dims.empty();
    // Axis d continues the previous loop when, for every input, one step of
    // the previous loop equals a full sweep of axis d.
    for (size_t k = 0; k < strides.size() && merge; ++k)
      merge = l.strides[k].back() == strides[k][d] * out[d];
    if (merge) {
      l.dims.back() *= out[d];
      for (size_t k = 0; k < strides.size(); ++k) l.strides[k].back() = strides[k][d];
    } else {
      l.dims.push_back(out[d]);
      for (size_t k = 0; k < strides.size(); ++k) l.strides[k].push_back(strides[k][d]);
    }
  }
  return l;
}

}  // namespace mlipc::ops
