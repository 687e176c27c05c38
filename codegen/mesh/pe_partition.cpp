#include "mesh/pe_partition.h"

#include <algorithm>
#include <limits>
#include <utility>

#include <fmt/format.h>

#include "support/error.h"

namespace mlipc::mesh {

namespace {

constexpr uint64_t kInf = std::numeric_limits<uint64_t>::max();

bool may_start(const Request& r, size_t a) { return a == 0 || r.units[a - 1].cut_after; }
bool may_end(const Request& r, size_t b) { return b + 1 == r.units.size() || r.units[b].cut_after; }
bool fits(const Request& r, const Stage& s) { return r.memory_limit == 0 || s.memory <= r.memory_limit; }

// Best split of units [0, b] into k stages: the slowest stage, then the sum
// of all stages (cheaper cuts), lexicographically smallest.
struct Cell {
  uint64_t worst = kInf, total = kInf;
  size_t start = 0;  // first unit of the last stage
  bool operator<(const Cell& o) const { return std::make_pair(worst, total) < std::make_pair(o.worst, o.total); }
};

// dp[k][b] for k = 1..stages; row 0 unused.
std::vector<std::vector<Cell>> solve(const Request& r, int stages) {
  const size_t n = r.units.size();
  std::vector<std::vector<Cell>> dp(static_cast<size_t>(stages) + 1, std::vector<Cell>(n));
  for (int k = 1; k <= stages; ++k)
    for (size_t b = 0; b < n; ++b) {
      if (!may_end(r, b)) continue;
      Cell best;
      for (size_t a = (k == 1 ? 0 : 1); a <= b; ++a) {
        if (k == 1 && a != 0) break;
        if (!may_start(r, a)) continue;
        const Cell prev = k == 1 ? Cell{0, 0, 0} : dp[static_cast<size_t>(k) - 1][a - 1];
        if (prev.worst == kInf) continue;
        const Stage s = stage_estimate(r, a, b);
        if (!fits(r, s)) continue;
        Cell c{std::max(prev.worst, s.cycles), prev.total + s.cycles, a};
        if (c < best) best = c;
      }
      dp[static_cast<size_t>(k)][b] = best;
    }
  return dp;
}

// The pieces between consecutive allowed cuts: no stage can be smaller.
std::vector<std::pair<size_t, size_t>> atoms(const Request& r) {
  std::vector<std::pair<size_t, size_t>> v;
  size_t a = 0;
  for (size_t b = 0; b < r.units.size(); ++b)
    if (may_end(r, b)) {
      v.emplace_back(a, b);
      a = b + 1;
    }
  return v;
}

[[noreturn]] void too_large(const Request& r, size_t a, size_t b) {
  // The unit that holds the most of the piece's memory names it.
  size_t worst = a;
  uint64_t weights = 0;
  for (size_t i = a; i <= b; ++i) {
    weights += r.units[i].const_bytes;
    if (r.units[i].const_bytes + r.units[i].work_bytes > r.units[worst].const_bytes + r.units[worst].work_bytes) worst = i;
  }
  const Stage s = stage_estimate(r, a, b);
  // Units are named "name (Op)", as the IR keeps ONNX nodes.
  const std::string& n = r.units[worst].name;
  const size_t open = n.rfind(" (");
  const std::string node = open == std::string::npos ? fmt::format("'{}'", n) : fmt::format("'{}'{}", n.substr(0, open), n.substr(open));
  fail("--pe-memory {}: ONNX node {} needs {} bytes on one PE (weights {}, activations and I/O {}, runtime {}); one "
       "layer is not split across PEs: raise --pe-memory",
       r.memory_limit, node, s.memory, weights, s.memory - weights - r.fixed_bytes, r.fixed_bytes);
}

}  // namespace

Stage stage_estimate(const Request& r, size_t first, size_t last) {
  Stage s;
  s.first = first;
  s.last = last;
  uint64_t work = 0;
  for (size_t i = first; i <= last; ++i) {
    s.cycles += r.units[i].cycles;
    s.memory += r.units[i].const_bytes;
    work = std::max(work, r.units[i].work_bytes);
  }
  s.memory += work + r.fixed_bytes;
  if (first > 0) {
    s.cycles += r.units[first - 1].cut_in_cycles;
    s.memory += r.units[first - 1].cut_bytes;
  }
  if (last + 1 < r.units.size()) {
    s.cycles += r.units[last].cut_out_cycles;
    s.memory += r.units[last].cut_bytes;
  }
  if (first == 0) s.memory += r.input_bytes;
  if (last + 1 == r.units.size()) s.memory += r.output_bytes;
  return s;
}

Plan partition_pes(const Request& r) {
  if (r.units.empty()) fail("internal: nothing to partition across PEs");
  if (r.pes < 1) fail("--pes {} must be at least 1", r.pes);
  const auto pieces = atoms(r);
  for (const auto& [a, b] : pieces)
    if (!fits(r, stage_estimate(r, a, b))) too_large(r, a, b);
  Plan plan;
  int stages = r.pes;
  if (static_cast<size_t>(stages) > pieces.size()) {
    stages = static_cast<int>(pieces.size());
    plan.fewer_note = fmt::format("--pes {}: the model has {} layer(s) where a stage may end, so it runs on {} PE(s)",
                                  r.pes, pieces.size(), stages);
  }
  const size_t n = r.units.size();
  auto dp = solve(r, stages);
  if (dp[static_cast<size_t>(stages)][n - 1].worst == kInf) {
    // More stages would be needed: say how many.
    int need = stages;
    while (static_cast<size_t>(need) < pieces.size()) {
      ++need;
      if (solve(r, need)[static_cast<size_t>(need)][n - 1].worst != kInf) break;
    }
    fail("--pe-memory {}: the model does not fit on {} PE(s) of {} bytes; by the estimate it needs {} PEs",
         r.memory_limit, r.pes, r.memory_limit, need);
  }
  size_t b = n - 1;
  for (int k = stages; k >= 1; --k) {
    const Cell& c = dp[static_cast<size_t>(k)][b];
    plan.stages.push_back(stage_estimate(r, c.start, b));
    if (c.start == 0) break;
    b = c.start - 1;
  }
  std::reverse(plan.stages.begin(), plan.stages.end());
  return plan;
}

}  // namespace mlipc::mesh
