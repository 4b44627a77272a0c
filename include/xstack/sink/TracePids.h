// The processes (pids) of a trace file, the one place that defines them and
// computes them (docs/FORMAT.md section 3), for both formats:
//   0       the pipeline (forward/backward spans, one thread per rank)
//   1..5    DCGM counters, one process per DCGM series group
//   6, 7    net tx, net rx counters
//   8..     the rows of the displayed ranks, one process per row, rank after
//           rank in rank order, each rank's rows numbered consecutively
//   after   the analysis' findings (the first free pid of the file)
// Processes other than 0 exist only when they have events.
#pragma once

#include <cstddef>
#include <cstdint>

#include "xstack/model/CounterGroup.h"

namespace xstack {

inline constexpr int64_t kPipelinePid = 0;
inline constexpr int64_t kFirstDcgmPid = 1;  // 1..5
inline constexpr int64_t kDcgmPidCount = 5;
inline constexpr int64_t kNetTxPid = 6;
inline constexpr int64_t kNetRxPid = 7;
inline constexpr int64_t kFirstRankPid = 8;

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
