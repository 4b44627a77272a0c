// Renders the chunks of a trace as Perfetto packet sequences (the .pftrace
// output of `report --format perfetto`), walking the same data in the same
// order as JsonRenderer (the JSON writer): one PerfettoRenderer per chunk,
// one packet sequence per chunk (PerfettoSequenceEncoder). The JSON event
// for event mapping is docs/FORMAT.md section 7.
//
// Contract:
// - `sequenceId`: the chunk's index in its output file + 1 (from the data,
//   never the MPI rank, so the bytes do not depend on np).
// - Timestamps: ns since the origin, clamped at 0 exactly as the JSON's
//   (ts_json_us x 1000 == ts_ns); durations end - start in ns (0 when the
//   end is before the start, as the JSON).
// - Counters: one track per JSON series, named like Perfetto's JSON importer
//   (counterTrackName); memory in UNIT_SIZE_BYTES, DCGM rates "ratio" or
//   "bytes/s", net series unit_name = the series key.
// - Warnings: the same kinds as JsonRenderer (clamped ts, end before start,
//   text fixes; invalid UTF-8 counted per interned string).
#pragma once

#include <cstdint>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "xstack/core/TimeUnits.h"
#include "xstack/core/Warnings.h"
#include "xstack/event/CounterSamples.h"
#include "xstack/model/MarkerPairer.h"
#include "xstack/model/RankRows.h"
#include "xstack/model/TracePids.h"
#include "xstack/render/ChunkWalk.h"
#include "xstack/render/RowBuckets.h"
#include "xstack/render/TraceEvents.h"
#include "xstack/render/TraceSink.h"
#include "xstack/render/perfetto/PerfettoSequenceEncoder.h"

namespace xstack {

// Encodes what the walk over a chunk hands it as one packet sequence.
class PerfettoTraceSink final : public TraceSink {
 public:
  using PieceSink = perfetto::PerfettoSequenceEncoder::Sink;
  PerfettoTraceSink(uint32_t sequenceId, PieceSink pieces, size_t pieceBytes = 4 << 20,
                    std::string buffer = {})
      : enc_(sequenceId, std::move(pieces), pieceBytes, std::move(buffer)) {}

  void process(int64_t pid, std::string_view name) override { enc_.process(pid, name, pid); }
  // Pipeline threads come with their rankThreadTid, rows' with the walk's ids (RowThreadIds).
  void thread(int64_t pid, int64_t tid, std::string_view name, int64_t sortIndex) override {
    enc_.thread(pid, tid, name, sortIndex);
  }
  void span(int64_t rank, const Span& s, uint64_t tsNs) override;
  void rankRowsBegin(const OpStore& store) override;
  // Op name ids are the store's; the encoder's cache of them starts again per row.
  void opRowBegin(int64_t /*pid*/) override { enc_.resetOpNames(); }
  void ops(int64_t pid, int64_t tid, std::span<const OpView> ops) override;
  // Kept until rankRowsEnd: the sequence holds every row's descriptor before
  // the memory counters (the packet order of earlier versions, same bytes).
  void memorySample(int64_t pid, std::string_view counterName, uint64_t tsNs,
                    int64_t allocatedBytes) override;
  void rankRowsEnd() override;
  void dcgmSample(int64_t pid, std::string_view counterName, uint64_t tsNs,
                  const GpuTelemetrySample& s, SeriesRange range) override;
  void netSample(int64_t pid, std::string_view counterName, uint64_t tsNs,
                 const NetCounterSample& s) override;
  void instantThread(int64_t pid, int64_t tid) override;
  void instant(int64_t pid, const TraceInstant& e) override;
  void slice(int64_t pid, const TraceSlice& e) override;
  // The run's metadata packet: tool, time_origin_ns and `otherDataJson`
  // (the JSON's otherData: version, options, warnings, problems) as debug
  // annotations.
  void metadata(std::string_view otherDataJson, uint64_t originNs);
  // Ends the sequence and hands the rest to the piece sink (no calls after it).
  void flush() override;
  Warnings takeWarnings() override;  // string_invalid_utf8, per interned string
  std::string takeBuffer() override { return enc_.takeBuffer(); }

 private:
  perfetto::PerfettoSequenceEncoder enc_;
  const OpStore* store_ = nullptr;
  bool finished_ = false;
};

// The walk and the Perfetto sink together (one format).
class PerfettoRenderer {
 public:
  using Sink = PerfettoTraceSink::PieceSink;
  PerfettoRenderer(TimeOrigin origin, uint32_t sequenceId, Sink sink, size_t pieceBytes = 4 << 20,
                   std::string buffer = {})
      : pf_(sequenceId, std::move(sink), pieceBytes, std::move(buffer)), walk_(origin, pf_) {}

  void processMeta(int64_t pid, std::string_view name) { walk_.processMeta(pid, name); }
  void threadMeta(int64_t pid, int64_t tid, std::string_view name) {
    walk_.threadMeta(pid, tid, name);
  }
  void spans(int64_t rank, const std::vector<Span>& spans) { walk_.spans(rank, spans); }
  void rankRows(int64_t rank, int64_t pidBase, const std::vector<RowKey>& rows, RowBuckets& b) {
    walk_.rankRows(rank, pidBase, rows, b);
  }
  void dcgmCounters(int64_t pid, int64_t gpu, int64_t trainer,
                    const std::vector<GpuTelemetrySample>& samples) {
    walk_.dcgmCounters(pid, gpu, trainer, samples);
  }
  void netCounters(int64_t pid, int64_t trainer, const std::vector<NetCounterSample>& samples) {
    walk_.netCounters(pid, trainer, samples);
  }
  void extraRows(const TraceExtraRows& rows) { walk_.extraRows(rows); }
  void metadata(std::string_view otherDataJson, uint64_t originNs) {
    pf_.metadata(otherDataJson, originNs);
  }
  void flush() { pf_.flush(); }
  Warnings takeWarnings() {
    Warnings w = walk_.takeWarnings();
    w.merge(pf_.takeWarnings());
    return w;
  }
  std::string takeBuffer() { return pf_.takeBuffer(); }

 private:
  PerfettoTraceSink pf_;
  ChunkWalk walk_;
};

}  // namespace xstack
