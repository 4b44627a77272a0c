// The format-neutral event model: what a source (source/<format>/) decodes
// an input into and everything above it consumes. A source decides every
// format-specific meaning (which row an event goes to, which events are step
// marks, which memory place a block is in); the consumers never see wire
// types. All times are Unix ns.
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "xstack/event/Collective.h"
#include "xstack/event/RowKey.h"

namespace xstack {

// One timed operation on a row (docs/FORMAT.md section 3: an "X" event).
// The views are valid during the sink's callback only (a streaming source
// reuses its memory): a sink that keeps a name or detail copies it.
struct SliceEvent {
  std::string_view name;
  std::string_view detail;  // free-form annotation; empty = none
  uint64_t startNs = 0;
  uint64_t endNs = 0;  // may be before startNs in damaged inputs
  RowKey row;          // CpuBlock, CudaApi or Gpu (never a memory row)
  int64_t tid = 0;     // thread (CPU rows) or stream (GPU row)
  uint64_t bytes = 0;  // bytes copied by a memcpy; 0 = none
  // The link between a launch (a CudaApi slice) and the GPU activity it
  // started: equal on both (CUDA's correlation id). -1 = none (Paddle dumps).
  int64_t correlation = -1;
  // The collective of a communication kernel (GPU row) or of the host op
  // that launched one (Kineto's record_param_comms); nullptr = none. Like
  // the views, valid during the sink's callback only.
  const CollectiveInfo* collective = nullptr;
  // A dense id of `name` within one profile's walk (0, 1, ... by first
  // sight; equal names, equal ids), given by the read stage to the analyses'
  // per-rank parts so that each finds its per-name state by index instead of
  // hashing the name again. kNoNameId = not given (any other producer).
  static constexpr uint32_t kNoNameId = UINT32_MAX;
  uint32_t nameId = kNoNameId;
};

// Memory places, in the order of a rank's memory rows.
enum class MemPlace : int { Gpu = 0, Cpu = 1, Pinned = 2 };
const char* memPlaceName(MemPlace p);  // "gpu", "cpu", "cudapinnedplace"
// The memory row of a place.
inline RowKind memoryRowKind(MemPlace p) {
  return static_cast<RowKind>(static_cast<int>(RowKind::MemGpu) + static_cast<int>(p));
}

// One allocated block: +bytes at startNs, -bytes at endNs (endNs 0 or
// before startNs: never freed, docs/FORMAT.md section 3).
struct MemoryEvent {
  uint64_t startNs = 0;
  uint64_t endNs = 0;
  uint64_t bytes = 0;
  MemPlace place = MemPlace::Gpu;
  uint64_t device = 0;
  uint64_t thread = 0;
};

// A training-step marker (docs/FORMAT.md section 3): the begin or end of a
// forward or backward phase. model/MarkerPairer pairs them into spans.
enum class Phase : uint8_t { Forward = 0, Backward = 1 };
struct StepMark {
  uint64_t ts = 0;  // ns
  Phase phase = Phase::Forward;
  bool begin = true;
  // The step's own number when the source names it (N of "ProfilerStep#N");
  // -1 = none: steps are numbered by position (model/MarkerPairer.h).
  int64_t number = -1;
};

// An event the source read but has no row for (the source counted why):
// it still counts as an event and its times in the earliest timestamp.
struct UnplacedEvent {
  uint64_t startNs = 0;
  uint64_t endNs = 0;
  bool memory = false;  // a memory event (else a slice)
};

// Receives one input's events in input order as they are decoded. A slice
// that is also a step mark is delivered to both onSlice and onStepMark.
class EventSink {
 public:
  virtual ~EventSink() = default;
  virtual void onSlice(const SliceEvent& e) = 0;
  virtual void onMemory(const MemoryEvent& m) = 0;
  virtual void onStepMark(const StepMark& /*m*/) {}
  virtual void onUnplaced(const UnplacedEvent& /*u*/) {}
  // The time range the input declares for itself, when it does.
  virtual void onTraceStart(uint64_t /*ns*/) {}
  virtual void onTraceEnd(uint64_t /*ns*/) {}
};

// A whole input's events kept in memory (tests, `xstack inspect`, fuzz
// targets), each kind in input order. Names and details are copied into the
// list (a source's views live only for its callback), and so is a slice's
// CollectiveInfo; move-only.
struct EventList final : EventSink {
  EventList() = default;
  EventList(EventList&&) = default;
  EventList& operator=(EventList&&) = default;

  std::vector<SliceEvent> slices;
  std::vector<MemoryEvent> memory;
  std::vector<StepMark> marks;
  std::vector<UnplacedEvent> unplaced;
  uint64_t traceStartNs = 0, traceEndNs = 0;
  bool hasTraceStart = false, hasTraceEnd = false;

  void onSlice(const SliceEvent& e) override {
    SliceEvent& kept = slices.emplace_back(e);
    kept.name = keep(e.name);
    kept.detail = keep(e.detail);
    if (e.collective)
      kept.collective =
          collectives_.emplace_back(std::make_unique<CollectiveInfo>(*e.collective)).get();
  }
  void onMemory(const MemoryEvent& m) override { memory.push_back(m); }
  void onStepMark(const StepMark& m) override { marks.push_back(m); }
  void onUnplaced(const UnplacedEvent& u) override { unplaced.push_back(u); }
  void onTraceStart(uint64_t ns) override {
    traceStartNs = ns;
    hasTraceStart = true;
  }
  void onTraceEnd(uint64_t ns) override {
    traceEndNs = ns;
    hasTraceEnd = true;
  }

 private:
  std::string_view keep(std::string_view text) {
    if (text.empty()) return {};
    return *text_.emplace_back(std::make_unique<std::string>(text));
  }
  std::vector<std::unique_ptr<std::string>> text_;            // stable under moves
  std::vector<std::unique_ptr<CollectiveInfo>> collectives_;  // likewise
};

}  // namespace xstack
