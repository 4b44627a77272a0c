// The meaning of Chrome-trace events (Kineto and Paddle's new profiler,
// docs/FORMAT.md section 8), decided here and nowhere else: which row an
// event goes to (by its category, never by its pid alone), which events are
// steps, how the [memory] instants become allocated blocks. ChromeEventMapper
// turns the tokenizer's TraceEvents (TraceEvent.h) into the neutral events
// of event/Events.h as they are read.
#pragma once

#include <cstdint>
#include <map>
#include <string>
#include <string_view>
#include <tuple>
#include <utility>
#include <vector>

#include "xstack/core/Warnings.h"
#include "xstack/event/Events.h"
#include "xstack/source/chrome/TraceEvent.h"

namespace xstack::chrome {

// What a category says about an X event.
enum class EventClass : uint8_t {
  Host,         // CPU ops, annotations, python functions, Paddle's host kinds: thread rows
  Api,          // CUDA runtime/driver calls (and other runtimes): the CUDA API row
  GpuActivity,  // kernels, memcpy, memset, syncs: the (device, stream) rows
  Skipped,      // the profiler's own span ("Trace"), GPU-projected annotations
};
EventClass classOfCategory(std::string_view cat);

// "ProfilerStep#12" (Kineto, cat user_annotation) or "ProfileStep#12"
// (Paddle, cat ProfileStep): a step window.
bool isStepEvent(std::string_view name, std::string_view cat);
// N of "ProfilerStep#N" (digits after the '#', at most 18); -1 = none.
int64_t stepNumberOf(std::string_view name);

// A Paddle memory place text: "Place(gpu:0)", "Place(cpu)",
// "Place(gpu_pinned)" (also without "Place(...)"). False: unknown.
bool memPlaceFromText(std::string_view text, MemPlace& place, uint64_t& device);

// Reads an event's collective args ("Collective name", "Process Group
// Name", "Process Group Description", "Process Group Ranks" (a string
// holding a list), "Group size", "Seq", "In msg nelems", "Out msg nelems",
// "dtype", "Dst Rank"/"Src Rank"; ints may be numeric strings) into `out`.
// False when the event has no "Collective name". `bad` lists the args that
// did not parse ("" when all did); their fields keep the unknown values.
bool collectiveFromArgs(const TraceEvent& e, CollectiveInfo& out, std::string& bad);

// What collectiveFromArgs parsed last, by the arg's text: a trace repeats the
// same few names, rank lists and dtypes in every collective, so a reader that
// keeps one memo parses each text once in a row (the results are the same).
struct CollectiveArgsMemo {
  bool hasName = false, hasRanks = false, hasDtype = false;  // false: nothing kept yet
  std::string nameText, name;  // "Collective name" as written -> normalized
  std::string ranksText;       // "Process Group Ranks" as written -> parsed
  std::vector<int64_t> ranks;
  bool ranksParsed = false;
  std::string dtypeText;  // "dtype" as written -> its bytes (0 = unknown)
  int64_t dtypeSize = 0;
};
bool collectiveFromArgs(const TraceEvent& e, CollectiveInfo& out, std::string& bad,
                        CollectiveArgsMemo& memo);

class ChromeEventMapper {
 public:
  // baseNs: added to every ts (baseTimeNanoseconds, 0 when absent).
  // warnings: where dropped or repaired events are counted. where: the
  // start of a warning's example ("trace.json.gz: "), empty = none.
  // relative: the file has a baseTimeNanoseconds, so its ts are relative to it and an
  // event at ts exactly 0 is Kineto's clamp of a time before the base (unknown): dropped,
  // counted as json_clamped_time, so that it never moves the time origin.
  ChromeEventMapper(EventSink& out, Warnings& warnings, int64_t baseNs, std::string where = {},
                    bool relative = false)
      : out_(out),
        warnings_(warnings),
        baseNs_(baseNs),
        relative_(relative),
        where_(std::move(where)) {}
  void onEvent(const TraceEvent& e);
  // After the last event: the blocks still allocated and the memory held
  // before the trace began (from the first running total) are delivered.
  void finish();
  // Events delivered to the sink so far (slices, unplaced events, memory instants used).
  uint64_t used() const { return used_; }
  // Events dropped for their time (json_bad_time, json_clamped_time).
  uint64_t droppedForTime() const { return droppedForTime_; }

 private:
  void onComplete(const TraceEvent& e);
  void onMemoryInstant(const TraceEvent& e);
  void onBeginEnd(const TraceEvent& e);
  bool absoluteNs(const TimeField& t, uint64_t& out) const;
  bool clamped(const TimeField& t);
  std::string_view detailOf(const TraceEvent& e);
  const CollectiveInfo* collectiveOf(const TraceEvent& e, EventClass cls, uint64_t startNs);
  struct MemKey {
    MemPlace place;
    uint64_t device;
    auto operator<=>(const MemKey&) const = default;
  };
  void allocate(const MemKey& key, int64_t addr, uint64_t ts, uint64_t bytes, int64_t thread);
  void release(const MemKey& key, int64_t addr, uint64_t ts, uint64_t bytes);

  EventSink& out_;
  Warnings& warnings_;
  int64_t baseNs_;
  bool relative_;
  uint64_t used_ = 0;
  uint64_t droppedForTime_ = 0;
  std::string where_;
  std::string detail_;
  CollectiveInfo collective_;  // the current slice's (SliceEvent::collective)
  CollectiveArgsMemo collectiveMemo_;
  std::string badArgs_;
  struct Block {
    uint64_t startNs, bytes;
    int64_t thread;
  };
  // Live blocks by (place, device, address); what grows is the number of
  // blocks allocated at once, not the trace.
  std::map<std::tuple<MemPlace, uint64_t, int64_t>, Block> live_;
  struct Device {
    uint64_t firstNs = 0;
    int64_t before = 0;  // bytes held before the trace (first total - first delta)
    std::vector<std::pair<uint64_t, uint64_t>> earlierFrees;  // (ns, bytes) of unseen blocks
  };
  std::map<MemKey, Device> devices_;
  // Open B events per (pid, tid): a step's number (-1 = unnumbered), or kNotAStep.
  static constexpr int64_t kNotAStep = -2;
  std::map<std::pair<int64_t, int64_t>, std::vector<int64_t>> openBegins_;
};

}  // namespace xstack::chrome
