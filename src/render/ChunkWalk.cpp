#include "xstack/render/ChunkWalk.h"

#include <algorithm>
#include <optional>
#include <string>

#include "xstack/model/TraceLayout.h"

namespace xstack {

uint64_t ChunkWalk::tsOf(uint64_t ns) {
  bool clamped = false;
  const uint64_t t = origin_.since(ns, &clamped);
  if (clamped) warnings_.add(ns == 0 ? Warn::TimestampZero : Warn::TimestampBeforeOrigin);
  return t;
}

Warnings ChunkWalk::takeWarnings() {
  Warnings w;
  std::swap(w, warnings_);
  return w;
}

void ChunkWalk::spans(int64_t rank, const std::vector<Span>& spans) {
  for (const Span& s : spans) sink_.span(rank, s, tsOf(s.startNs));
}

void ChunkWalk::toViews(std::span<const RowBuckets::Op> ops, const OpStore& b) {
  batch_.resize(ops.size());
  for (size_t i = 0; i < ops.size(); ++i) {
    const RowBuckets::Op& op = ops[i];
    OpView& v = batch_[i];
    v.tsNs = tsOf(op.startNs);
    if (op.endNs < op.startNs) {
      warnings_.add(Warn::EventEndBeforeStart);
      v.durNs = 0;
    } else {
      v.durNs = op.endNs - op.startNs;
    }
    v.nameId = op.nameId;
    v.extra = op.extra;
    v.flowId = 0;
    v.flow = FlowEnd::None;
  }
  if (flows_) markFlows(batch_, b);
}

void ChunkWalk::opRow(int64_t pid, RowKind kind, size_t r, RowBuckets& b) {
  sink_.opRowBegin(pid);
  std::span<RowBuckets::Tid> tids = b.tidsInOutputOrder(r, origin_);
  // The ids written (TraceLayout.h): reserved input tids and overlap lanes take free ones.
  inputTids_.clear();
  for (const RowBuckets::Tid& t : tids) inputTids_.push_back(t.tid);
  threadIds_.reset(pid, inputTids_);
  for (const RowBuckets::Tid& t : tids) {
    toViews(t.ops, b);
    threadOps(pid, kind, t.tid);
  }
  writeLaneThreads(pid);
}

// The overlap lanes after the row's threads: the file stays in tid order.
void ChunkWalk::writeLaneThreads(int64_t pid) {
  for (const LaneThread& lane : laneThreads_) {
    sink_.thread(pid, lane.tid, lane.name, lane.sortIndex);
    sink_.ops(pid, lane.tid, std::span<const OpView>(laneOps_).subspan(lane.first, lane.count));
  }
  laneThreads_.clear();
  laneOps_.clear();
}

namespace {

uint64_t endOf(const OpView& v) {
  return v.durNs > UINT64_MAX - v.tsNs ? UINT64_MAX : v.tsNs + v.durNs;
}

// Perfetto's importers nest slices of one track in this order: by ts, and
// at one ts the longer first (it encloses the shorter).
void nestingOrder(std::vector<OpView>& ops) {
  auto before = [](const OpView& x, const OpView& y) {
    return x.tsNs != y.tsNs ? x.tsNs < y.tsNs : x.durNs > y.durNs;
  };
  if (!std::is_sorted(ops.begin(), ops.end(), before))
    std::stable_sort(ops.begin(), ops.end(), before);
}

}  // namespace

// One thread's ops (batch_), on the thread and, for those that overlap
// without nesting, kept for its overlap lanes (ids from threadIds_, written
// after the row's threads). The thread is written with threadIds_' id for
// `tid`, its name and sort index keep `tid`.
void ChunkWalk::threadOps(int64_t pid, RowKind kind, int64_t tid) {
  const std::string name = opRowThreadName(kind, tid);
  const int64_t outTid = threadIds_.outputTid(tid);
  sink_.thread(pid, outTid, name, tid);
  nestingOrder(batch_);
  if (nestsOnOneLane()) {
    sink_.ops(pid, outTid, batch_);
    return;
  }
  // The ops grouped by lane, in ts order within each (a counting sort):
  // lane 0 into laneBatch_, the others appended to laneOps_.
  const size_t lanes = assignLanes();
  std::vector<size_t> start(lanes + 1, 0);
  for (uint32_t lane : laneOf_) ++start[lane + 1];
  for (size_t lane = 0; lane < lanes; ++lane) start[lane + 1] += start[lane];
  const size_t base = laneOps_.size();
  laneBatch_.resize(start[1]);
  laneOps_.resize(base + batch_.size() - start[1]);
  std::vector<size_t> next(start.begin(), start.end() - 1);
  for (size_t i = 0; i < batch_.size(); ++i) {
    const size_t at = next[laneOf_[i]]++;
    (laneOf_[i] == 0 ? laneBatch_[at] : laneOps_[base + at - start[1]]) = batch_[i];
  }
  sink_.ops(pid, outTid, laneBatch_);
  for (size_t lane = 1; lane < lanes; ++lane) {
    laneThreads_.push_back({threadIds_.take(), tid,
                            name + " (overlap " + std::to_string(lane) + ")",
                            base + start[lane] - start[1], start[lane + 1] - start[lane]});
    warnings_.add(Warn::EventOverlapLane, start[lane + 1] - start[lane]);
  }
}

// True when batch_'s ops nest on one track (the common case, one stack).
bool ChunkWalk::nestsOnOneLane() {
  openEnds_.clear();
  for (const OpView& v : batch_) {
    while (!openEnds_.empty() && openEnds_.back() <= v.tsNs) openEnds_.pop_back();
    const uint64_t end = endOf(v);
    if (!openEnds_.empty() && end > openEnds_.back()) return false;
    openEnds_.push_back(end);
  }
  return true;
}

// The lane of each op of batch_ in laneOf_ (OverlapLanes' rule, the one the
// .pftrace encoder applies); returns the number of lanes.
size_t ChunkWalk::assignLanes() {
  OverlapLanes lanes;
  laneOf_.resize(batch_.size());
  for (size_t i = 0; i < batch_.size(); ++i) {
    while (std::optional<size_t> l = lanes.firstEndingBy(batch_[i].tsNs)) lanes.close(*l);
    const uint64_t end = endOf(batch_[i]);
    size_t lane = lanes.laneFor(end);
    if (lane == lanes.size()) lane = lanes.addLane();
    lanes.open(lane, end);
    laneOf_[i] = static_cast<uint32_t>(lane);
  }
  return lanes.size();
}

void ChunkWalk::markFlows(std::span<OpView> views, const OpStore& b) const {
  for (OpView& v : views) {
    if (v.extra == 0) continue;
    const OpExtra& x = b.extras()[v.extra - 1];
    if (x.flow == FlowEnd::None) continue;
    v.flowId = traceFlowId(flowRank_, x.correlation);
    if (v.flowId) v.flow = x.flow;
  }
}

void ChunkWalk::memoryRow(int64_t pid, const RowKey& row, RowBuckets& b) {
  if (!tracksBuilt_) {
    Warnings counted;  // unknown place and never freed were counted in the summary
    tracks_ = buildMemoryTracks(b.memEvents(), counted);
    warnings_.add(Warn::MemorySumOverflow, counted.count(Warn::MemorySumOverflow));
    tracksBuilt_ = true;
  }
  const auto place =
      static_cast<MemPlace>(static_cast<int>(row.kind) - static_cast<int>(RowKind::MemGpu));
  const std::string name = memoryCounterName(flowRank_, row);
  for (const MemoryTrack& t : tracks_) {
    if (t.place != place || static_cast<int64_t>(t.device) != row.device) continue;
    for (const MemorySample& s : t.samples)
      sink_.memorySample(pid, name, tsOf(s.ns), s.allocatedBytes);
  }
}

void ChunkWalk::rankRows(int64_t rank, int64_t pidBase, const std::vector<RowKey>& rows,
                         RowBuckets& b) {
  tracksBuilt_ = false;
  flowRank_ = rank;
  flows_ = b.hasCorrelations() && b.markFlowEnds(origin_);
  sink_.rankRowsBegin(b);
  for (size_t r = 0; r < rows.size(); ++r) {
    const int64_t pid = rankRowPid(pidBase, r);
    sink_.process(pid, rowProcessName(processOrder(pid), rank, rows[r]));
    if (rows[r].kind <= RowKind::Gpu)
      opRow(pid, rows[r].kind, r, b);
    else
      memoryRow(pid, rows[r], b);
  }
  sink_.rankRowsEnd();
  tracks_.clear();
  flows_ = false;
}

// --- Spilled rows: the same walk over ops read back in batches.

void ChunkWalk::rankRows(int64_t rank, int64_t pidBase, const std::vector<RowKey>& rows,
                         SpilledRows& b) {
  flowRank_ = rank;
  flows_ = b.hasFlows();
  sink_.rankRowsBegin(b);
  for (size_t r = 0; r < rows.size(); ++r) {
    const int64_t pid = rankRowPid(pidBase, r);
    sink_.process(pid, rowProcessName(processOrder(pid), rank, rows[r]));
    if (rows[r].kind <= RowKind::Gpu)
      spilledOpRow(pid, rows[r].kind, r, b);
    else
      spilledMemoryRow(pid, rows[r], b);
  }
  sink_.rankRowsEnd();
  flows_ = false;
}

void ChunkWalk::spilledOpRow(int64_t pid, RowKind kind, size_t r, SpilledRows& b) {
  sink_.opRowBegin(pid);
  b.tidsOf(r, inputTids_);
  threadIds_.reset(pid, inputTids_);
  size_t row = 0;
  int64_t tid = 0;
  while (b.peek(row, tid) && row == r) spilledThread(pid, kind, r, tid, b);
  if (laneThreads_.empty()) return;
  b.swapExtras(laneExtras_);  // the lanes' ops refer to their copied extras
  writeLaneThreads(pid);
  b.swapExtras(laneExtras_);
  laneExtras_.clear();
  laneDetails_.clear();
}

// One thread's ops, batch by batch: each on the lowest overlap lane where it
// nests (OverlapLanes, the rule assignLanes() applies to a whole thread, so
// the lanes are the same), lane 0's ops handed to the sink batch by batch,
// the other lanes' held for after the row's threads.
void ChunkWalk::spilledThread(int64_t pid, RowKind kind, size_t r, int64_t tid, SpilledRows& b) {
  constexpr size_t kBatchOps = 16384;
  const std::string name = opRowThreadName(kind, tid);
  const int64_t outTid = threadIds_.outputTid(tid);
  sink_.thread(pid, outTid, name, tid);
  OverlapLanes lanes;
  spilledLanes_.clear();
  while (b.nextBatch(r, tid, spilledOps_, kBatchOps) > 0) {
    toViews(spilledOps_, b);
    laneBatch_.clear();
    for (const OpView& v : batch_) {
      while (std::optional<size_t> l = lanes.firstEndingBy(v.tsNs)) lanes.close(*l);
      const uint64_t end = endOf(v);
      size_t lane = lanes.laneFor(end);
      if (lane == lanes.size()) lane = lanes.addLane();
      lanes.open(lane, end);
      if (lane == 0)
        laneBatch_.push_back(v);
      else
        keepLaneOp(lane, v, b);
    }
    sink_.ops(pid, outTid, laneBatch_);
  }
  for (size_t lane = 1; lane < spilledLanes_.size(); ++lane) {
    std::vector<OpView>& ops = spilledLanes_[lane];
    laneThreads_.push_back({threadIds_.take(), tid,
                            name + " (overlap " + std::to_string(lane) + ")", laneOps_.size(),
                            ops.size()});
    warnings_.add(Warn::EventOverlapLane, ops.size());
    laneOps_.insert(laneOps_.end(), ops.begin(), ops.end());
  }
}

// An op of overlap lane `lane` (>= 1), held with a copy of its extra.
void ChunkWalk::keepLaneOp(size_t lane, const OpView& v, const OpStore& b) {
  if (spilledLanes_.size() <= lane) spilledLanes_.resize(lane + 1);
  OpView kept = v;
  if (v.extra) {
    OpExtra x = b.extras()[v.extra - 1];
    if (!x.detail.empty()) x.detail = laneDetails_.emplace_back(x.detail);
    laneExtras_.push_back(x);
    kept.extra = static_cast<uint32_t>(laneExtras_.size());
  }
  spilledLanes_[lane].push_back(kept);
}

void ChunkWalk::spilledMemoryRow(int64_t pid, const RowKey& row, SpilledRows& b) {
  const auto place =
      static_cast<MemPlace>(static_cast<int>(row.kind) - static_cast<int>(RowKind::MemGpu));
  const std::string name = memoryCounterName(flowRank_, row);
  bool any = false;
  uint64_t atNs = 0;
  MemoryInUse sum;
  // Every change at one ns is one sample (buildMemoryTracks).
  b.forEachMemoryChange(place, static_cast<uint64_t>(row.device), [&](uint64_t ns, int64_t delta) {
    if (any && ns != atNs) sink_.memorySample(pid, name, tsOf(atNs), sum.bytes());
    any = true;
    atNs = ns;
    if (sum.add(delta)) warnings_.add(Warn::MemorySumOverflow);
  });
  if (any) sink_.memorySample(pid, name, tsOf(atNs), sum.bytes());
}

void ChunkWalk::dcgmCounters(int64_t pid, int64_t gpu, int64_t trainer,
                             const std::vector<GpuTelemetrySample>& samples) {
  const SeriesRange range = dcgmSeriesOfPid(pid);
  const std::string name = dcgmCounterName(trainer, gpu);
  for (uint32_t i : dcgmSamplesInOrder(samples, gpu, pid, origin_))
    sink_.dcgmSample(pid, name, tsOf(samples[i].tsNs), samples[i], range);
}

void ChunkWalk::netCounters(int64_t pid, int64_t trainer,
                            const std::vector<NetCounterSample>& samples) {
  const std::string name = netCounterName(trainer, pid);
  for (uint32_t i : netSamplesInOrder(samples, pid, origin_))
    sink_.netSample(pid, name, tsOf(samples[i].tsNs), samples[i]);
}

void ChunkWalk::extraRows(const TraceExtraRows& rows) {
  if (rows.empty()) return;
  sink_.process(rows.pid, rows.processName);
  bool anyTid = false;
  int64_t lastTid = 0;
  for (const TraceInstant& e : rows.instants) {
    if (!anyTid || e.tid != lastTid) sink_.instantThread(rows.pid, e.tid);
    anyTid = true;
    lastTid = e.tid;
    sink_.instant(rows.pid, e);
  }
}

void ChunkWalk::AnalysisTracks::track(const TraceTrack& t) {
  walk_.sink_.thread(pid_, t.tid, t.name, t.sortIndex);
}

void ChunkWalk::AnalysisTracks::slice(TraceSlice& s) {
  const uint64_t endNs = s.tsNs + s.durNs;
  s.tsNs = walk_.tsOf(s.tsNs);
  const uint64_t end = walk_.origin_.since(endNs);  // ends before the origin: 0
  s.durNs = end > s.tsNs ? end - s.tsNs : 0;
  walk_.sink_.slice(pid_, s);
}

void TeeSink::process(int64_t pid, std::string_view name) {
  for (TraceSink* s : sinks_) s->process(pid, name);
}
void TeeSink::thread(int64_t pid, int64_t tid, std::string_view name, int64_t sortIndex) {
  for (TraceSink* s : sinks_) s->thread(pid, tid, name, sortIndex);
}
void TeeSink::span(int64_t rank, const Span& sp, uint64_t tsNs) {
  for (TraceSink* s : sinks_) s->span(rank, sp, tsNs);
}
void TeeSink::rankRowsBegin(const OpStore& store) {
  for (TraceSink* s : sinks_) s->rankRowsBegin(store);
}
void TeeSink::opRowBegin(int64_t pid) {
  for (TraceSink* s : sinks_) s->opRowBegin(pid);
}
void TeeSink::ops(int64_t pid, int64_t tid, std::span<const OpView> ops) {
  for (TraceSink* s : sinks_) s->ops(pid, tid, ops);
}
void TeeSink::memorySample(int64_t pid, std::string_view counterName, uint64_t tsNs,
                           int64_t allocatedBytes) {
  for (TraceSink* s : sinks_) s->memorySample(pid, counterName, tsNs, allocatedBytes);
}
void TeeSink::rankRowsEnd() {
  for (TraceSink* s : sinks_) s->rankRowsEnd();
}
void TeeSink::dcgmSample(int64_t pid, std::string_view counterName, uint64_t tsNs,
                         const GpuTelemetrySample& d, SeriesRange range) {
  for (TraceSink* s : sinks_) s->dcgmSample(pid, counterName, tsNs, d, range);
}
void TeeSink::netSample(int64_t pid, std::string_view counterName, uint64_t tsNs,
                        const NetCounterSample& n) {
  for (TraceSink* s : sinks_) s->netSample(pid, counterName, tsNs, n);
}
void TeeSink::instantThread(int64_t pid, int64_t tid) {
  for (TraceSink* s : sinks_) s->instantThread(pid, tid);
}
void TeeSink::instant(int64_t pid, const TraceInstant& e) {
  for (TraceSink* s : sinks_) s->instant(pid, e);
}
void TeeSink::slice(int64_t pid, const TraceSlice& e) {
  for (TraceSink* s : sinks_) s->slice(pid, e);
}
void TeeSink::flush() {
  for (TraceSink* s : sinks_) s->flush();
}
Warnings TeeSink::takeWarnings() {
  Warnings all;
  for (TraceSink* s : sinks_) all.merge(s->takeWarnings());
  return all;
}

}  // namespace xstack
