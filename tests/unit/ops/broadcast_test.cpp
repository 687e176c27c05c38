#include "ops/broadcast.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "support/error.h"

namespace mlipc::ops::unit_ops_broadcast {
namespace {

using ::testing::HasSubstr;
using Strides = std::vector<int64_t>;

TEST(Broadcast, Shapes) {
  EXPECT_EQ(broadcast_shapes({3, 4, 5}, {5}), (Shape{3, 4, 5}));
  EXPECT_EQ(broadcast_shapes({2, 1, 4}, {3, 1}), (Shape{2, 3, 4}));
  EXPECT_EQ(broadcast_shapes({}, {2, 3}), (Shape{2, 3}));
  EXPECT_EQ(broadcast_shapes({1}, {}), (Shape{1}));
  EXPECT_EQ(broadcast_shapes({0, 1}, {1, 3}), (Shape{0, 3}));
}

TEST(Broadcast, IncompatibleShapesAreAnError) {
  try {
    broadcast_shapes({2, 3}, {4, 3});
    FAIL() << "no error";
  } catch (const Error& e) {
    EXPECT_THAT(e.what(), HasSubstr("shapes [2,3] and [4,3] cannot be broadcast (axis 0: 2 vs 4)"));
  }
}

TEST(Broadcast, Unidirectional) {
  EXPECT_TRUE(broadcasts_to({}, {2, 3}));
  EXPECT_TRUE(broadcasts_to({3}, {2, 3}));
  EXPECT_TRUE(broadcasts_to({2, 1}, {2, 3}));
  EXPECT_FALSE(broadcasts_to({2}, {2, 3}));
  EXPECT_FALSE(broadcasts_to({1, 2, 3}, {2, 3}));  // would grow the output's rank
}

TEST(Broadcast, StridesAreZeroOnBroadcastAxes) {
  EXPECT_EQ(broadcast_strides({3, 1}, {2, 3, 4}), (Strides{0, 1, 0}));
  EXPECT_EQ(broadcast_strides({2, 3, 4}, {2, 3, 4}), (Strides{12, 4, 1}));
  EXPECT_EQ(broadcast_strides({}, {2, 2}), (Strides{0, 0}));
  EXPECT_THROW(broadcast_strides({2}, {3}), Error);
}

TEST(Broadcast, SimplifyLoopsMergesContiguousAxes) {
  // Same shapes: one flat loop.
  Loops l = simplify_loops({2, 3, 4}, {{12, 4, 1}, {12, 4, 1}});
  EXPECT_EQ(l.dims, (Shape{24}));
  EXPECT_EQ(l.strides[0], (Strides{1}));
  // [3,4,5] + [5]: the two outer axes merge, the inner one stays.
  l = simplify_loops({3, 4, 5}, {broadcast_strides({3, 4, 5}, {3, 4, 5}), broadcast_strides({5}, {3, 4, 5})});
  EXPECT_EQ(l.dims, (Shape{12, 5}));
  EXPECT_EQ(l.strides[0], (Strides{5, 1}));
  EXPECT_EQ(l.strides[1], (Strides{0, 1}));
  // Size-1 axes vanish; a scalar output has no loop.
  l = simplify_loops({1, 3, 1}, {{3, 1, 1}, {0, 0, 0}});
  EXPECT_EQ(l.dims, (Shape{3}));
  EXPECT_EQ(l.strides[1], (Strides{0}));
  EXPECT_TRUE(simplify_loops({}, {{}}).dims.empty());
}

TEST(Broadcast, ForEachVisitsNumpyOffsets) {
  const Shape a = {2, 1, 4}, b = {3, 1}, out = broadcast_shapes(a, b);
  std::vector<std::pair<int64_t, int64_t>> got;
  int64_t expect_o = 0;
  for_each_broadcast(out, {broadcast_strides(a, out), broadcast_strides(b, out)},
                     [&](int64_t o, const std::vector<int64_t>& off) {
                       EXPECT_EQ(o, expect_o++);
                       got.emplace_back(off[0], off[1]);
                     });
  ASSERT_EQ(got.size(), 24u);
  for (int64_t i = 0; i < 2; ++i)
    for (int64_t j = 0; j < 3; ++j)
      for (int64_t k = 0; k < 4; ++k) {
        const auto& g = got[static_cast<size_t>(i * 12 + j * 4 + k)];
        EXPECT_EQ(g.first, i * 4 + k);
        EXPECT_EQ(g.second, j);
      }
  // A scalar output is visited once.
  int calls = 0;
  for_each_broadcast({}, {{}}, [&](int64_t, const std::vector<int64_t>& off) {
    EXPECT_EQ(off[0], 0);
    ++calls;
  });
  EXPECT_EQ(calls, 1);
}

}  // namespace
}  // namespace mlipc::ops::unit_ops_broadcast
