// Static memory planner: gives every intermediate buffer an offset in one
// arena so that buffers live at the same step never share bytes. Each
// algorithm is one Allocator behind the same interface (as in Vela), chosen
// by name; plan_memory() always checks the result with verify_plan().
#pragma once

#include <cstddef>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

namespace mlipc::memory {

struct Buffer {
  std::string name;  // for diagnostics
  size_t size = 0;   // bytes (may be 0: then it needs no space; give offset 0)
  int first = 0;     // first step where it is live (produced)
  int last = 0;      // last step where it is live (last read), inclusive; last >= first
};

struct Plan {
  std::vector<size_t> offsets;  // one per buffer, same order
  size_t total = 0;             // arena bytes = max(offset + aligned size); a multiple of alignment
  std::string algorithm;
};

// Rounds v up to a multiple of alignment (a power of two >= 1, else Error).
size_t align_up(size_t v, size_t alignment);

// Memory pressure: max over steps of the sum of aligned sizes of the buffers
// live at that step. No plan can be smaller.
size_t lower_bound(const std::vector<Buffer>& buffers, size_t alignment);

class Allocator {
 public:
  virtual ~Allocator() = default;
  virtual std::string_view name() const = 0;
  virtual Plan plan(const std::vector<Buffer>& buffers, size_t alignment) const = 0;
};

// "greedy_by_size", "greedy_by_conflicts", "hill_climb", "linear".
const std::vector<std::string_view>& allocator_names();

// Throws mlipc::Error listing the choices when the name is unknown.
std::unique_ptr<Allocator> make_allocator(std::string_view name);

// Runs the named allocator, then verify_plan; the entry point the compiler uses.
Plan plan_memory(const std::vector<Buffer>& buffers, size_t alignment, std::string_view algorithm);

// Throws mlipc::Error (naming both buffers) if two buffers with overlapping
// live ranges overlap in bytes, if an offset is not a multiple of alignment,
// if total is too small, or sizes/ranges are malformed.
void verify_plan(const std::vector<Buffer>& buffers, const Plan& plan, size_t alignment);

}  // namespace mlipc::memory
