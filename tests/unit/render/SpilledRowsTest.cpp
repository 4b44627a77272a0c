// SpilledRows against RowBuckets: the same events walked from disk (sorted
// runs, a tiny budget) and from memory give the same bytes in both trace
// formats and the same warnings: random rows, tids (negative, 0, a row's pid), times
// before the origin and at 0, ends before starts, ops that overlap without
// nesting (overlap lanes), shared and missing correlations (flows), details,
// copy sizes, and memory blocks (never freed, overflowing sums).
#include <gtest/gtest.h>

#include <map>
#include <random>
#include <string>
#include <vector>

#include "../TempDirTest.h"
#include "xstack/model/RankRows.h"
#include "xstack/render/ChunkWalk.h"
#include "xstack/render/RowBuckets.h"
#include "xstack/render/SpilledRows.h"
#include "xstack/render/json/JsonRenderer.h"
#include "xstack/render/perfetto/PerfettoRenderer.h"

namespace xstack {
namespace {

constexpr uint64_t kOrigin = 1'000'000;

struct RandomRank {
  std::mt19937_64 rng;
  std::vector<std::string> details;  // stable storage for the EventList's copies
  explicit RandomRank(uint64_t seed) : rng(seed) {}

  uint64_t pick(uint64_t n) { return rng() % n; }
  RowKey row() {
    switch (pick(5)) {
      case 0:
        return {RowKind::CpuBlock, 0};
      case 1:
        return {RowKind::CpuBlock, static_cast<int64_t>(pick(3))};
      case 2:
        return {RowKind::CudaApi, -1};
      default:
        return {RowKind::Gpu, static_cast<int64_t>(pick(2))};
    }
  }
  uint64_t time() {
    switch (pick(20)) {
      case 0:
        return 0;  // at 0: clamped, counted
      case 1:
        return kOrigin - 1 - pick(5000);  // before the origin
      default:
        return kOrigin + pick(2'000'000);  // the bulk; many ties at coarse steps
    }
  }
  SliceEvent slice(std::vector<std::string>& names) {
    SliceEvent e;
    e.row = row();
    // 0, -3 and 21, 22 (the pids of rows 1 and 2 at pidBase 20) are written with other ids
    // (RowThreadIds): both walks must pick the same.
    static const int64_t kTids[] = {0, 7, -3, 100, 101, 9, 21, 22};
    e.tid = kTids[pick(8)];
    e.startNs = time();
    if (pick(4) == 0) e.startNs -= e.startNs % 1000;  // ties in ts
    const uint64_t dur = pick(3) == 0 ? 0 : pick(40'000);
    e.endNs = pick(25) == 0 ? e.startNs - std::min<uint64_t>(e.startNs, 5) : e.startNs + dur;
    e.name = names[pick(names.size())];
    if (pick(10) == 0) e.bytes = 1 + pick(1 << 20);
    if (pick(12) == 0) e.detail = details[pick(details.size())];
    if (pick(2) == 0) e.correlation = static_cast<int64_t>(pick(400));
    return e;
  }
  MemoryEvent memory() {
    MemoryEvent m;
    m.startNs = time();
    m.endNs = pick(5) == 0 ? 0 : m.startNs + pick(100'000);
    m.bytes = pick(50) == 0 ? (uint64_t{1} << 62) : pick(1 << 20);
    m.place = static_cast<MemPlace>(pick(3));
    m.device = pick(2);
    return m;
  }
  EventList events(size_t slices, size_t blocks) {
    std::vector<std::string> names = {"matmul", "nccl:all_reduce", "cudaLaunchKernel", "\"q\"",
                                      "Memcpy HtoD"};
    for (int i = 0; i < 30; ++i) names.push_back("op_" + std::to_string(pick(1000)));
    details = {"collective broadcast; in_nelems 53120", "detail \xff bad utf8", "x"};
    EventList d;
    for (size_t i = 0; i < slices; ++i) d.onSlice(slice(names));
    for (size_t i = 0; i < blocks; ++i) d.onMemory(memory());
    return d;
  }
};

struct Rendered {
  std::string json, pftrace;
  Warnings warnings;
};

template <class Feed>
Rendered render(const std::vector<RowKey>& rows, Feed&& walkRows) {
  Rendered out;
  JsonTraceSink json([&](std::string& s) { out.json += s; }, 1 << 16);
  PerfettoTraceSink pf(
      1, [&](std::string& s) { out.pftrace += s; }, 1 << 16);
  TraceSink* both[] = {&json, &pf};
  TeeSink tee(both);
  ChunkWalk walk(TimeOrigin{kOrigin}, tee);
  walkRows(walk);
  out.warnings = walk.takeWarnings();
  tee.flush();
  out.warnings.merge(tee.takeWarnings());
  (void)rows;
  return out;
}

std::map<Warn, uint64_t> counts(const Warnings& w) {
  std::map<Warn, uint64_t> out;
  for (const auto& [kind, e] : w.entries()) out[kind] = e.count;
  return out;
}

class SpilledRowsTest : public TempDirTest {};

TEST_F(SpilledRowsTest, SameBytesAsHeldRowsWhateverTheBudget) {
  for (uint64_t seed = 1; seed <= 12; ++seed) {
    RandomRank gen(seed);
    const EventList d = gen.events(3000 + gen.pick(4000), 200 + gen.pick(2000));
    const std::vector<RowKey> rows = rankRows(d);
    Rendered held = render(rows, [&](ChunkWalk& w) {
      RowBuckets b;
      b.reset(rows);
      b.addAll(d);
      w.rankRows(3, 20, rows, b);
    });
    for (uint64_t budget : {uint64_t{4096}, uint64_t{64} << 20}) {
      SpilledRows s(rows, TimeOrigin{kOrigin}, SpillOptions{dir_.string(), budget});
      for (const SliceEvent& e : d.slices) s.onSlice(e);
      for (const MemoryEvent& m : d.memory) s.onMemory(m);
      ASSERT_TRUE(s.finish().ok());
      Rendered spilled = render(rows, [&](ChunkWalk& w) { w.rankRows(3, 20, rows, s); });
      ASSERT_TRUE(s.readStatus().ok());
      ASSERT_EQ(spilled.json, held.json) << "seed " << seed << " budget " << budget;
      ASSERT_EQ(spilled.pftrace, held.pftrace) << "seed " << seed << " budget " << budget;
      EXPECT_EQ(counts(spilled.warnings), counts(held.warnings)) << "seed " << seed;
    }
  }
}

TEST_F(SpilledRowsTest, FlowsAndOverlapLanesAreExercised) {
  // The comparison above must cover the hard parts: flows and overlap lanes.
  RandomRank gen(5);
  const EventList d = gen.events(5000, 3000);
  const std::vector<RowKey> rows = rankRows(d);
  SpilledRows s(rows, TimeOrigin{kOrigin}, SpillOptions{dir_.string(), 4096});
  for (const SliceEvent& e : d.slices) s.onSlice(e);
  for (const MemoryEvent& m : d.memory) s.onMemory(m);
  ASSERT_TRUE(s.finish().ok());
  EXPECT_TRUE(s.hasFlows());
  Rendered r = render(rows, [&](ChunkWalk& w) { w.rankRows(3, 20, rows, s); });
  EXPECT_GT(r.warnings.count(Warn::EventOverlapLane), 0u);
  EXPECT_GT(r.warnings.count(Warn::EventEndBeforeStart), 0u);
  EXPECT_GT(r.warnings.count(Warn::TimestampBeforeOrigin), 0u);
  EXPECT_GT(r.warnings.count(Warn::MemorySumOverflow), 0u);
  EXPECT_NE(r.json.find("\"flow_out\":true"), std::string::npos) << "a flow in the JSON";
}

TEST_F(SpilledRowsTest, AnUnwritableSpillFolderIsAnErrorNamingIt) {
  RandomRank gen(7);
  const EventList d = gen.events(5000, 10);
  const std::vector<RowKey> rows = rankRows(d);
  const std::string missing = (dir_ / "gone").string();
  SpilledRows s(rows, TimeOrigin{kOrigin}, SpillOptions{missing, 4096});
  for (const SliceEvent& e : d.slices) s.onSlice(e);
  Status st = s.finish();
  ASSERT_FALSE(st.ok());
  EXPECT_NE(st.error().message.find(missing), std::string::npos) << st.error().message;
}

}  // namespace
}  // namespace xstack
