// greedy_by_size (TVM USMP, TFLite Micro): the largest buffers are hardest
// to fit, so they go first; each takes the lowest gap that holds it.
#include "memory/allocators.h"

namespace mlipc::memory {
namespace {

class GreedyBySize final : public Allocator {
 public:
  std::string_view name() const override { return "greedy_by_size"; }

  Plan plan(const std::vector<Buffer>& buffers, size_t alignment) const override {
    const FirstFit fit(buffers, alignment);
    return fit.plan(order_by_size(buffers, fit), name());
  }
};

}  // namespace

std::unique_ptr<Allocator> make_greedy_by_size_allocator() {
  return std::make_unique<GreedyBySize>();
}

}  // namespace mlipc::memory
