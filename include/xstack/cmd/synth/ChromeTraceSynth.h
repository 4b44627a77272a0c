// `xstack synth --format kineto|paddle-json`: the synchronous job of
// cmd/synth/SyncJobModel.h written as the Chrome-trace JSON files today's
// profilers write, one per training rank, in <out>/profile/ (nothing else
// but <out>/sync_truth.csv: no dcgm/, net/ or time/, which belong to the
// Paddle dumps). docs/FORMAT.md "Sample data sets" lists what they hold.
//   kineto       rank<R>.node<T>_<pid>.<epoch_ns>.pt.trace.json.gz (gzip), as
//                PyTorch's Kineto writes: distributedInfo.rank = R, ts/dur in
//                us with 3 decimals relative to baseTimeNanoseconds.
//   paddle-json  host_node<T>pid_<pid>_time_<Y_m_d_H_M_S_us>.rank<R>.paddle_trace.json
//                (plain), as paddle.profiler's export_chrome_tracing writes:
//                no rank inside, so "rank<R>" in the name says it; ts in
//                whole us (truncated), dur in us with 3 decimals.
// The same options and seed give the same bytes; each file is streamed
// (memory does not grow with its size).
#pragma once

#include <cstdint>
#include <filesystem>
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "xstack/cmd/synth/SyncJobEvents.h"
#include "xstack/cmd/synth/Synth.h"
#include "xstack/cmd/synth/SynthParallel.h"

namespace xstack {

// Who a rank is, for its trace file.
struct ChromeRank {
  int64_t rank = 0;
  int64_t worldSize = 1;
  int64_t trainer = 0;      // node
  int64_t gpu = 0;          // local GPU (= the device pid of its GPU events)
  int64_t gpusPerNode = 1;  // deviceProperties entries
  uint64_t pid = 0;         // host process id (= the main thread id)
  uint64_t skewNs = 0;      // the trainer's clock skew, added to every time
  // A 3D job: the process groups the rank is in (Kineto's distributedInfo
  // pg_config); empty for the synchronous job, whose header stays as it was.
  std::vector<SynthProcessGroupInfo> groups;
};

// Keeps one host thread's events properly nested, as profilers record them
// (trace viewers drop or spill overlapping slices that do not nest): the
// model's times are those of the Paddle dumps, where a copy's runtime call
// may outlast its operator, so a runtime call is moved (and shortened when
// needed) into its operator, after the operator's previous call.
struct HostCallNesting {
  uint64_t opEndNs = 0, lastCallEndNs = 0;
  void op(uint64_t startNs, uint64_t endNs) { opEndNs = endNs, lastCallEndNs = startNs; }
  // The call's [start, end] inside the operator, ns.
  std::pair<uint64_t, uint64_t> call(uint64_t startNs, uint64_t endNs);
};

// The host thread of the step's all-reduce (its annotation, op and launch):
// not the main thread, where the model's times could overlap the last
// operator's.
inline uint64_t collectiveThreadOf(const ChromeRank& r) { return r.pid + 3; }

// "[0, 1]": ranks as PyTorch writes a group's ranks.
std::string ranksText(const std::vector<int64_t>& ranks);

ChromeRank chromeRankOf(const SynthOptions& o, int64_t rank, uint64_t skewNs);

// The file name (no folder) of a rank's trace; beginEpochNs is when its data
// starts (skew included), which Kineto and Paddle put in their names.
std::string chromeTraceFileName(SynthFormat format, const ChromeRank& r, uint64_t beginEpochNs);

// A writer of one rank's trace to `path` (SyncJobModel::writeRank drives it).
std::unique_ptr<SyncJobEvents> makeKinetoTraceWriter(const ChromeRank& r,
                                                     const std::filesystem::path& path);
std::unique_ptr<SyncJobEvents> makePaddleTraceWriter(const ChromeRank& r,
                                                     const std::filesystem::path& path);

// The whole data set; exit code kExitOk or kExitFatal (the failed file named).
int runChromeTraceSynth(const SynthOptions& o);

}  // namespace xstack
