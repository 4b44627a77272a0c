// docs/FORMAT.md section 2: rank arithmetic.
#include <gtest/gtest.h>

#include "xstack/core/Topology.h"

namespace xstack {
namespace {

TEST(Topology, DefaultsAreEightEightTwo) {
  Topology t;
  EXPECT_EQ(t.gpusPerTrainer, 8);
  EXPECT_EQ(t.groupSize, 8);
  EXPECT_EQ(t.displaySize, 2);
}

TEST(Topology, RankArithmeticMatchesTheSpec) {
  // P = 4, S = 3, D = 2, for every rank of a 7-trainer job (a partial last group).
  Topology topo{4, 3, 2};
  for (int64_t R = 0; R < 28; ++R) {
    const int64_t t = R / 4, g = R % 4, k = t / 3, i = t % 3;
    EXPECT_EQ(topo.trainerOf(R), t) << R;
    EXPECT_EQ(topo.gpuOf(R), g) << R;
    EXPECT_EQ(topo.groupOf(R), k) << R;
    EXPECT_EQ(topo.groupOfTrainer(t), k) << R;
    EXPECT_EQ(topo.indexInGroup(t), i) << R;
    EXPECT_EQ(topo.rankDisplayed(R), i < 2) << R;
    EXPECT_EQ(topo.trainerDisplayed(t), i < 2) << R;
    EXPECT_EQ(topo.rankOf(t, g), R) << R;
  }
}

TEST(Topology, ConcreteRanks) {
  Topology topo;  // 8, 8, 2
  // Rank 75: trainer 9, GPU 3, group 1, index 1: displayed.
  EXPECT_EQ(topo.trainerOf(75), 9);
  EXPECT_EQ(topo.gpuOf(75), 3);
  EXPECT_EQ(topo.groupOf(75), 1);
  EXPECT_EQ(topo.indexInGroup(9), 1);
  EXPECT_TRUE(topo.rankDisplayed(75));
  // Rank 80: trainer 10, index 2: not displayed.
  EXPECT_EQ(topo.indexInGroup(topo.trainerOf(80)), 2);
  EXPECT_FALSE(topo.rankDisplayed(80));
  // Rank 0 and the last GPU of trainer 1 are displayed.
  EXPECT_TRUE(topo.rankDisplayed(0));
  EXPECT_TRUE(topo.rankDisplayed(15));
  EXPECT_FALSE(topo.rankDisplayed(16));
}

TEST(Topology, DisplaySizeZeroShowsNothingAndDisplayAllShowsAll) {
  Topology none{2, 4, 0};
  Topology all{2, 4, 4};
  for (int64_t R = 0; R < 32; ++R) {
    EXPECT_FALSE(none.rankDisplayed(R));
    EXPECT_TRUE(all.rankDisplayed(R));
  }
}

TEST(Topology, OneGpuOneTrainerPerGroup) {
  Topology topo{1, 1, 1};
  for (int64_t R = 0; R < 10; ++R) {
    EXPECT_EQ(topo.trainerOf(R), R);
    EXPECT_EQ(topo.gpuOf(R), 0);
    EXPECT_EQ(topo.groupOf(R), R);
    EXPECT_TRUE(topo.rankDisplayed(R));
  }
}

TEST(Topology, LargeRanksDoNotOverflow) {
  Topology topo{8, 8, 2};
  const int64_t R = (int64_t{1} << 50) + 13;
  EXPECT_EQ(topo.trainerOf(R), (int64_t{1} << 47) + 1);
  EXPECT_EQ(topo.gpuOf(R), 5);
  EXPECT_EQ(topo.rankOf(topo.trainerOf(R), topo.gpuOf(R)), R);
}

}  // namespace
}  // namespace xstack
