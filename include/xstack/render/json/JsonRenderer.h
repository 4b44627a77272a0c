// The Chrome JSON trace format: JsonTraceSink encodes what the walk over a
// chunk (ChunkWalk) hands it as JSON text, into a buffer that is handed to a
// piece sink whenever it grows past `pieceBytes` (the piece sink writes it to
// the file on rank 0, or sends it to rank 0 elsewhere). Every event is
// written as ",\n{...}"; TraceFileWriter drops the comma before the first
// event. Times arrive in ns since the origin and are written as exact µs text.
// JsonRenderer is the walk and the JSON sink together (one format).
#pragma once

#include <cstdint>
#include <functional>
#include <string>
#include <string_view>
#include <vector>

#include "xstack/core/TextWriting.h"
#include "xstack/core/TimeUnits.h"
#include "xstack/core/Warnings.h"
#include "xstack/event/CounterSamples.h"
#include "xstack/event/Events.h"
#include "xstack/model/MarkerPairer.h"
#include "xstack/model/RankRows.h"
#include "xstack/render/ChunkWalk.h"
#include "xstack/render/RowBuckets.h"
#include "xstack/render/TraceEvents.h"
#include "xstack/render/TraceSink.h"
#include "xstack/render/json/JsonNameCache.h"

namespace xstack {

class JsonTraceSink final : public TraceSink {
 public:
  // Receives each piece of text. It may take the string's contents (swap in
  // another buffer, ideally a recycled one with capacity); the sink clears
  // the string afterwards and goes on with it. A callable taking a
  // std::string_view works too.
  using PieceSink = std::function<void(std::string&)>;
  // `buffer`: memory to render into (a recycled piece buffer), optional.
  JsonTraceSink(PieceSink pieces, size_t pieceBytes = 4 << 20, std::string buffer = {});

  void process(int64_t pid, std::string_view name) override;
  void thread(int64_t pid, int64_t tid, std::string_view name, int64_t sortIndex) override;
  void span(int64_t rank, const Span& s, uint64_t tsNs) override;
  void rankRowsBegin(const OpStore& store) override {
    store_ = &store;
    names_.reset(store.names());
  }
  void opRowBegin(int64_t /*pid*/) override {}
  void ops(int64_t pid, int64_t tid, std::span<const OpView> ops) override;
  void memorySample(int64_t pid, std::string_view counterName, uint64_t tsNs,
                    int64_t allocatedBytes) override;
  void rankRowsEnd() override { store_ = nullptr; }
  void dcgmSample(int64_t pid, std::string_view counterName, uint64_t tsNs,
                  const GpuTelemetrySample& s, SeriesRange range) override;
  void netSample(int64_t pid, std::string_view counterName, uint64_t tsNs,
                 const NetCounterSample& s) override;
  void instantThread(int64_t pid, int64_t tid) override;
  void instant(int64_t pid, const TraceInstant& e) override;
  void slice(int64_t pid, const TraceSlice& e) override;
  // Hands any buffered text to the piece sink.
  void flush() override;
  // Text repairs (string_invalid_utf8, string_control_char), per event.
  Warnings takeWarnings() override;
  // The render buffer, for reuse (after flush()).
  std::string takeBuffer() override { return std::move(buf_); }

 private:
  void endEvent();
  // `open` (e.g. `,\n{"ph":"X","cat":`), then the category, name, pid, tid and ts (us).
  void eventHead(std::string_view open, std::string_view category, std::string_view name,
                 int64_t pid, int64_t tid, uint64_t tsNs);
  // `{"ph":"C","name":<counterName>,"pid":<pid>,"ts":<ts>` (the args follow).
  void counterHead(int64_t pid, std::string_view counterName, uint64_t tsNs);
  void opEvent(int64_t pid, int64_t tid, const OpView& op);
  // One `"key":value` of a slice's args, after a comma when `comma` (fast
  // for a number under a key that needs no escaping).
  void sliceArg(const TraceArg& a, bool comma);

  PieceSink pieces_;
  size_t pieceBytes_;
  std::string buf_;
  JsonTextStats text_;
  const OpStore* store_ = nullptr;  // between rankRowsBegin and rankRowsEnd
  JsonNameCache names_;             // the store's names as JSON text
};

class JsonRenderer {
 public:
  using Sink = JsonTraceSink::PieceSink;
  JsonRenderer(TimeOrigin origin, Sink sink, size_t pieceBytes = 4 << 20, std::string buffer = {})
      : json_(std::move(sink), pieceBytes, std::move(buffer)), walk_(origin, json_) {}

  void processMeta(int64_t pid, std::string_view name) { walk_.processMeta(pid, name); }
  void threadMeta(int64_t pid, int64_t tid, std::string_view name) {
    walk_.threadMeta(pid, tid, name);
  }
  void spans(int64_t rank, const std::vector<Span>& spans) { walk_.spans(rank, spans); }
  // All rows of one displayed rank from a decoded profile (fills buckets first).
  void rankRows(int64_t rank, int64_t pidBase, const std::vector<RowKey>& rows,
                const EventList& events);
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
  void flush() { json_.flush(); }
  // Warnings found while rendering (clamped timestamps, text fixes).
  Warnings takeWarnings();
  std::string takeBuffer() { return json_.takeBuffer(); }

 private:
  JsonTraceSink json_;
  ChunkWalk walk_;
};

}  // namespace xstack
