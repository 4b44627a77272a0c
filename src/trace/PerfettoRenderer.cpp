#include "xstack/trace/PerfettoRenderer.h"

#include <algorithm>
#include <charconv>
#include <cmath>
#include <cstdio>

#include "xstack/model/MemoryTrack.h"
#include "xstack/trace/EscapedNameTable.h"
#include "xstack/trace/EventRenderer.h"
#include "xstack/trace/TraceLayout.h"

namespace xstack {

using perfetto::CounterUnit;
using perfetto::DebugArg;

PerfettoRenderer::PerfettoRenderer(TimeOrigin origin, uint32_t sequenceId, Sink sink,
                                   size_t pieceBytes, std::string buffer)
    : origin_(origin), enc_(sequenceId, std::move(sink), pieceBytes, std::move(buffer)) {}

uint64_t PerfettoRenderer::tsOf(uint64_t ns) {
  bool clamped = false;
  uint64_t t = origin_.since(ns, &clamped);
  if (clamped) warnings_.add(ns == 0 ? "timestamp_zero" : "timestamp_before_origin");
  return t;
}

void PerfettoRenderer::processMeta(int64_t pid, std::string_view name) {
  enc_.process(pid, name, pid);
}

void PerfettoRenderer::threadMeta(int64_t pid, int64_t tid, std::string_view name) {
  enc_.thread(pid, tid, name, tid);
}

void PerfettoRenderer::spans(int64_t rank, const std::vector<Span>& spans) {
  for (const Span& s : spans) {
    const bool fwd = s.phase == Phase::Forward;
    const DebugArg args[] = {DebugArg::ofInt("rank", rank), DebugArg::ofInt("step", s.step)};
    enc_.slice(kPipelinePid, rank, fwd ? "forward" : "backward", "pipeline", tsOf(s.startNs),
               s.endNs - s.startNs, args);
  }
}

void PerfettoRenderer::opRows(int64_t pid, RowKind kind, size_t r, RowBuckets& b) {
  const EscapedNameTable& names = b.names();
  enc_.resetOpNames();  // ids below are names.raw() ids of this RowBuckets
  for (const RowBuckets::Tid& t : b.tidsInOutputOrder(r, origin_)) {  // the JSON's order
    enc_.thread(pid, t.tid, opRowThreadName(kind, t.tid), t.tid);
    for (const RowBuckets::Op& op : t.ops) {
      perfetto::PerfettoSequenceEncoder::OpSlice s;
      s.nameId = op.nameId;
      s.name = names.raw(op.nameId);
      if (op.endNs < op.startNs)
        warnings_.add("event_end_before_start");
      else
        s.durNs = op.endNs - op.startNs;
      if (op.extra) {
        const RowBuckets::Extra& extra = b.extras()[op.extra - 1];
        s.memBytes = extra.memcopyBytes;  // 0: no mem_bytes annotation, as in the JSON
        s.detail = extra.detail;
      }
      s.tsNs = tsOf(op.startNs);
      enc_.opSlice(pid, t.tid, s);
    }
  }
}

void PerfettoRenderer::memoryRows(int64_t rank, int64_t pidBase, const std::vector<RowKey>& rows,
                                  RowBuckets& b) {
  (void)rank;
  Warnings counted;  // unknown place and never freed were counted in the summary
  const std::vector<MemoryTrack> tracks = buildMemoryTracks(b.memEvents(), counted);
  warnings_.add("memory_sum_overflow", counted.count("memory_sum_overflow"));
  for (size_t r = 0; r < rows.size(); ++r) {
    const RowKey& row = rows[r];
    if (row.kind <= RowKind::Gpu) continue;
    const int64_t pid = rankRowPid(pidBase, r);
    const auto place =
        static_cast<MemPlace>(static_cast<int>(row.kind) - static_cast<int>(RowKind::MemGpu));
    for (const MemoryTrack& t : tracks) {
      if (t.place != place || static_cast<int64_t>(t.device) != row.device) continue;
      for (const MemorySample& s : t.samples)
        enc_.counter(pid, "Memory", std::nullopt, "allocated_bytes", tsOf(s.ns),
                     static_cast<int64_t>(s.allocatedBytes),
                     CounterUnit{CounterUnit::Builtin::SizeBytes, {}});
    }
  }
}

void PerfettoRenderer::rankRows(int64_t rank, int64_t pidBase, const std::vector<RowKey>& rows,
                                RowBuckets& b) {
  // The JSON renders row after row; per row the process, then its events.
  // Memory rows come after the op rows (RowKind order), so rendering them
  // in a second pass keeps the JSON's order.
  bool anyMemory = false;
  for (size_t r = 0; r < rows.size(); ++r) {
    const int64_t pid = rankRowPid(pidBase, r);
    enc_.process(pid, rowProcessName(pid, rank, rows[r]), pid);
    if (rows[r].kind <= RowKind::Gpu)
      opRows(pid, rows[r].kind, r, b);
    else
      anyMemory = true;
  }
  if (anyMemory) memoryRows(rank, pidBase, rows, b);
}

namespace {

// DCGM series: NVLink/PCIe rates in bytes/s, the others ratios (0..1).
CounterUnit dcgmUnit(int series) {
  const std::string_view name = dcgmSeriesName(series);
  const bool rate = name == "NVLTX" || name == "NVLRX" || name == "PCITX" || name == "PCIRX";
  return CounterUnit{CounterUnit::Builtin::Unspecified, rate ? "bytes/s" : "ratio"};
}

}  // namespace

void PerfettoRenderer::dcgmCounters(int64_t pid, int64_t gpu, int64_t id,
                                    const std::vector<DcgmSample>& samples) {
  const SeriesRange r = dcgmSeriesOfPid(pid);
  const char* name = fixedProcessName(pid);
  for (uint32_t i : dcgmSamplesInOrder(samples, gpu, pid, origin_)) {
    const DcgmSample& s = samples[i];
    const uint64_t ts = tsOf(s.tsNs);
    for (int k = r.first; k < r.first + r.count; ++k) {
      if (!s.has(k)) continue;
      double v = s.values[static_cast<size_t>(k)];
      if (!std::isfinite(v)) v = 0;  // as the JSON writes it
      enc_.counter(pid, name, id, dcgmSeriesName(k), ts, v, dcgmUnit(k));
    }
  }
}

void PerfettoRenderer::netCounters(int64_t pid, int64_t id, const std::vector<NetSample>& samples) {
  const char* name = fixedProcessName(pid);
  for (uint32_t i : netSamplesInOrder(samples, pid, origin_)) {
    const NetSample& s = samples[i];
    const uint64_t ts = tsOf(s.tsNs);
    for (const auto& [key, text] : s.args) {
      // The value is validated JSON number text: integers stay integers.
      const CounterUnit unit{CounterUnit::Builtin::Unspecified, key};
      int64_t iv = 0;
      const char* end = text.data() + text.size();
      if (auto r = std::from_chars(text.data(), end, iv); r.ec == std::errc() && r.ptr == end) {
        enc_.counter(pid, name, id, key, ts, iv, unit);
        continue;
      }
      double dv = 0;
      std::from_chars(text.data(), end, dv);
      enc_.counter(pid, name, id, key, ts, dv, unit);
    }
  }
}

void PerfettoRenderer::extraRows(const TraceExtraRows& rows) {
  if (rows.empty()) return;
  enc_.process(rows.pid, rows.processName, rows.pid);
  int64_t lastTid = -1;
  bool anyTid = false;
  for (const TraceInstant& e : rows.instants) {
    if (!anyTid || e.tid != lastTid)
      enc_.thread(rows.pid, e.tid, "rank " + std::to_string(e.tid), e.tid);
    anyTid = true;
    lastTid = e.tid;
    char score[32];
    std::snprintf(score, sizeof score, "%.4f", e.score);
    const DebugArg args[] = {DebugArg::ofDouble("score", std::strtod(score, nullptr)),
                             DebugArg::ofString("evidence", e.evidence)};
    enc_.instant(rows.pid, e.tid, e.name, e.category, e.tsNs, args);
  }
}

void PerfettoRenderer::metadata(std::string_view otherDataJson, uint64_t originNs) {
  const DebugArg entries[] = {DebugArg::ofString("tool", "xstack"),
                              DebugArg::ofUint("time_origin_ns", originNs),
                              DebugArg::ofString("otherData", otherDataJson)};
  enc_.metadata(entries);
}

void PerfettoRenderer::flush() {
  if (finished_) return;
  finished_ = true;
  enc_.finish();
}

Warnings PerfettoRenderer::takeWarnings() {
  warnings_.add("string_invalid_utf8", enc_.textStats().invalidUtf8);
  Warnings w;
  std::swap(w, warnings_);
  return w;
}

}  // namespace xstack
