// Reader of one Chrome-trace JSON file (Kineto, Paddle's new profiler): a
// streamed walk of the top-level object that hands every traceEvents element
// to a callback, in file order, as a normalised TraceEvent (EventParser), and
// keeps the top-level keys a reader needs (TraceInfo). Never holds the
// document: memory is bounded by the largest single event (ReadOptions).
//
// Top-level keys may come in any order: distributedInfo and
// baseTimeNanoseconds may follow traceEvents. Events therefore carry ts as
// written (relative to the base when there is one) and TraceInfo reports the
// base at the end; a caller that needs rank or base before the events runs
// readTraceHeader first (the same walk, traceEvents skipped by the bracket
// scan without parsing).
#pragma once

#include <cstdint>
#include <functional>
#include <optional>
#include <string>
#include <string_view>

#include "xstack/source/chrome/ReadError.h"
#include "xstack/source/chrome/TraceEvent.h"

namespace xstack::chrome {

struct ReadOptions {
  uint64_t maxEventBytes = 64ull << 20;  // one event (or kept top-level value) at most
  uint64_t readBytes = 256ull << 10;     // one read(2) / one inflate output piece
  bool stripDurationSuffix = true;       // Paddle's "name[1.2 ms]"
};

struct TraceInfo {
  bool hasTraceEvents = false;
  std::optional<int64_t> rank;         // distributedInfo.rank, when a rank (an integer >= 0)
  // distributedInfo.rank that is no rank (-1, 1.5, "x", null), as "rank -1 is not a rank"
  // (rank is then nullopt); empty when absent or usable.
  std::string rankProblem;
  std::optional<int64_t> worldSize;    // distributedInfo.world_size
  // baseTimeNanoseconds, the first usable one: an integer count of ns >= 0, written as a
  // number that is an exact integer (N, N.0, Ne3) or a string of digits.
  std::optional<int64_t> baseTimeNs;
  bool hasBaseTimeKey = false;  // the key was there, usable or not
  // Why the file's base cannot be used ("baseTimeNanoseconds 12.5 is not an integer count
  // of ns", two different values); empty when it can (or is absent). First problem only.
  std::string baseTimeProblem;
  std::string schemaVersion;           // its JSON text decoded ("1", "1.0.1"); empty when absent
  bool schemaVersionIsString = false;  // "1.0.1" (Paddle) rather than 1 (Kineto)
  bool hasSpanIndx = false;            // Paddle's top-level "span_indx"
  // deviceProperties: the GPUs the profiled process saw (one element each,
  // 8 on an 8-GPU host unless CUDA_VISIBLE_DEVICES narrows it); 0 = absent.
  int64_t visibleGpus = 0;
  bool headerAfterEvents = false;  // distributedInfo or baseTimeNanoseconds after traceEvents
  uint64_t events = 0;             // elements handed to the callback
  uint64_t emptyObjects = 0;       // `{}` elements (Paddle's trailing one), skipped
  uint64_t textBytes = 0;          // JSON text read (after gunzip)
  uint64_t textDigest = 0;         // of those bytes (core/FileIdentity.h ContentDigest)
  uint64_t bufferBytes = 0;        // the tokenizer's buffer at its largest (the memory bound)
  bool gzip = false;
};

struct ReadResult {
  TraceInfo info;  // what was read, also when error is set
  std::optional<ReadError> error;
  bool ok() const { return !error.has_value(); }
};

using EventCallback = std::function<void(const TraceEvent&)>;

// baseTimeNanoseconds' value from its JSON text: an integer count of ns >= 0, written as
// a number that is an exact integer (1711964646000000000, 1711964646000000000.0,
// 1.711964646e18) or a string of digits ("1711964646000000000"). nullopt for anything
// else (12.5, 1e30, "abc", "0x1f", -5, null).
std::optional<int64_t> baseTimeFromText(std::string_view raw, JsonKind kind);

ReadResult readTrace(const std::string& path, const EventCallback& onEvent,
                     const ReadOptions& options = {});
// The same over bytes in memory (plain or gzip); `name` names them in errors.
ReadResult readTraceBytes(std::string_view bytes, const std::string& name,
                          const EventCallback& onEvent, const ReadOptions& options = {});
// The top-level keys only (TraceInfo without events): traceEvents skipped.
ReadResult readTraceHeader(const std::string& path, const ReadOptions& options = {});
// The top-level keys before traceEvents only: the walk stops at its '['
// (info.hasTraceEvents true, no error). A document that ends without
// traceEvents, or is not a JSON object, is an error (NoTraceEvents,
// NotTraceObject, NotJson...). Reads only the bytes up to the '['.
ReadResult readTraceHead(const std::string& path, const ReadOptions& options = {});

enum class SniffResult : uint8_t {
  Trace,     // a JSON object whose traceEvents key (holding '[') was reached
  NotTrace,  // not JSON, not an object, or an object that ends without traceEvents
  Unknown,   // the head ended first (e.g. megabytes of distributedInfo): read more
};
// From the first bytes of a file (plain or gzip; a few KB suffice for
// Kineto and Paddle, whose traceEvents follow short headers).
SniffResult sniffTrace(std::string_view head);
// sniffTrace on the first headBytes of a file (NotTrace when it cannot be read).
SniffResult sniffTraceFile(const std::string& path, uint64_t headBytes = 64ull << 10);

}  // namespace xstack::chrome
