// Format-neutral events that come from outside the renderers (the analyses'
// findings and tracks) and that every trace format writes: JsonRenderer as
// JSON "M", "i" and "X" events, PerfettoRenderer as track descriptors,
// TYPE_INSTANT and SLICE_BEGIN/END.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace xstack {

// An instant event (JSON "i", thread scope) in a format-neutral form: the
// analysis' findings, rendered by each format's writer.
struct TraceInstant {
  int64_t tid = 0;
  std::string name;
  std::string category;
  uint64_t tsNs = 0;  // since the time origin
  double score = 0;   // args.score (JSON: 4 decimals)
  std::string evidence;
};

// Extra rows appended after a file's last chunk: one process `pid` named
// `processName`, its threads ("rank <tid>"), their instants (ordered by tid,
// then ts).
struct TraceExtraRows {
  int64_t pid = 0;
  std::string processName;
  std::vector<TraceInstant> instants;
  bool empty() const { return instants.empty(); }
};

// One argument of a TraceSlice (JSON args entry, Perfetto debug annotation).
// A Double is written with 3 decimals (both formats: the same value). `key`
// views a string that outlives the slice (a literal).
struct TraceArg {
  enum class Type : uint8_t { Int, Uint, Double, String };
  std::string_view key;
  Type type = Type::Int;
  int64_t i = 0;
  uint64_t u = 0;
  double d = 0;
  std::string s;

  static TraceArg ofInt(std::string_view k, int64_t v) { return {k, Type::Int, v, 0, 0, {}}; }
  static TraceArg ofUint(std::string_view k, uint64_t v) { return {k, Type::Uint, 0, v, 0, {}}; }
  static TraceArg ofDouble(std::string_view k, double v) { return {k, Type::Double, 0, 0, v, {}}; }
  static TraceArg ofString(std::string_view k, std::string v) {
    return {k, Type::String, 0, 0, 0, std::move(v)};
  }
};

// A complete slice on thread `tid` of an analysis' process: [tsNs, tsNs +
// durNs), ns since the time origin (ChunkWalk::analysisTracks clamps).
struct TraceSlice {
  int64_t tid = 0;
  uint64_t tsNs = 0;
  uint64_t durNs = 0;
  std::string name;
  std::string category;
  std::vector<TraceArg> args;
};

// A thread of an analysis' process (JSON thread_name and thread_sort_index).
struct TraceTrack {
  int64_t tid = 0;
  std::string name;
  int64_t sortIndex = 0;
};

// The threads and slices an analysis draws for one of its track groups in
// one trace file: every track, then its slices (per track in ts order, those
// of one track never overlapping). Times are Unix ns here, before the walk.
struct TrackGroupRows {
  std::vector<TraceTrack> tracks;
  std::vector<TraceSlice> slices;  // tsNs: Unix ns; by (tid, ts)
};

// Receives one track group's rows as they are made, in TrackGroupRows'
// order (every track, then the slices), so that no group is ever held as
// rows: a slice is the receiver's until the call returns (it may change it,
// e.g. its times), then the maker reuses it.
class TrackRowSink {
 public:
  virtual ~TrackRowSink() = default;
  virtual void track(const TraceTrack& t) = 0;
  virtual void slice(TraceSlice& s) = 0;
};

// A TrackRowSink that keeps the rows (tests, small groups).
class TrackRowsKept final : public TrackRowSink {
 public:
  void track(const TraceTrack& t) override { rows.tracks.push_back(t); }
  void slice(TraceSlice& s) override { rows.slices.push_back(s); }
  TrackGroupRows rows;
};

}  // namespace xstack
