// Names and contents of the fixed processes of a trace file (docs/FORMAT.md
// section 3); the pids themselves are in trace/TracePids.h.
#pragma once

#include <cstdint>
#include <span>
#include <string>
#include <vector>

#include "xstack/core/TimeUnits.h"
#include "xstack/event/CounterSamples.h"
#include "xstack/event/RowKey.h"
#include "xstack/model/TracePids.h"

namespace xstack {

// "00_pipeline", "01_gpuUtility", ..., "07_net_rx"; nullptr past 7.
const char* fixedProcessName(int64_t pid);

// The DCGM series shown in DCGM process `pid` (1..5), as DcgmSeries values.
struct SeriesRange {
  int first;
  int count;
};
SeriesRange dcgmSeriesOfPid(int64_t pid);

// The indexes of the samples of GPU `gpu` that have a series of DCGM process
// `pid`, in time order (ts from `origin`, then input order): the order both
// trace formats write a DCGM process's counters in.
std::vector<uint32_t> dcgmSamplesInOrder(const std::vector<GpuTelemetrySample>& samples,
                                         int64_t gpu, int64_t pid, const TimeOrigin& origin);
// The indexes of the net samples of process `pid` (kNetTxPid: tx, kNetRxPid:
// rx), in time order (ts from `origin`, then input order).
std::vector<uint32_t> netSamplesInOrder(const std::vector<NetCounterSample>& samples, int64_t pid,
                                        const TimeOrigin& origin);

// Names of counters (JSON C event name, .pftrace counter track name without its series key):
// what the counter is and whose, the same in both formats (docs/FORMAT.md section 3).
// "trainer <T> GPU <g>": the DCGM samples of GPU g of trainer T.
std::string dcgmCounterName(int64_t trainer, int64_t gpu);
// "trainer <T> tx" / "trainer <T> rx": the net samples of trainer T (pid kNetTxPid / kNetRxPid).
std::string netCounterName(int64_t trainer, int64_t pid);

// thread_name of an op row's tid (both formats): "stream <tid>" on a GPU
// row (the tid is the CUDA stream), "thread <tid>" on CPU rows.
std::string opRowThreadName(RowKind kind, int64_t tid);

// The thread ids one op row (process `pid`) is written with, the same in both formats
// (docs/FORMAT.md section 3): an input tid that is its own thread after Perfetto's importers
// (isOwnThreadId) keeps its id; every other one (0, the row's pid, negative, beyond 2^32 - 1)
// and every overlap lane takes the next id after the row's largest kept input tid that is
// neither the pid nor a kept input tid, in the walk's order (threads by input tid, a thread's
// lanes right after it); past kMaxThreadId the search starts again at 1. Deterministic, so
// every np and both formats give the same ids. The thread's name keeps its input tid.
class RowThreadIds {
 public:
  // `inputTids`: the row's input thread ids, ascending, distinct.
  void reset(int64_t pid, std::span<const int64_t> inputTids);
  // The id thread `inputTid` of the row is written with (a new one when it is not its own).
  int64_t outputTid(int64_t inputTid);
  // A free id for an overlap lane.
  int64_t take();

 private:
  bool taken(int64_t id) const;
  int64_t pid_ = 0;
  int64_t next_ = 0;           // the last id handed out (or the largest kept input tid)
  bool wrapped_ = false;       // next_ passed kMaxThreadId once: ids from 1 on
  std::vector<int64_t> kept_;  // the kept input tids, ascending
};

// Events a chunk will hold, computed without rendering (used to decide which
// processes exist before anything is written).
uint64_t dcgmCounterCount(int64_t pid, int64_t gpu, const std::vector<GpuTelemetrySample>& samples);
uint64_t netCounterCount(int64_t pid, const std::vector<NetCounterSample>& samples);

}  // namespace xstack
