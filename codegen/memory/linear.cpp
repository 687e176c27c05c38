// linear (Vela LinearAlloc): no reuse, every buffer its own range in index
// order. The baseline the other allocators must never exceed.
#include <limits>

#include "memory/allocators.h"
#include "support/error.h"

namespace mlipc::memory {
namespace {

class Linear final : public Allocator {
 public:
  std::string_view name() const override { return "linear"; }

  Plan plan(const std::vector<Buffer>& buffers, size_t alignment) const override {
    check_input(buffers, alignment);
    Plan result;
    result.algorithm = std::string(name());
    result.offsets.reserve(buffers.size());
    for (const Buffer& b : buffers) {
      const size_t size = align_up(b.size, alignment);
      // A zero-size buffer needs no space and sits at 0.
      result.offsets.push_back(size == 0 ? 0 : result.total);
      if (size > std::numeric_limits<size_t>::max() - result.total) {
        fail("memory planner (linear): arena exceeds the address space at buffer '{}'", b.name);
      }
      result.total += size;
    }
    return result;
  }
};

}  // namespace

std::unique_ptr<Allocator> make_linear_allocator() { return std::make_unique<Linear>(); }

}  // namespace mlipc::memory
