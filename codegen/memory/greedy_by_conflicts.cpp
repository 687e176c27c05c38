// greedy_by_conflicts (TVM USMP): buffers that overlap the most others in
// time are the most constrained, so they go first; ties by size, then index.
#include <algorithm>
#include <numeric>

#include "memory/allocators.h"

namespace mlipc::memory {
namespace {

class GreedyByConflicts final : public Allocator {
 public:
  std::string_view name() const override { return "greedy_by_conflicts"; }

  Plan plan(const std::vector<Buffer>& buffers, size_t alignment) const override {
    const FirstFit fit(buffers, alignment);
    return fit.plan(order_by_conflicts(buffers, fit), name());
  }
};

}  // namespace

std::vector<int> order_by_conflicts(const std::vector<Buffer>& buffers, const FirstFit& fit) {
  std::vector<int> order(fit.count());
  std::iota(order.begin(), order.end(), 0);
  std::sort(order.begin(), order.end(), [&](int a, int b) {
    const size_t ca = fit.conflicts(a).size();
    const size_t cb = fit.conflicts(b).size();
    if (ca != cb) return ca > cb;
    if (buffers[a].size != buffers[b].size) return buffers[a].size > buffers[b].size;
    return a < b;
  });
  return order;
}

std::unique_ptr<Allocator> make_greedy_by_conflicts_allocator() {
  return std::make_unique<GreedyByConflicts>();
}

}  // namespace mlipc::memory
