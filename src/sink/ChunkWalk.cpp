#include "xstack/sink/ChunkWalk.h"

#include <string>

#include "xstack/sink/TraceLayout.h"

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

void ChunkWalk::opRow(int64_t pid, RowKind kind, size_t r, RowBuckets& b) {
  sink_.opRowBegin(pid);
  for (const RowBuckets::Tid& t : b.tidsInOutputOrder(r, origin_)) {
    sink_.thread(pid, t.tid, opRowThreadName(kind, t.tid));
    batch_.resize(t.ops.size());
    for (size_t i = 0; i < t.ops.size(); ++i) {
      const RowBuckets::Op& op = t.ops[i];
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
    sink_.ops(pid, t.tid, batch_);
  }
}

void ChunkWalk::markFlows(std::span<OpView> views, const RowBuckets& b) const {
  for (OpView& v : views) {
    if (v.extra == 0) continue;
    const RowBuckets::Extra& x = b.extras()[v.extra - 1];
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

void TeeSink::process(int64_t pid, std::string_view name) {
  for (TraceSink* s : sinks_) s->process(pid, name);
}
void TeeSink::thread(int64_t pid, int64_t tid, std::string_view name) {
  for (TraceSink* s : sinks_) s->thread(pid, tid, name);
}
void TeeSink::span(int64_t rank, const Span& sp, uint64_t tsNs) {
  for (TraceSink* s : sinks_) s->span(rank, sp, tsNs);
}
void TeeSink::rankRowsBegin(const RowBuckets& store) {
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
void TeeSink::flush() {
  for (TraceSink* s : sinks_) s->flush();
}
Warnings TeeSink::takeWarnings() {
  Warnings all;
  for (TraceSink* s : sinks_) all.merge(s->takeWarnings());
  return all;
}

}  // namespace xstack
