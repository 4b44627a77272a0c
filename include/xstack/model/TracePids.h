// The processes (pids) of a trace file, the one place that defines them and
// computes them (docs/FORMAT.md section 3), for both formats:
//   1       the pipeline (forward/backward spans, one thread per rank)
//   2..6    DCGM counters, one process per DCGM series group
//   7, 8    net tx, net rx counters
//   9..     the rows of the displayed ranks, one process per row, rank after
//           rank in rank order, each rank's rows numbered consecutively
//   after   the analysis' findings (the first free pid of the file)
// Processes other than the pipeline exist only when they have events.
// pid 0 is not used: Perfetto's importer reserves it (and tid 0 in it) for
// the swapper, and would merge the pipeline into it. The NN_ prefix of a
// process name is its place in the file, processOrder(pid): 00_pipeline.
#pragma once

#include <cstddef>
#include <cstdint>

#include "xstack/model/CounterGroup.h"

namespace xstack {

inline constexpr int64_t kPipelinePid = 1;
inline constexpr int64_t kFirstDcgmPid = 2;  // 2..6
inline constexpr int64_t kDcgmPidCount = 5;
inline constexpr int64_t kNetTxPid = 7;
inline constexpr int64_t kNetRxPid = 8;
inline constexpr int64_t kFirstRankPid = 9;

// A process's place in the file (0 for the pipeline): its name's NN_.
constexpr int64_t processOrder(int64_t pid) { return pid - kPipelinePid; }

// The thread of rank `rank` in the pipeline and findings processes (named
// "rank <rank>"): rank + 1, never tid 0, which Perfetto's importers take for
// the idle thread (the .pftrace) or for the process's main thread (the JSON).
constexpr int64_t rankThreadTid(int64_t rank) { return rank + 1; }

// The largest thread id Perfetto's JSON importer keeps (it reads tids as 32-bit unsigned;
// a larger one becomes the process's main thread).
inline constexpr int64_t kMaxThreadId = 0xffffffff;

// Whether `tid` is a thread of its own in process `pid` after Perfetto's importers, in both
// formats: not 0 (the swapper/idle task in the .pftrace, the main thread in the JSON), not the
// pid (the process's main thread, which tid 0 and out-of-range ids also become in the JSON),
// not negative and not beyond kMaxThreadId. A row thread whose input id is not one is written
// with another id (RowThreadIds, model/TraceLayout.h; docs/FORMAT.md section 3).
constexpr bool isOwnThreadId(int64_t pid, int64_t tid) {
  return tid >= 1 && tid <= kMaxThreadId && tid != pid;
}

// The process of a counter group (DCGM, then net, in output order).
constexpr int64_t counterPid(CounterGroup g) { return kFirstDcgmPid + static_cast<int64_t>(g); }
static_assert(counterPid(CounterGroup::GpuUtility) == kFirstDcgmPid);
static_assert(counterPid(CounterGroup::CalUtility) == kFirstDcgmPid + kDcgmPidCount - 1);
static_assert(counterPid(CounterGroup::NetTx) == kNetTxPid);
static_assert(counterPid(CounterGroup::NetRx) == kNetRxPid);

// Row `row` of a displayed rank whose first row is process `firstRowPid`.
constexpr int64_t rankRowPid(int64_t firstRowPid, size_t row) {
  return firstRowPid + static_cast<int64_t>(row);
}
// The first row's process of the displayed rank after one whose first row
// is `firstRowPid` and that has `rows` rows.
constexpr int64_t nextRankFirstPid(int64_t firstRowPid, size_t rows) {
  return rankRowPid(firstRowPid, rows);
}
// The last process a chunk on process `pid` spans: a displayed rank's rows
// span `rows` processes, every other chunk (and a rank without rows) one.
constexpr int64_t lastPidOfChunk(int64_t pid, size_t rows) {
  return rows > 1 ? rankRowPid(pid, rows - 1) : pid;
}

// The findings' process of a file whose last process is `lastPid`.
constexpr int64_t findingsPid(int64_t lastPid) { return lastPid + 1; }

}  // namespace xstack
