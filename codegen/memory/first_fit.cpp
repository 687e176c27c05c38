// First-fit placement shared by greedy_by_size, greedy_by_conflicts and
// hill_climb: unlike USMP's greedy (which stacks a buffer on top of its
// highest placed conflict), a buffer may drop into any gap that is big enough.
#include <algorithm>
#include <limits>
#include <numeric>
#include <utility>

#include "memory/allocators.h"
#include "support/error.h"

namespace mlipc::memory {
namespace {

// Conflict lists by a sweep over buffers sorted by first step: after sorting,
// j overlaps i (j later) exactly when first_j <= last_i.
std::vector<std::vector<int>> build_conflicts(const std::vector<Buffer>& buffers) {
  std::vector<int> live;
  for (size_t i = 0; i < buffers.size(); ++i) {
    if (buffers[i].size > 0) live.push_back(static_cast<int>(i));
  }
  std::stable_sort(live.begin(), live.end(),
                   [&](int a, int b) { return buffers[a].first < buffers[b].first; });
  std::vector<std::vector<int>> conflicts(buffers.size());
  for (size_t x = 0; x < live.size(); ++x) {
    const Buffer& bx = buffers[live[x]];
    for (size_t y = x + 1; y < live.size() && buffers[live[y]].first <= bx.last; ++y) {
      conflicts[live[x]].push_back(live[y]);
      conflicts[live[y]].push_back(live[x]);
    }
  }
  for (auto& c : conflicts) std::sort(c.begin(), c.end());
  return conflicts;
}

// Roughly the comparisons sorting k intervals takes (k log2 k).
size_t sort_cost(size_t k) {
  size_t log = 0;
  while ((size_t{1} << log) < k) ++log;
  return k * log;
}

const std::vector<Buffer>& checked(const std::vector<Buffer>& buffers, size_t alignment) {
  check_input(buffers, alignment);
  return buffers;
}

}  // namespace

FirstFit::FirstFit(const std::vector<Buffer>& buffers, size_t alignment)
    : conflicts_(build_conflicts(checked(buffers, alignment))) {
  aligned_.reserve(buffers.size());
  for (const Buffer& b : buffers) aligned_.push_back(align_up(b.size, alignment));
}

size_t FirstFit::place_one(int b, int rank_b, const std::vector<int>& rank,
                           const std::vector<size_t>& offsets,
                           std::vector<std::pair<size_t, size_t>>& taken) const {
  for (int c : conflicts_[b]) {
    if (rank[c] < rank_b) taken.emplace_back(offsets[c], offsets[c] + aligned_[c]);
  }
  std::sort(taken.begin(), taken.end());
  // Offsets and sizes are multiples of the alignment, so every candidate is.
  size_t candidate = 0;
  const size_t size = aligned_[b];
  for (const auto& [begin, end] : taken) {
    if (begin >= candidate && begin - candidate >= size) break;
    candidate = std::max(candidate, end);
  }
  if (candidate > std::numeric_limits<size_t>::max() - size) {
    fail("memory planner: arena for buffer #{} exceeds the address space", b);
  }
  return candidate;
}

size_t FirstFit::place(const std::vector<int>& order, const std::vector<int>& rank, size_t from,
                       std::vector<size_t>& offsets, size_t* work, size_t limit) const {
  std::vector<std::pair<size_t, size_t>> taken;
  for (size_t k = from; k < order.size(); ++k) {
    const int b = order[k];
    taken.clear();
    offsets[b] = aligned_[b] == 0 ? 0 : place_one(b, static_cast<int>(k), rank, offsets, taken);
    if (work) *work += 1 + conflicts_[b].size() + sort_cost(taken.size());
    if (offsets[b] + aligned_[b] > limit) return offsets[b] + aligned_[b];
  }
  return total_of(offsets);
}

size_t FirstFit::total_of(const std::vector<size_t>& offsets) const {
  size_t total = 0;
  for (size_t i = 0; i < aligned_.size(); ++i) {
    if (aligned_[i] > 0) total = std::max(total, offsets[i] + aligned_[i]);
  }
  return total;
}

Plan FirstFit::plan(const std::vector<int>& order, std::string_view algorithm) const {
  std::vector<int> rank(order.size());
  for (size_t k = 0; k < order.size(); ++k) rank[order[k]] = static_cast<int>(k);
  Plan result;
  result.offsets.assign(order.size(), 0);
  result.total = place(order, rank, 0, result.offsets);
  result.algorithm = std::string(algorithm);
  return result;
}

std::vector<int> order_by_size(const std::vector<Buffer>& buffers, const FirstFit& fit) {
  std::vector<int> order(fit.count());
  std::iota(order.begin(), order.end(), 0);
  std::sort(order.begin(), order.end(), [&](int a, int b) {
    const Buffer& x = buffers[a];
    const Buffer& y = buffers[b];
    if (x.size != y.size) return x.size > y.size;
    const long long lx = static_cast<long long>(x.last) - x.first;
    const long long ly = static_cast<long long>(y.last) - y.first;
    if (lx != ly) return lx > ly;
    return a < b;
  });
  return order;
}

}  // namespace mlipc::memory
