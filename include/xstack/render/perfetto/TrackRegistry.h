// The tracks of one packet sequence: their global uuids and their
// TrackDescriptor packets (process, thread, overlap lane, counter), every
// kind written by one function.
//
// Contract:
// - Uuids are global and derived from the data only (the functions below),
//   so chunks that touch the same process agree on its track.
// - A track's descriptor is in this sequence before the first event that
//   uses it: ensure*() write one when none was written yet; declare*() write
//   the track's name and sort index on every call. A process referenced but
//   not declared here gets a descriptor with its pid only (sort index = pid);
//   the chunk that declares it supplies the name. A thread's or counter's
//   process descriptor is written before its own.
// - Ordering: a process orders its children explicitly
//   (child_ordering = EXPLICIT) and has sibling_order_rank = its sort index;
//   a declared thread has sibling_order_rank = its sort index (both clamped
//   to int32; the legacy_sort_index fields keep the full value).
// - Names are written valid UTF-8 (appendValidUtf8, fixes counted in the
//   sequence's textStats()).
#pragma once

#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <unordered_set>
#include <vector>

#include "xstack/render/perfetto/PacketSequence.h"

namespace xstack::perfetto {

// Global track uuids (TrackDescriptor.uuid). Exact for 0 <= pid < 2^20 and
// 0 <= tid < 2^24: (pid << 26) | (tid << 2) | kind, below 2^46. Other ids,
// counters and overlap lanes use a 46-bit FNV-1a hash tagged with bit 48
// and the kind in the low two bits (collision odds ~ n^2 / 2^47).
uint64_t processTrackUuid(int64_t pid);
uint64_t threadTrackUuid(int64_t pid, int64_t tid);
uint64_t counterTrackUuid(int64_t pid, std::string_view trackName);
// Overlap lane `lane` (>= 1) of a thread.
uint64_t laneTrackUuid(int64_t pid, int64_t tid, size_t lane);
// Name of a counter track as Perfetto's JSON importer names the JSON
// counter's series: "<event name>[ id: <id>] <series key>".
std::string counterTrackName(std::string_view eventName, std::optional<int64_t> id,
                             std::string_view seriesKey);

// CounterDescriptor unit: a built-in unit (UNIT_SIZE_BYTES for memory) or,
// with builtin Unspecified, a free-text unit_name ("ratio", "bytes/s").
struct CounterUnit {
  enum class Builtin : uint32_t { Unspecified = 0, TimeNs = 1, Count = 2, SizeBytes = 3 };
  Builtin builtin = Builtin::Unspecified;
  std::string_view name;
};

class TrackRegistry {
 public:
  explicit TrackRegistry(PacketSequence& seq) : seq_(seq) {}

  // ProcessDescriptor{pid, legacy_sort_index, process_name}.
  void declareProcess(int64_t pid, std::string_view name, int64_t sortIndex);
  void ensureProcess(int64_t pid);
  // ThreadDescriptor{pid, tid, legacy_sort_index, thread_name}, parent: the
  // process track.
  void declareThread(int64_t pid, int64_t tid, std::string_view name, int64_t sortIndex);
  void ensureThread(int64_t pid, int64_t tid);
  // A thread's new overlap lane: a child track of the thread named
  // `threadName`. Returns its uuid.
  uint64_t addLane(int64_t pid, int64_t tid, size_t lane, std::string_view threadName);
  // The track of one counter series (counterTrackName), a child of the
  // process track with a CounterDescriptor of `unit`; its descriptor is
  // written on first use. Returns its uuid.
  uint64_t counterTrack(int64_t pid, std::string_view eventName, std::optional<int64_t> id,
                        std::string_view seriesKey, CounterUnit unit);

 private:
  // What one TrackDescriptor says; write() encodes every kind, fields in
  // this order: uuid, parent_uuid, name, child_ordering, sibling_order_rank,
  // then the process / thread / counter message.
  struct Descriptor {
    enum class Kind { Plain, Process, Thread, Counter };
    struct Ordering {
      int64_t siblingRank = 0;
      bool explicitChildOrder = false;  // a parent: its children by their ranks
    };
    // A process's or thread's name and legacy_sort_index.
    struct Label {
      int64_t sortIndex = 0;
      std::string_view name;
    };
    Kind kind = Kind::Plain;
    uint64_t uuid = 0;
    uint64_t parentUuid = 0;  // 0: none
    std::optional<std::string_view> name;
    std::optional<Ordering> ordering;
    int64_t pid = 0, tid = 0;    // Process: pid; Thread: pid and tid
    std::optional<Label> label;  // Process, Thread
    CounterUnit unit;            // Counter
  };
  // One TrackDescriptor packet; the track counts as defined from then on.
  void write(const Descriptor& d);
  void writeBody(ProtoWriter& w, const Descriptor& d);
  // A process's or thread's legacy_sort_index (clamped to int32) and name, when it has them.
  void writeLabel(ProtoWriter& w, const Descriptor& d, uint32_t sortIndexField, uint32_t nameField);
  bool defined(uint64_t uuid) const { return defined_.count(uuid) != 0; }

  PacketSequence& seq_;
  std::unordered_set<uint64_t> defined_;  // uuids with a descriptor in this sequence
  // Recently used counter tracks (DCGM writes its series in turn): key, uuid.
  struct CounterSlot {
    int64_t pid = 0;
    std::optional<int64_t> id;
    std::string eventName, seriesKey;
    uint64_t uuid = 0;
  };
  static constexpr size_t kCounterSlots = 32;
  std::vector<CounterSlot> counterSlots_;
  size_t nextCounterSlot_ = 0;
};

}  // namespace xstack::perfetto
