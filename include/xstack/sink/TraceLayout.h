// Names and contents of the fixed processes of a trace file (docs/FORMAT.md
// section 3); the pids themselves are in trace/TracePids.h.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "xstack/core/TimeUnits.h"
#include "xstack/event/CounterSamples.h"
#include "xstack/event/RowKey.h"
#include "xstack/sink/TracePids.h"

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

// Events a chunk will hold, computed without rendering (used to decide which
// processes exist before anything is written).
uint64_t dcgmCounterCount(int64_t pid, int64_t gpu, const std::vector<GpuTelemetrySample>& samples);
uint64_t netCounterCount(int64_t pid, const std::vector<NetCounterSample>& samples);

}  // namespace xstack
