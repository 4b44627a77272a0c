// RowBuckets learning its rows while a profile is read (the read stage keeps
// a JSON trace's rows for rendering) must equal RowBuckets reset with the
// summary's rows and fed the same events.
#include <gtest/gtest.h>

#include "xstack/render/RowBuckets.h"
#include "xstack/render/SpilledRows.h"

namespace xstack {
namespace {

EventList someEvents() {
  EventList l;
  auto slice = [&l](RowKey row, int64_t tid, uint64_t start, const char* name, int64_t corr) {
    SliceEvent e{name, {}, start, start + 5, row, tid, 0};
    e.correlation = corr;
    l.onSlice(e);
  };
  slice({RowKind::Gpu, 1}, 7, 30, "k1", 1);
  slice({RowKind::CudaApi, -1}, 3, 10, "launch", 1);
  slice({RowKind::CpuBlock, 0}, 3, 5, "op", -1);
  slice({RowKind::Gpu, 0}, 7, 40, "k0", -1);  // a row the summary does not list
  slice({RowKind::Gpu, 1}, 9, 50, "k2", -1);
  slice({RowKind::CpuBlock, 0}, 4, 6, "op", -1);
  l.onMemory({1, 2, 64, MemPlace::Gpu, 1, 3});
  return l;
}

std::string describe(RowBuckets& b, size_t rows) {
  std::string out;
  for (size_t r = 0; r < rows; ++r)
    for (size_t t = 0; t < b.tidCount(r); ++t) {
      const RowBuckets::Tid& tid = b.tids(r)[t];
      out += "row " + std::to_string(r) + " tid " + std::to_string(tid.tid) + ":";
      for (const RowBuckets::Op& op : tid.ops)
        out += " " + std::string(b.names().raw(op.nameId)) + "@" + std::to_string(op.startNs) +
               (op.extra ? "/c" + std::to_string(b.extras()[op.extra - 1].correlation) : "");
      out += "\n";
    }
  return out + std::to_string(b.memEvents().size()) + " memory";
}

TEST(RowBuckets, LearningThenAdoptingEqualsResettingWithTheRows) {
  const std::vector<RowKey> rows = {
      {RowKind::CpuBlock, 0}, {RowKind::CudaApi, -1}, {RowKind::Gpu, 1}, {RowKind::MemGpu, 1}};
  const EventList events = someEvents();
  RowBuckets direct;
  direct.reset(rows);
  direct.addAll(events);
  RowBuckets learned;
  learned.resetLearning();
  learned.addAll(events);
  learned.adoptRows(rows);
  EXPECT_EQ(describe(learned, rows.size()), describe(direct, rows.size()));
  // Counted as read against the budget: the dropped row's op and the memory event included.
  EXPECT_EQ(learned.opCount(), 7u);
  EXPECT_EQ(learned.markFlowEnds(TimeOrigin{}), direct.markFlowEnds(TimeOrigin{}));
  // and it can be reused for the next profile
  learned.resetLearning();
  learned.adoptRows(rows);
  EXPECT_EQ(describe(learned, rows.size()), "0 memory");
}

// A kept detail counts against the budget as the ops its bytes are: a profile
// whose ops carry long details (a collective's "Process Group Ranks" of a
// 1,024-rank group: 5 KB an op) is let go of when their bytes pass the
// budget, not held whole because its ops are few.
TEST(RowBuckets, LongDetailsCountAgainstTheBudget) {
  const std::string ranks(5000, '1');
  auto feed = [&](RowBuckets& b, std::string_view detail, int ops) {
    for (int i = 0; i < ops; ++i) {
      SliceEvent e{"k", detail, uint64_t(i) * 10, uint64_t(i) * 10 + 5, {RowKind::Gpu, 0}, 7, 0};
      b.onSlice(e);
    }
  };
  // 110 ops, 10 of them with a long detail: 1 + 40 each.
  const uint64_t limit = 110 + heldOpsOfText(ranks.size()) * 10;
  RowBuckets fits;
  fits.resetLearning();
  fits.limitOps(limit);
  feed(fits, ranks, 10);
  feed(fits, "", 100);
  EXPECT_FALSE(fits.abandoned());
  EXPECT_EQ(fits.opCount(), limit);
  EXPECT_EQ(heldOpsOfText(ranks.size()), (5000 + heldBytesOf(1) - 1) / heldBytesOf(1));

  RowBuckets over;
  over.resetLearning();
  over.limitOps(limit);
  feed(over, ranks, 13);  // 13 ops, far under the limit as ops alone
  EXPECT_TRUE(over.abandoned());
  EXPECT_EQ(over.opCount(), 0U);
}

}  // namespace
}  // namespace xstack
