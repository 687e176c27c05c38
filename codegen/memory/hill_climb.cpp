// hill_climb (TVM USMP, Vela's default): search over placement orders.
// Start from greedy_by_size's order (or greedy_by_conflicts' when that one
// is strictly smaller, which happens on dense graphs, so the default planner
// is never worse than either greedy); repeatedly move a buffer that reaches
// the top of the arena earlier in the order (or swap/move random positions),
// re-place from the first changed position, and keep the change unless the
// arena grows. On a long plateau, restart from the best order with a few
// random moves. The best order seen is the result. Stops at the lower bound,
// after kMaxIterations moves, or when the work budget runs out.
//
// Deterministic by construction (TVM #10547 was a non-deterministic
// hill_climb): a fixed-seed std::mt19937, whose output sequence the standard
// fixes, reduced with `%` rather than std::uniform_int_distribution, whose
// results differ between standard libraries; no addresses, no clocks.
#include <algorithm>
#include <cstdint>
#include <limits>
#include <random>

#include "memory/allocators.h"

namespace mlipc::memory {
namespace {

constexpr std::uint32_t kSeed = 0x6d6c6970;  // "mlip"
constexpr int kMaxIterations = 2000;
// After this many moves in a row without a smaller arena, restart the walk
// from the best order with a few random moves (a "kick") to leave a plateau.
constexpr int kPatience = 60;
constexpr int kKickMoves = 3;
// Cap on placement work (conflicts examined and sorted, state copied): about
// 25 ms of CPU for 200 buffers whether their lifetimes are sparse or dense.
constexpr size_t kWorkBudget = 2'500'000;

struct State {
  std::vector<int> order;  // placement order
  std::vector<int> rank;   // rank[order[k]] == k
  std::vector<size_t> offsets;
  size_t total = 0;
};

class Search {
 public:
  // Starts from the smallest of the candidate orders (the first on a tie).
  Search(const FirstFit& fit, const std::vector<std::vector<int>>& starts) : fit_(fit) {
    for (size_t i = 0; i < starts.size(); ++i) {
      State s;
      s.order = starts[i];
      s.rank.resize(s.order.size());
      renumber(s, 0, s.order.size());
      s.offsets.assign(s.order.size(), 0);
      replace(s, 0);
      if (i == 0 || s.total < best_.total) best_ = std::move(s);
    }
    walk_ = best_;
  }

  void run(size_t lower) {
    int stale = 0;
    for (int i = 0; i < kMaxIterations && best_.total > lower && work_ < kWorkBudget; ++i) {
      State next = walk_;
      const size_t from = pick(4) == 0 ? random_move(next) : top_move(next);
      replace(next, from, walk_.total);
      if (next.total <= walk_.total) {
        stale = next.total < walk_.total ? 0 : stale + 1;
        walk_ = std::move(next);
        if (walk_.total < best_.total) best_ = walk_;
      } else {
        ++stale;
      }
      if (stale >= kPatience) {
        kick();
        stale = 0;
      }
    }
  }

  const State& best() const { return best_; }

 private:
  size_t pick(size_t n) { return rng_() % n; }

  // Re-places s from position `from`; stops early once the total exceeds
  // `limit`, since such a move is rejected anyway.
  void replace(State& s, size_t from, size_t limit = std::numeric_limits<size_t>::max()) {
    work_ += s.order.size();
    s.total = fit_.place(s.order, s.rank, from, s.offsets, &work_, limit);
  }

  void kick() {
    walk_ = best_;
    size_t from = walk_.order.size();
    for (int k = 0; k < kKickMoves; ++k) from = std::min(from, random_move(walk_));
    replace(walk_, from);
  }

  // Moves a buffer that ends at the top of the arena ahead of one of the
  // buffers placed before it that are live at the same time (one of them
  // pushed it up). Returns the first position that changed.
  size_t top_move(State& s) {
    const int top = pick_top(s);
    if (top < 0) return random_move(s);
    std::vector<int> before;
    for (int c : fit_.conflicts(top)) {
      if (s.rank[c] < s.rank[top]) before.push_back(c);
    }
    if (before.empty()) return random_move(s);
    const size_t q = s.rank[before[pick(before.size())]];
    const size_t p = s.rank[top];
    if (pick(2) == 0) {
      std::swap(s.order[p], s.order[q]);
    } else {
      std::rotate(s.order.begin() + q, s.order.begin() + p, s.order.begin() + p + 1);
    }
    renumber(s, q, p + 1);
    return q;
  }

  // Swaps two random positions, or moves one buffer to another position.
  size_t random_move(State& s) {
    const size_t n = s.order.size();
    if (n < 2) return n;
    size_t p = pick(n);
    size_t q = pick(n - 1);
    if (q >= p) ++q;
    if (pick(2) == 0) {
      std::swap(s.order[p], s.order[q]);
    } else if (p < q) {
      std::rotate(s.order.begin() + p, s.order.begin() + p + 1, s.order.begin() + q + 1);
    } else {
      std::rotate(s.order.begin() + q, s.order.begin() + p, s.order.begin() + p + 1);
    }
    if (p > q) std::swap(p, q);
    renumber(s, p, q + 1);
    return p;
  }

  // A random buffer among those that end at the top of the arena and do not
  // start at 0 (moving those could not lower the total); -1 if none.
  int pick_top(const State& s) {
    std::vector<int> tops;
    for (size_t b = 0; b < s.offsets.size(); ++b) {
      const size_t size = fit_.aligned_size(static_cast<int>(b));
      if (size > 0 && s.offsets[b] > 0 && s.offsets[b] + size == s.total) {
        tops.push_back(static_cast<int>(b));
      }
    }
    return tops.empty() ? -1 : tops[pick(tops.size())];
  }

  static void renumber(State& s, size_t begin, size_t end) {
    for (size_t k = begin; k < end; ++k) s.rank[s.order[k]] = static_cast<int>(k);
  }

  const FirstFit& fit_;
  std::mt19937 rng_{kSeed};
  State best_;  // smallest arena seen
  State walk_;  // where the search is; moves that grow it are undone
  size_t work_ = 0;
};

class HillClimb final : public Allocator {
 public:
  std::string_view name() const override { return "hill_climb"; }

  Plan plan(const std::vector<Buffer>& buffers, size_t alignment) const override {
    const FirstFit fit(buffers, alignment);
    Search search(fit, {order_by_size(buffers, fit), order_by_conflicts(buffers, fit)});
    search.run(lower_bound(buffers, alignment));
    Plan result;
    result.offsets = search.best().offsets;
    result.total = search.best().total;
    result.algorithm = std::string(name());
    return result;
  }
};

}  // namespace

std::unique_ptr<Allocator> make_hill_climb_allocator() { return std::make_unique<HillClimb>(); }

}  // namespace mlipc::memory
