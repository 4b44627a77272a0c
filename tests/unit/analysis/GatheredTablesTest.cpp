// What travels to rank 0 for the analysis: the step tables
// without kernel names, whose size does not depend on the names' length, and
// the same kernel-spread numbers from them as from the tables with names.
#include <gtest/gtest.h>

#include <algorithm>
#include <string>
#include <vector>

#include "xstack/analysis/Findings.h"
#include "xstack/analysis/StepTable.h"
#include "xstack/core/FileIdentity.h"

namespace xstack {
namespace {

// A rank's table with `kernels` compute kernels named "<i>_xxx..." (`nameBytes`
// long; the same names on every rank), one collective and two steps.
RankTable tableOf(int64_t rank, size_t kernels, size_t nameBytes) {
  RankTable t;
  t.rank = rank;
  for (int64_t s = 0; s < 2; ++s) {
    StepRow row;
    row.step = s;
    row.stepNs = 1000;
    t.steps.push_back(row);
  }
  for (size_t i = 0; i < kernels; ++i) {
    std::string name = std::to_string(i) + "_";
    name.resize(nameBytes, 'x');
    t.kernels.push_back({name, 0, 1000 + i * 10 + static_cast<uint64_t>(rank) * (i % 3), 4});
  }
  t.kernels.push_back({"ncclKernel_AllReduce", 0, 99, 2});
  return t;
}

TEST(GatheredTablesTest, NoKernelNameTravels) {
  const RankTable t = tableOf(5, kKernelsPerRank - 1, 4096);
  const std::string full = encodeRankTables({t});
  const std::string gathered = withoutKernelNames(full).value();
  EXPECT_GT(full.size(), (kKernelsPerRank - 1) * 4096);
  // O(steps + kernels) numbers: well under 64 bytes a kernel, whatever the names.
  EXPECT_LT(gathered.size(), kKernelsPerRank * 64);
  const RankTable shortNames = tableOf(5, kKernelsPerRank - 1, 40);
  const size_t shortSize = withoutKernelNames(encodeRankTables({shortNames})).value().size();
  EXPECT_LT(std::max(gathered.size(), shortSize) - std::min(gathered.size(), shortSize),
            64u);  // varint bytes of the digests only
  const std::vector<RankTable> back = decodeRankTables(gathered).value();
  ASSERT_EQ(back.size(), 1u);
  ASSERT_EQ(back[0].kernels.size(), kKernelsPerRank - 1);  // the collective left out
  for (size_t i = 0; i < back[0].kernels.size(); ++i) {
    EXPECT_TRUE(back[0].kernels[i].name.empty());
    EXPECT_EQ(back[0].kernels[i].nameDigest, digestOf(t.kernels[i].name));
    EXPECT_EQ(kernelNameOf(full, 5, back[0].kernels[i].nameDigest), t.kernels[i].name);
  }
  EXPECT_EQ(kernelNameOf(full, 6, back[0].kernels[0].nameDigest), "");  // another rank
}

TEST(GatheredTablesTest, SpreadFromDigestsMatchesSpreadFromNames) {
  std::vector<RankTable> named, gathered;
  for (int64_t r = 0; r < 6; ++r) {
    named.push_back(tableOf(r, 20, 300));
    gathered.push_back(
        decodeRankTables(withoutKernelNames(encodeRankTables({named.back()})).value()).value()[0]);
  }
  Topology topo;
  topo.gpusPerTrainer = 2;
  std::vector<KernelSpread> a = analyzeJob(named, topo).kernelSpread;
  std::vector<KernelSpread> b = analyzeJob(gathered, topo).kernelSpread;
  ASSERT_EQ(a.size(), kKernelSpreadShown);
  // Without names the kernels tied at the cut stay (spreads 10 x6, then 5 x7 of which
  // names pick 2), for rank 0 to cut by name once it has asked for them.
  ASSERT_EQ(b.size(), 13u);
  EXPECT_EQ(spreadOf(b.back()), spreadOf(b[kKernelSpreadShown - 1]));
  for (KernelSpread& k : b) {  // named as rank 0 names them: from the slowest rank's reader
    k.name = kernelNameOf(encodeRankTables({named[static_cast<size_t>(k.slowestRank)]}),
                          k.slowestRank, k.nameDigest);
  }
  orderKernelSpread(b);
  b.resize(kKernelSpreadShown);
  for (size_t i = 0; i < a.size(); ++i) {
    EXPECT_EQ(a[i].name, b[i].name);
    EXPECT_EQ(a[i].medianNs, b[i].medianNs);
    EXPECT_EQ(a[i].slowestNs, b[i].slowestNs);
    EXPECT_EQ(a[i].slowestRank, b[i].slowestRank);
    EXPECT_EQ(a[i].ranks, b[i].ranks);
  }
}

}  // namespace
}  // namespace xstack
