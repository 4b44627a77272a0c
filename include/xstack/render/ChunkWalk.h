// The one walk over what a chunk shows (the pipeline spans of a rank, the
// rows of a displayed rank, DCGM and net counters, the findings rows), in
// the order every trace format writes it (docs/FORMAT.md section 3, decision
// 6 of docs/DESIGN.md), handing each event to a TraceSink. It clamps times to
// the origin (counted: timestamp_zero, timestamp_before_origin), gives events
// that end before they start duration 0 (event_end_before_start) and builds
// the memory tracks (memory_sum_overflow): each counted once per event,
// whatever number of formats the sink feeds.
#pragma once

#include <cstdint>
#include <deque>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "xstack/core/TimeUnits.h"
#include "xstack/core/Warnings.h"
#include "xstack/model/MemoryTrack.h"
#include "xstack/model/TraceLayout.h"
#include "xstack/render/OverlapLanes.h"
#include "xstack/render/SpilledRows.h"
#include "xstack/render/TraceSink.h"

namespace xstack {

class ChunkWalk {
 public:
  ChunkWalk(TimeOrigin origin, TraceSink& sink) : origin_(origin), sink_(sink) {}

  void processMeta(int64_t pid, std::string_view name) { sink_.process(pid, name); }
  void threadMeta(int64_t pid, int64_t tid, std::string_view name) {
    sink_.thread(pid, tid, name, tid);
  }
  // One rank's forward/backward spans on pid 0, tid = rank.
  void spans(int64_t rank, const std::vector<Span>& spans);
  // All rows of one displayed rank, pids pidBase, pidBase+1, ...: per row its
  // process, then its threads (by tid) and their ops (by ts; at one ts the
  // longer first, ties in file order), or its memory samples. Ops of a thread
  // that overlap without nesting go to the thread's overlap lanes
  // (OverlapLanes): threads "<thread name> (overlap N)", tids after the row's
  // largest, sort index the thread's tid; counted as event_overlap_lane. A tid
  // Perfetto's importers reserve (0, the row's pid, ...) is written with a free
  // id (RowThreadIds), its name keeping the input tid. Ops that end a flow
  // (RowBuckets:: markFlowEnds) carry its id (traceFlowId(rank, correlation)) in OpView.
  void rankRows(int64_t rank, int64_t pidBase, const std::vector<RowKey>& rows, RowBuckets& b);
  // The same rows of a rank too large to hold (SpilledRows, after its
  // finish()): read back in batches of ops, the same events in the same
  // order. Ops on overlap lanes are held until their row ends.
  void rankRows(int64_t rank, int64_t pidBase, const std::vector<RowKey>& rows, SpilledRows& b);
  // DCGM counters of process `pid` (2..6) for GPU `gpu` of trainer `trainer` (T).
  void dcgmCounters(int64_t pid, int64_t gpu, int64_t trainer,
                    const std::vector<GpuTelemetrySample>& samples);
  // Net counters of trainer `trainer` (T) on process kNetTxPid or kNetRxPid.
  void netCounters(int64_t pid, int64_t trainer, const std::vector<NetCounterSample>& samples);
  // The findings: a process, per tid a thread "rank <tid>", the instants
  // (ordered by tid, then ts).
  void extraRows(const TraceExtraRows& rows);
  // An analysis' track group on process `pid`, as its maker hands it out:
  // its threads, then its slices (ts clamped to the origin as every event's;
  // a slice keeps its end; a slice's times become ns since the origin).
  class AnalysisTracks final : public TrackRowSink {
   public:
    AnalysisTracks(ChunkWalk& walk, int64_t pid) : walk_(walk), pid_(pid) {}
    void track(const TraceTrack& t) override;
    void slice(TraceSlice& s) override;

   private:
    ChunkWalk& walk_;
    int64_t pid_;
  };

  // Counts `n` of `kind` among the walk's warnings (what a chunk's source
  // found while making its rows).
  void count(Warn kind, uint64_t n) { warnings_.add(kind, n); }
  // What the walk counted (not the sinks' own warnings).
  Warnings takeWarnings();

 private:
  uint64_t tsOf(uint64_t ns);
  void opRow(int64_t pid, RowKind kind, size_t r, RowBuckets& b);
  // `ops` as batch_'s views: clamped ts, durations, flow ends.
  void toViews(std::span<const RowBuckets::Op> ops, const OpStore& b);
  void markFlows(std::span<OpView> views, const OpStore& b) const;
  void spilledOpRow(int64_t pid, RowKind kind, size_t r, SpilledRows& b);
  void spilledThread(int64_t pid, RowKind kind, size_t r, int64_t tid, SpilledRows& b);
  void keepLaneOp(size_t lane, const OpView& v, const OpStore& b);
  void writeLaneThreads(int64_t pid);
  void spilledMemoryRow(int64_t pid, const RowKey& row, SpilledRows& b);
  void threadOps(int64_t pid, RowKind kind, int64_t tid);
  bool nestsOnOneLane();
  size_t assignLanes();
  void memoryRow(int64_t pid, const RowKey& row, RowBuckets& b);

  TimeOrigin origin_;
  TraceSink& sink_;
  Warnings warnings_;
  std::vector<OpView> batch_;      // one thread's ops, reused
  std::vector<OpView> laneBatch_;  // the ops left on a thread with overlap lanes, reused
  // Overlap lanes of the row being walked, written after its threads.
  struct LaneThread {
    int64_t tid = 0, sortIndex = 0;
    std::string name;
    size_t first = 0, count = 0;  // its ops in laneOps_
  };
  std::vector<LaneThread> laneThreads_;
  std::vector<OpView> laneOps_;
  std::vector<int64_t> inputTids_;  // the row's input tids, reused
  RowThreadIds threadIds_;          // the ids the row's threads and lanes are written with
  // Spilled rows: the batch read back, and the overlap lanes' ops held to
  // the end of the row, per lane, with copies of their extras.
  std::vector<RowBuckets::Op> spilledOps_;
  std::vector<std::vector<OpView>> spilledLanes_;
  std::vector<OpExtra> laneExtras_;
  std::deque<std::string> laneDetails_;
  std::vector<uint64_t> openEnds_;   // nestsOnOneLane's stack of end ns
  std::vector<uint32_t> laneOf_;     // per op of batch_: its lane (0: the thread)
  std::vector<MemoryTrack> tracks_;  // of the rank being walked
  bool tracksBuilt_ = false;
  int64_t flowRank_ = 0;  // the rank being walked, when it has flows
  bool flows_ = false;    // the rank being walked has flows
};

}  // namespace xstack
