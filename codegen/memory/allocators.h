// Internal to codegen/memory: one factory per allocator, plus the first-fit
// placement the greedy allocators and hill_climb share.
#pragma once

#include <cstddef>
#include <limits>
#include <memory>
#include <string_view>
#include <utility>
#include <vector>

#include "memory/planner.h"

namespace mlipc::memory {

std::unique_ptr<Allocator> make_greedy_by_size_allocator();
std::unique_ptr<Allocator> make_greedy_by_conflicts_allocator();
std::unique_ptr<Allocator> make_hill_climb_allocator();
std::unique_ptr<Allocator> make_linear_allocator();

// Throws mlipc::Error on a bad alignment or a malformed buffer (negative
// step, last < first). Every allocator calls it before planning.
void check_input(const std::vector<Buffer>& buffers, size_t alignment);

// Buffers with nonzero size placed one at a time, in a given order, each at
// the lowest aligned offset that fits in a gap between the already placed
// buffers whose lifetimes overlap its own. Sizes are rounded up to the
// alignment, so every gap boundary is aligned and the result is too.
class FirstFit {
 public:
  // Validates the input; builds the conflict lists once.
  FirstFit(const std::vector<Buffer>& buffers, size_t alignment);

  size_t count() const { return aligned_.size(); }
  size_t aligned_size(int i) const { return aligned_[i]; }
  // Other nonzero-size buffers whose live ranges overlap buffer i's.
  const std::vector<int>& conflicts(int i) const { return conflicts_[i]; }

  // Places order[from..] given that order[..from) already have their offsets;
  // rank[b] must be b's position in order. Returns the arena total. Adds the
  // number of conflict entries examined and sorted to *work (hill_climb's
  // budget). Gives up as soon as a buffer would end above `limit` and returns that
  // end, leaving the plan incomplete: hill_climb rejects such orders anyway.
  size_t place(const std::vector<int>& order, const std::vector<int>& rank, size_t from,
               std::vector<size_t>& offsets, size_t* work = nullptr,
               size_t limit = std::numeric_limits<size_t>::max()) const;

  // Places every buffer in the given order (a permutation of 0..count-1).
  Plan plan(const std::vector<int>& order, std::string_view algorithm) const;

  size_t total_of(const std::vector<size_t>& offsets) const;

 private:
  // `taken` is scratch space, passed in so it is allocated once per place().
  size_t place_one(int b, int rank_b, const std::vector<int>& rank,
                   const std::vector<size_t>& offsets,
                   std::vector<std::pair<size_t, size_t>>& taken) const;

  std::vector<size_t> aligned_;
  std::vector<std::vector<int>> conflicts_;
};

// Size descending, then longer lifetime first, then index: greedy_by_size's
// order and hill_climb's starting point.
std::vector<int> order_by_size(const std::vector<Buffer>& buffers, const FirstFit& fit);

// Most conflicts first, then size descending, then index: greedy_by_conflicts'
// order and hill_climb's other candidate start.
std::vector<int> order_by_conflicts(const std::vector<Buffer>& buffers, const FirstFit& fit);

}  // namespace mlipc::memory
