// What one output format receives from the walk over a chunk (ChunkWalk):
// every decision the formats share (the order of rows, threads and events,
// clamping times to the origin, durations of events that end before they
// start, memory tracks, counter order) is made once by the walk; a sink only
// encodes. Times are ns since the time origin, already clamped; durations ns.
// Op slices, the bulk of a trace, come batched: one call per thread.
#pragma once

#include <cstdint>
#include <span>
#include <string>
#include <string_view>

#include "xstack/core/Warnings.h"
#include "xstack/event/CounterSamples.h"
#include "xstack/model/MarkerPairer.h"
#include "xstack/model/TraceLayout.h"
#include "xstack/render/RowBuckets.h"
#include "xstack/render/TraceEvents.h"

namespace xstack {

// One op slice as the walk hands it out: ts clamped, dur 0 when the input's
// end is before its start; `nameId` and `extra` index the store (OpStore).
// `flowId` (nonzero with `flow` != None): the op is one end of a flow
// (launch -> GPU activity); both ends carry the same id (traceFlowId).
struct OpView {
  uint64_t tsNs = 0;
  uint64_t durNs = 0;
  uint32_t nameId = 0;
  uint32_t extra = 0;  // 0: none; else 1 + index into the store's extras() (OpStore)
  uint64_t flowId = 0;
  FlowEnd flow = FlowEnd::None;
};

// The id of the flow of `correlation` in displayed rank `rank`'s rows, unique
// within a trace file (each displayed rank's rows are in one file once; two
// ranks may reuse correlation numbers): (rank + 1) * 2^32 + correlation,
// below 2^53 (exact as a JSON number) and never 0. 0 (no flow) when rank is
// outside [0, 2^21 - 1) or correlation outside [0, 2^32).
constexpr uint64_t traceFlowId(int64_t rank, int64_t correlation) {
  if (rank < 0 || rank >= (int64_t{1} << 21) - 1) return 0;
  if (correlation < 0 || correlation >= (int64_t{1} << 32)) return 0;
  return ((static_cast<uint64_t>(rank) + 1) << 32) | static_cast<uint64_t>(correlation);
}

class TraceSink {
 public:
  virtual ~TraceSink() = default;
  // A process (JSON: process_name and process_sort_index = pid).
  virtual void process(int64_t pid, std::string_view name) = 0;
  // A thread (JSON: thread_name, thread_sort_index = sortIndex): the tid
  // for a row's own threads, the lanes of a thread (ChunkWalk) its tid too.
  virtual void thread(int64_t pid, int64_t tid, std::string_view name, int64_t sortIndex) = 0;
  // A forward/backward span of `rank` on the pipeline row (pid kPipelinePid, tid
  // rankThreadTid(rank)).
  virtual void span(int64_t rank, const Span& s, uint64_t tsNs) = 0;
  // The op rows of one displayed rank come between rankRowsBegin and
  // rankRowsEnd; `names` and `extras` of `store` resolve the OpViews.
  virtual void rankRowsBegin(const OpStore& store) = 0;
  virtual void opRowBegin(int64_t pid) = 0;  // a new op row (process `pid`) starts
  virtual void ops(int64_t pid, int64_t tid, std::span<const OpView> ops) = 0;
  // One sample of a memory row (process `pid`): the bytes allocated from tsNs on,
  // on the counter `counterName` (memoryCounterName: whose memory).
  virtual void memorySample(int64_t pid, std::string_view counterName, uint64_t tsNs,
                            int64_t allocatedBytes) = 0;
  virtual void rankRowsEnd() = 0;
  // One DCGM sample of process `pid`: the present series of `range`, on the counter
  // `counterName` (dcgmCounterName: whose GPU).
  virtual void dcgmSample(int64_t pid, std::string_view counterName, uint64_t tsNs,
                          const GpuTelemetrySample& s, SeriesRange range) = 0;
  // One net sample of process `pid` (tx or rx) on the counter `counterName`
  // (netCounterName: whose network).
  virtual void netSample(int64_t pid, std::string_view counterName, uint64_t tsNs,
                         const NetCounterSample& s) = 0;
  // The findings rows: a thread of process `pid` named "rank <tid>" (no sort
  // index), then instants on it (ts already since the origin).
  virtual void instantThread(int64_t pid, int64_t tid) = 0;
  virtual void instant(int64_t pid, const TraceInstant& e) = 0;
  // A complete slice of an analysis' track (process `pid`, thread s.tid; ts
  // since the origin): the threads come first (thread()), the slices of one
  // thread in ts order, never overlapping.
  virtual void slice(int64_t pid, const TraceSlice& s) = 0;
  // Hands everything buffered to the format's piece sink (the chunk ends).
  virtual void flush() = 0;
  // What encoding fixed (text repairs); the walk counts the rest.
  virtual Warnings takeWarnings() = 0;
  // The encode buffer, for reuse by the next chunk (after flush()).
  virtual std::string takeBuffer() = 0;
};

// Forwards every call to each of `sinks`, in order: one walk, several formats.
class TeeSink final : public TraceSink {
 public:
  explicit TeeSink(std::span<TraceSink* const> sinks) : sinks_(sinks) {}
  void process(int64_t pid, std::string_view name) override;
  void thread(int64_t pid, int64_t tid, std::string_view name, int64_t sortIndex) override;
  void span(int64_t rank, const Span& s, uint64_t tsNs) override;
  void rankRowsBegin(const OpStore& store) override;
  void opRowBegin(int64_t pid) override;
  void ops(int64_t pid, int64_t tid, std::span<const OpView> ops) override;
  void memorySample(int64_t pid, std::string_view counterName, uint64_t tsNs,
                    int64_t allocatedBytes) override;
  void rankRowsEnd() override;
  void dcgmSample(int64_t pid, std::string_view counterName, uint64_t tsNs,
                  const GpuTelemetrySample& s, SeriesRange range) override;
  void netSample(int64_t pid, std::string_view counterName, uint64_t tsNs,
                 const NetCounterSample& s) override;
  void instantThread(int64_t pid, int64_t tid) override;
  void instant(int64_t pid, const TraceInstant& e) override;
  void slice(int64_t pid, const TraceSlice& s) override;
  void flush() override;
  // Every sink's warnings, merged (a file's own come from its own sink).
  Warnings takeWarnings() override;
  std::string takeBuffer() override { return {}; }  // the sinks keep their own

 private:
  std::span<TraceSink* const> sinks_;
};

}  // namespace xstack
