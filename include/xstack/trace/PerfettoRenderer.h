// Renders the chunks of a trace as Perfetto packet sequences (the .pftrace
// output of `report --format perfetto`), walking the same data in the same
// order as EventRenderer (the JSON writer): one PerfettoRenderer per chunk,
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
// - Warnings: the same kinds as EventRenderer (clamped ts, end before start,
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
#include "xstack/trace/RowBuckets.h"
#include "xstack/trace/TraceEvents.h"
#include "xstack/trace/perfetto/PerfettoSequenceEncoder.h"

namespace xstack {

class PerfettoRenderer {
 public:
  using Sink = perfetto::PerfettoSequenceEncoder::Sink;
  PerfettoRenderer(TimeOrigin origin, uint32_t sequenceId, Sink sink, size_t pieceBytes = 4 << 20,
                   std::string buffer = {});

  void processMeta(int64_t pid, std::string_view name);
  void threadMeta(int64_t pid, int64_t tid, std::string_view name);
  void spans(int64_t rank, const std::vector<Span>& spans);
  void rankRows(int64_t rank, int64_t pidBase, const std::vector<RowKey>& rows,
                RowBuckets& buckets);
  void dcgmCounters(int64_t pid, int64_t gpu, int64_t id,
                    const std::vector<GpuTelemetrySample>& samples);
  void netCounters(int64_t pid, int64_t id, const std::vector<NetCounterSample>& samples);
  void extraRows(const TraceExtraRows& rows);
  // The run's metadata packet: tool, time_origin_ns and `otherDataJson`
  // (the JSON's otherData: version, options, warnings, problems) as debug
  // annotations.
  void metadata(std::string_view otherDataJson, uint64_t originNs);

  // Ends the sequence and hands the rest to the sink (no calls after it).
  void flush();
  Warnings takeWarnings();
  std::string takeBuffer() { return enc_.takeBuffer(); }

 private:
  uint64_t tsOf(uint64_t ns);
  void opRows(int64_t pid, RowKind kind, size_t r, RowBuckets& b);
  void memoryRows(int64_t rank, int64_t pidBase, const std::vector<RowKey>& rows, RowBuckets& b);

  TimeOrigin origin_;
  perfetto::PerfettoSequenceEncoder enc_;
  Warnings warnings_;
  bool finished_ = false;
};

}  // namespace xstack
