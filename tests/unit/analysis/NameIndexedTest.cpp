// NameIndexed: a per-rank part's per-name state, found by the walk's nameId
// or by the name; one entry per distinct name whichever way a slice comes.
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "xstack/analysis/GpuActivity.h"
#include "xstack/analysis/NameIndexed.h"

namespace xstack {
namespace {

SliceEvent named(std::string_view name, uint32_t id = SliceEvent::kNoNameId) {
  SliceEvent e;
  e.name = name;
  e.row = {RowKind::Gpu, 0};
  e.nameId = id;
  return e;
}

TEST(NameIndexed, OneEntryPerNameByIdOrByName) {
  NameIndexed<int> n;
  int made = 0;
  auto make = [&made](std::string_view) { return ++made; };
  EXPECT_EQ(n.indexOf(named("gemm", 5), make), 0u);
  EXPECT_EQ(n.indexOf(named("gemm", 5), make), 0u);
  EXPECT_EQ(n.indexOf(named("gemm"), make), 0u);  // no id: found by its name
  EXPECT_EQ(n.indexOf(named("copy"), make), 1u);
  EXPECT_EQ(n.indexOf(named("copy", 0), make), 1u);  // seen by name first, then by id
  EXPECT_EQ(n.indexOf(named("nccl", 1000), make), 2u);
  EXPECT_EQ(made, 3);
  ASSERT_EQ(n.size(), 3u);
  EXPECT_EQ(n.name(0), "gemm");
  EXPECT_EQ(n.name(1), "copy");
  EXPECT_EQ(n[2], 3);
  n.clear();
  EXPECT_EQ(n.size(), 0u);
  EXPECT_EQ(n.indexOf(named("copy", 0), make), 0u);
  EXPECT_EQ(n.name(0), "copy");
}

// kernels.csv's numbers do not depend on whether the walk gave ids.
TEST(NameIndexed, KernelStatsAreTheSameWithAndWithoutIds) {
  const std::vector<std::string> names{"b", "a", "b", "Memcpy HtoD", "a", "b"};
  KernelStatsBuilder withIds, without;
  for (size_t i = 0; i < names.size(); ++i) {
    SliceEvent e = named(names[i]);
    e.endNs = 10 * (i + 1);
    without.add(e);
    e.nameId = names[i] == "b" ? 7 : names[i] == "a" ? 0 : 3;
    withIds.add(e);
  }
  std::vector<KernelStat> x = withIds.take(), y = without.take();
  ASSERT_EQ(x.size(), 3u);
  ASSERT_EQ(x.size(), y.size());
  for (size_t i = 0; i < x.size(); ++i) {
    EXPECT_EQ(x[i].name, y[i].name);
    EXPECT_EQ(x[i].count, y[i].count);
    EXPECT_EQ(x[i].totalNs, y[i].totalNs);
    EXPECT_EQ(x[i].maxNs, y[i].maxNs);
  }
  EXPECT_EQ(x[2].name, "b");
  EXPECT_EQ(x[2].count, 3u);
}

}  // namespace
}  // namespace xstack
