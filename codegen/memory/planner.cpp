// Registry of allocators, the lower bound every plan is measured against, and
// the independent checker every plan passes before the compiler uses it.
#include "memory/planner.h"

#include <algorithm>
#include <limits>
#include <utility>

#include <fmt/format.h>
#include <fmt/ranges.h>

#include "memory/allocators.h"
#include "support/error.h"

namespace mlipc::memory {
namespace {

void check_alignment(size_t alignment) {
  if (alignment == 0 || (alignment & (alignment - 1)) != 0) {
    fail("memory planner: alignment {} is not a power of two", alignment);
  }
}

// Names an unnamed buffer by its index so every message says which one.
std::string describe(const std::vector<Buffer>& buffers, size_t i) {
  const Buffer& b = buffers[i];
  return b.name.empty() ? fmt::format("#{}", i) : fmt::format("'{}'", b.name);
}

// Indices of nonzero-size buffers sorted by first step (then index).
std::vector<size_t> by_first_step(const std::vector<Buffer>& buffers) {
  std::vector<size_t> order;
  for (size_t i = 0; i < buffers.size(); ++i) {
    if (buffers[i].size > 0) order.push_back(i);
  }
  std::stable_sort(order.begin(), order.end(),
                   [&](size_t a, size_t b) { return buffers[a].first < buffers[b].first; });
  return order;
}

void check_offsets(const std::vector<Buffer>& buffers, const Plan& plan, size_t alignment) {
  for (size_t i = 0; i < buffers.size(); ++i) {
    const size_t offset = plan.offsets[i];
    const size_t size = align_up(buffers[i].size, alignment);
    if (offset % alignment != 0) {
      fail("memory plan ({}): buffer {} offset {} is not a multiple of alignment {}",
           plan.algorithm, describe(buffers, i), offset, alignment);
    }
    if (offset > plan.total || size > plan.total - offset) {
      fail("memory plan ({}): total {} is too small for buffer {} at [{}, {})", plan.algorithm,
           plan.total, describe(buffers, i), offset, offset + size);
    }
  }
}

// Sweep over buffers in order of first step: only those that started no
// later than a buffer's last step can overlap it in time.
void check_overlaps(const std::vector<Buffer>& buffers, const Plan& plan) {
  const std::vector<size_t> order = by_first_step(buffers);
  for (size_t x = 0; x < order.size(); ++x) {
    const size_t i = order[x];
    for (size_t y = x + 1; y < order.size() && buffers[order[y]].first <= buffers[i].last; ++y) {
      const size_t j = order[y];
      const size_t oi = plan.offsets[i];
      const size_t oj = plan.offsets[j];
      if (oi < oj + buffers[j].size && oj < oi + buffers[i].size) {
        fail("memory plan ({}): buffers {} [{}, {}) steps {}..{} and {} [{}, {}) steps {}..{} "
             "are live together and overlap",
             plan.algorithm, describe(buffers, i), oi, oi + buffers[i].size, buffers[i].first,
             buffers[i].last, describe(buffers, j), oj, oj + buffers[j].size, buffers[j].first,
             buffers[j].last);
      }
    }
  }
}

}  // namespace

void check_input(const std::vector<Buffer>& buffers, size_t alignment) {
  check_alignment(alignment);
  for (size_t i = 0; i < buffers.size(); ++i) {
    const Buffer& b = buffers[i];
    if (b.first < 0) {
      fail("memory planner: buffer {} starts at step {} (steps count from 0)",
           describe(buffers, i), b.first);
    }
    if (b.last < b.first) {
      fail("memory planner: buffer {} is live from step {} to step {} (last < first)",
           describe(buffers, i), b.first, b.last);
    }
  }
}

size_t align_up(size_t v, size_t alignment) {
  check_alignment(alignment);
  if (v > std::numeric_limits<size_t>::max() - (alignment - 1)) {
    fail("memory planner: size {} overflows when aligned to {}", v, alignment);
  }
  return (v + alignment - 1) & ~(alignment - 1);
}

size_t lower_bound(const std::vector<Buffer>& buffers, size_t alignment) {
  check_input(buffers, alignment);
  // +size at `first`, -size after `last`; at equal steps frees come first.
  std::vector<std::pair<long long, long long>> events;
  std::vector<size_t> sizes;
  for (const Buffer& b : buffers) {
    if (b.size == 0) continue;
    const size_t aligned = align_up(b.size, alignment);
    sizes.push_back(aligned);
    events.emplace_back(b.first, static_cast<long long>(sizes.size()));
    events.emplace_back(static_cast<long long>(b.last) + 1, -static_cast<long long>(sizes.size()));
  }
  std::sort(events.begin(), events.end());
  size_t live = 0;
  size_t peak = 0;
  for (const auto& [step, id] : events) {
    if (id < 0) {
      live -= sizes[-id - 1];
    } else {
      live += sizes[id - 1];
      peak = std::max(peak, live);
    }
  }
  return peak;
}

const std::vector<std::string_view>& allocator_names() {
  static const std::vector<std::string_view> names = {"greedy_by_size", "greedy_by_conflicts",
                                                      "hill_climb", "linear"};
  return names;
}

std::unique_ptr<Allocator> make_allocator(std::string_view name) {
  if (name == "greedy_by_size") return make_greedy_by_size_allocator();
  if (name == "greedy_by_conflicts") return make_greedy_by_conflicts_allocator();
  if (name == "hill_climb") return make_hill_climb_allocator();
  if (name == "linear") return make_linear_allocator();
  fail("unknown memory planner '{}' (choose from {})", name, fmt::join(allocator_names(), ", "));
}

Plan plan_memory(const std::vector<Buffer>& buffers, size_t alignment, std::string_view algorithm) {
  Plan plan = make_allocator(algorithm)->plan(buffers, alignment);
  verify_plan(buffers, plan, alignment);
  return plan;
}

void verify_plan(const std::vector<Buffer>& buffers, const Plan& plan, size_t alignment) {
  check_input(buffers, alignment);
  if (plan.offsets.size() != buffers.size()) {
    fail("memory plan ({}): {} offsets for {} buffers", plan.algorithm, plan.offsets.size(),
         buffers.size());
  }
  if (plan.total % alignment != 0) {
    fail("memory plan ({}): total {} is not a multiple of alignment {}", plan.algorithm,
         plan.total, alignment);
  }
  check_offsets(buffers, plan, alignment);
  check_overlaps(buffers, plan);
}

}  // namespace mlipc::memory
