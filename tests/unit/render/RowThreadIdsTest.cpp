// The thread ids of an op row (model/TraceLayout.h RowThreadIds, docs/FORMAT.md section 3): an
// input tid Perfetto's importers reserve or cannot keep (0, the row's pid, negative, beyond 32
// bits) and every overlap lane get the next free id after the row's largest kept tid.
#include <gtest/gtest.h>

#include <map>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "xstack/model/RankRows.h"
#include "xstack/model/TraceLayout.h"
#include "xstack/render/json/JsonRenderer.h"

namespace xstack {
namespace {

TEST(RowThreadIds, KeepsOwnIdsAndMovesReservedOnes) {
  RowThreadIds ids;
  const std::vector<int64_t> tids = {-4, 0, 5, 9, int64_t{1} << 32};
  ids.reset(9, tids);
  EXPECT_EQ(ids.outputTid(-4), 6);  // after the largest kept tid, 5
  EXPECT_EQ(ids.outputTid(0), 7);
  EXPECT_EQ(ids.outputTid(5), 5);
  EXPECT_EQ(ids.outputTid(9), 8);                  // the pid: the main thread
  EXPECT_EQ(ids.outputTid(int64_t{1} << 32), 10);  // 9 is the pid
  EXPECT_EQ(ids.take(), 11);                       // a lane
  // The same row again gives the same ids (deterministic, whatever was walked before).
  ids.reset(9, tids);
  EXPECT_EQ(ids.outputTid(-4), 6);
}

TEST(RowThreadIds, LanesSkipThePidAndRowsWithoutReservedIdsStayAsTheyWere) {
  RowThreadIds ids;
  const std::vector<int64_t> tids = {7, 8};
  ids.reset(9, tids);
  EXPECT_EQ(ids.outputTid(7), 7);
  EXPECT_EQ(ids.outputTid(8), 8);
  EXPECT_EQ(ids.take(), 10);  // not 9, the row's pid
  EXPECT_EQ(ids.take(), 11);
  const std::vector<int64_t> none;
  ids.reset(1, none);
  EXPECT_EQ(ids.take(), 2);
}

TEST(RowThreadIds, PastTheLargestIdTheSearchStartsAtOne) {
  RowThreadIds ids;
  const std::vector<int64_t> tids = {0, 1, 2, kMaxThreadId};
  ids.reset(3, tids);
  EXPECT_EQ(ids.outputTid(0), 4);  // 1, 2 kept, 3 the pid
  EXPECT_EQ(ids.take(), 5);
  EXPECT_EQ(ids.outputTid(kMaxThreadId), kMaxThreadId);
  for (int64_t t : {int64_t{0}, int64_t{-1}, int64_t{3}, kMaxThreadId + 1})
    EXPECT_FALSE(isOwnThreadId(3, t)) << t;
  EXPECT_TRUE(isOwnThreadId(3, kMaxThreadId));
}

// CPU ops on tid 0 and on the tid equal to their row's pid (9, the first row's), and overlapping
// ops on thread 8 (a lane): the JSON writes each thread with an id of its own, none 0 or 9, and
// names them by their input tid (the .pftrace gets the same ids: tests/shell/
// golden_trace_processor.sh checks both through Perfetto's importer).
TEST(RowThreadIds, TheJsonWritesReservedTidsWithFreeIds) {
  EventList d;
  auto op = [&](const char* name, uint64_t start, uint64_t end, int64_t tid) {
    SliceEvent e;
    e.name = name;
    e.startNs = start;
    e.endNs = end;
    e.row = {RowKind::CpuBlock, 0};
    e.tid = tid;
    d.onSlice(e);
  };
  op("on 0", 1000, 2000, 0);
  op("on 9", 1000, 2000, 9);
  op("x", 1000, 3000, 8);
  op("y", 2000, 4000, 8);  // overlaps x without nesting: a lane of thread 8
  std::string text;
  JsonRenderer r(TimeOrigin{0}, [&](std::string_view s) { text += s; });
  const std::vector<RowKey> rows = rankRows(d);
  ASSERT_EQ(rows.size(), 1u);
  r.rankRows(0, 9, rows, d);
  r.flush();
  const nlohmann::json all = nlohmann::json::parse("[" + text.substr(1) + "]");
  std::map<std::string, int64_t> tidOf;     // by thread name
  std::map<int64_t, int64_t> sortOf;        // by tid
  std::map<std::string, int64_t> sliceTid;  // by op name
  for (const auto& e : all) {
    const int64_t tid = e.value("tid", int64_t{-1});
    if (e["ph"] == "M" && e["name"] == "thread_name")
      tidOf[e["args"]["name"].get<std::string>()] = tid;
    if (e["ph"] == "M" && e["name"] == "thread_sort_index")
      sortOf[tid] = e["args"]["sort_index"].get<int64_t>();
    if (e["ph"] == "X") sliceTid[e["name"].get<std::string>()] = tid;
  }
  // Kept tid 8 is the largest: thread 0 gets 10 (9 is the pid), thread 8's lane 11, thread 9 12.
  const std::map<std::string, int64_t> want = {
      {"thread 0", 10}, {"thread 8", 8}, {"thread 8 (overlap 1)", 11}, {"thread 9", 12}};
  EXPECT_EQ(tidOf, want);
  EXPECT_EQ(sliceTid.at("on 0"), 10);
  EXPECT_EQ(sliceTid.at("on 9"), 12);
  EXPECT_EQ(sliceTid.at("y"), 11);
  // Sort indexes keep the input tids' order.
  EXPECT_EQ(sortOf, (std::map<int64_t, int64_t>{{8, 8}, {10, 0}, {11, 8}, {12, 9}}));
}

}  // namespace
}  // namespace xstack
