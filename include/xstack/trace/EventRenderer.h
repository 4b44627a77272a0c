// Renders trace events as JSON text into a buffer that is handed to a sink
// whenever it grows past `pieceBytes` (the sink writes it to the file on
// rank 0, or sends it to rank 0 elsewhere). Every event is written as
// ",\n{...}"; TraceFileWriter drops the comma before the first event.
// Timestamps: input ns, output µs since the time origin (exact text, never
// negative: earlier times are clamped to 0 and counted).
#pragma once

#include <cstdint>
#include <functional>
#include <string>
#include <string_view>
#include <vector>

#include "xstack/core/TimeUnits.h"
#include "xstack/core/Warnings.h"
#include "xstack/event/CounterSamples.h"
#include "xstack/event/Events.h"
#include "xstack/model/MarkerPairer.h"
#include "xstack/model/RankRows.h"
#include "xstack/trace/JsonText.h"
#include "xstack/trace/RowBuckets.h"
#include "xstack/trace/TraceEvents.h"

namespace xstack {

class EventRenderer {
 public:
  // Receives each piece of text. It may take the string's contents (swap in
  // another buffer, ideally a recycled one with capacity); the renderer
  // clears the string afterwards and goes on with it. A callable taking a
  // std::string_view works too.
  using Sink = std::function<void(std::string&)>;
  // `buffer`: memory to render into (a recycled piece buffer), optional.
  EventRenderer(TimeOrigin origin, Sink sink, size_t pieceBytes = 4 << 20, std::string buffer = {});

  void processMeta(int64_t pid, std::string_view name);
  void threadMeta(int64_t pid, int64_t tid, std::string_view name);
  // One rank's forward/backward spans on pid 0, tid = rank.
  void spans(int64_t rank, const std::vector<Span>& spans);
  // All rows of one displayed rank: `rows` as computed by rankRows(events), their
  // pids pidBase, pidBase+1, ... Each row: process metadata, then its events
  // ordered by (tid, ts, input order).
  void rankRows(int64_t rank, int64_t pidBase, const std::vector<RowKey>& rows,
                const EventList& events);
  // The same from buckets filled while the profile was decoded (sorts them).
  void rankRows(int64_t rank, int64_t pidBase, const std::vector<RowKey>& rows,
                RowBuckets& buckets);
  // DCGM counters of process `pid` (1..5) for GPU `gpu`, id = trainer-in-group.
  void dcgmCounters(int64_t pid, int64_t gpu, int64_t id,
                    const std::vector<GpuTelemetrySample>& samples);
  // Net counters for pid 6 (tx) or 7 (rx), id = trainer-in-group.
  void netCounters(int64_t pid, int64_t id, const std::vector<NetCounterSample>& samples);

  // Rows appended after a file's last chunk (the findings): process_name and
  // process_sort_index, per tid a thread_name "rank <tid>", the instants.
  void extraRows(const TraceExtraRows& rows);

  // Hands any buffered text to the sink.
  void flush();
  // Warnings found while rendering (clamped timestamps, text fixes).
  Warnings takeWarnings();
  // The render buffer, for reuse (after flush()).
  std::string takeBuffer() { return std::move(buf_); }

 private:
  // ns as µs since the origin (clamped at 0 and counted); 24 bytes of room.
  char* writeTs(char* p, uint64_t ns);
  void appendTs(uint64_t ns);
  void endEvent();
  // `escapedName`: the name as appendJsonString writes it; `nameStats`: what
  // escaping it fixed (counted per event); `extra`: the event, when it has
  // mem_bytes or detail_info.
  void opEvent(int64_t pid, int64_t tid, const RowBuckets::Op& op, std::string_view escapedName,
               const JsonTextStats& nameStats, const RowBuckets::Extra* extra);

  TimeOrigin origin_;
  Sink sink_;
  size_t pieceBytes_;
  std::string buf_;
  JsonTextStats text_;
  Warnings warnings_;
};

// thread_name of an op row's tid (both formats): "stream <tid>" on a GPU
// row (the tid is the CUDA stream), "thread <tid>" on CPU rows.
std::string opRowThreadName(RowKind kind, int64_t tid);

// Events a chunk will hold, computed without rendering (used to decide which
// processes exist before anything is written).
uint64_t dcgmCounterCount(int64_t pid, int64_t gpu, const std::vector<GpuTelemetrySample>& samples);
uint64_t netCounterCount(int64_t pid, const std::vector<NetCounterSample>& samples);

}  // namespace xstack
