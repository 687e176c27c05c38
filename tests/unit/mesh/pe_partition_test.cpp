// The PE partitioner (codegen/mesh/pe_partition.h) on synthetic cost lists:
// balance, the memory limit, forbidden cuts, K larger than the layers.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <algorithm>

#include "mesh/pe_partition.h"
#include "support/error.h"

using ::testing::HasSubstr;

namespace mlipc::mesh::unit_mesh_pe_partition {
namespace {

Request costs(const std::vector<uint64_t>& cycles, int pes) {
  Request r;
  for (size_t i = 0; i < cycles.size(); ++i) {
    Unit u;
    u.name = "n" + std::to_string(i) + " (Conv)";
    u.cycles = cycles[i];
    r.units.push_back(u);
  }
  r.pes = pes;
  return r;
}

uint64_t slowest(const Plan& p) {
  uint64_t w = 0;
  for (const Stage& s : p.stages) w = std::max(w, s.cycles);
  return w;
}

// The stages cover the units in order, each once.
void expect_cover(const Plan& p, size_t n) {
  ASSERT_FALSE(p.stages.empty());
  EXPECT_EQ(p.stages.front().first, 0u);
  EXPECT_EQ(p.stages.back().last, n - 1);
  for (size_t s = 1; s < p.stages.size(); ++s) EXPECT_EQ(p.stages[s].first, p.stages[s - 1].last + 1);
}

TEST(PePartition, BalancesTheSlowestStage) {
  // 1..8 into 3 stages: 7 + 8 = 15 together, or 8 alone and then 1..5 = 15: no split does better than 15.
  const Request r = costs({1, 2, 3, 4, 5, 6, 7, 8}, 3);
  const Plan p = partition_pes(r);
  expect_cover(p, 8);
  ASSERT_EQ(p.stages.size(), 3u);
  EXPECT_EQ(slowest(p), 15u);
  EXPECT_TRUE(p.fewer_note.empty());
}

TEST(PePartition, EqualCostsSplitEvenly) {
  const Plan p = partition_pes(costs(std::vector<uint64_t>(12, 100), 4));
  ASSERT_EQ(p.stages.size(), 4u);
  for (const Stage& s : p.stages) EXPECT_EQ(s.cycles, 300u);
}

TEST(PePartition, ADominantLayerBoundsTheSlowestStage) {
  const Plan p = partition_pes(costs({10, 10, 1000, 10, 10}, 3));
  expect_cover(p, 5);
  EXPECT_EQ(slowest(p), 1000u);
}

TEST(PePartition, BorderCyclesCountOnBothSidesOfACut) {
  Request r = costs({100, 100}, 2);
  r.units[0].cut_out_cycles = 7;
  r.units[0].cut_in_cycles = 11;
  const Plan p = partition_pes(r);
  ASSERT_EQ(p.stages.size(), 2u);
  EXPECT_EQ(p.stages[0].cycles, 107u);
  EXPECT_EQ(p.stages[1].cycles, 111u);
}

TEST(PePartition, ForbiddenCutsAreNeverTaken) {
  Request r = costs({1, 1, 1, 1, 1, 1}, 3);
  r.units[1].cut_after = false;  // 0-1-2 stay together
  r.units[3].cut_after = false;  // 3-4 together
  const Plan p = partition_pes(r);
  expect_cover(p, 6);
  for (const Stage& s : p.stages) {
    if (s.last == 5) continue;
    EXPECT_TRUE(r.units[s.last].cut_after) << s.last;
  }
}

TEST(PePartition, MorePesThanLayersGiveOneStagePerLayerAndSaySo) {
  const Plan p = partition_pes(costs({5, 6, 7}, 8));
  ASSERT_EQ(p.stages.size(), 3u);
  EXPECT_THAT(p.fewer_note, HasSubstr("--pes 8: the model has 3 layer(s) where a stage may end, so it runs on 3 PE(s)"));
}

TEST(PePartition, FewerPlacesToCutThanPesCountAsFewerLayers) {
  Request r = costs({5, 6, 7, 8}, 4);
  r.units[0].cut_after = false;
  const Plan p = partition_pes(r);
  EXPECT_EQ(p.stages.size(), 3u);
  EXPECT_FALSE(p.fewer_note.empty());
}

TEST(PePartition, TheMemoryLimitShapesTheSplit) {
  // Without a limit the best 2-way split is [0 1][2 3]; weights put 3 MB in
  // the first two layers, so with a 2.6 MB limit the first stage must stop earlier.
  Request r = costs({10, 10, 10, 10}, 2);
  r.units[0].const_bytes = 1500000;
  r.units[1].const_bytes = 1500000;
  r.units[2].const_bytes = 1000000;
  r.units[3].const_bytes = 100;
  EXPECT_EQ(partition_pes(r).stages[0].last, 1u);
  r.memory_limit = 2600000;
  const Plan p = partition_pes(r);
  ASSERT_EQ(p.stages.size(), 2u);
  for (const Stage& s : p.stages) EXPECT_LE(s.memory, r.memory_limit);
  EXPECT_EQ(p.stages[0].last, 0u);
}

TEST(PePartition, StageMemoryCountsWeightsTheLargestWorkCutsIoAndRuntime) {
  Request r = costs({1, 1, 1}, 3);
  r.fixed_bytes = 1000;
  r.input_bytes = 30;
  r.output_bytes = 40;
  for (Unit& u : r.units) {
    u.const_bytes = 100;
    u.work_bytes = 10;
    u.cut_bytes = 5;
  }
  r.units[1].work_bytes = 20;
  EXPECT_EQ(stage_estimate(r, 0, 2).memory, 300u + 20u + 1000u + 30u + 40u);
  EXPECT_EQ(stage_estimate(r, 1, 1).memory, 100u + 20u + 1000u + 5u + 5u);
  EXPECT_EQ(stage_estimate(r, 0, 0).memory, 100u + 10u + 1000u + 30u + 5u);
}

TEST(PePartition, ALayerAboveTheLimitIsAnErrorNamingIt) {
  Request r = costs({1, 1, 1}, 3);
  r.units[1].name = "/blocks/conv (Conv)";
  r.units[1].const_bytes = 5000;
  r.memory_limit = 4096;
  try {
    partition_pes(r);
    FAIL() << "no error";
  } catch (const Error& e) {
    EXPECT_THAT(e.what(), HasSubstr("--pe-memory 4096: ONNX node '/blocks/conv' (Conv) needs 5000 bytes on one PE"));
  }
}

TEST(PePartition, TooFewPesForTheLimitSaysHowManyAreNeeded) {
  Request r = costs({1, 1, 1, 1}, 2);
  for (Unit& u : r.units) u.const_bytes = 1000;
  r.memory_limit = 1000;
  try {
    partition_pes(r);
    FAIL() << "no error";
  } catch (const Error& e) {
    EXPECT_THAT(e.what(), HasSubstr("does not fit on 2 PE(s) of 1000 bytes; by the estimate it needs 4 PEs"));
  }
}

TEST(PePartition, OnePeIsTheWholeSchedule) {
  const Plan p = partition_pes(costs({3, 4, 5}, 1));
  ASSERT_EQ(p.stages.size(), 1u);
  EXPECT_EQ(p.stages[0].cycles, 12u);
}

}  // namespace
}  // namespace mlipc::mesh::unit_mesh_pe_partition
