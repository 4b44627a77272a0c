// What rendering one displayed rank's rows needs, gathered in a single pass
// in input order: an EventSink (event/Events.h), fed while the profile file
// is decoded by its source (so no decoded event is ever stored) or from an
// EventList. Per row and per tid, each slice's times, its name (interned once, raw,
// NameTable) and, for the few events that have them, mem_bytes and
// detail_info; the memory events as they are. Rendering then reads the
// buckets in order instead of jumping around the events (a cache miss per
// event otherwise). Memory is reused from one profile to the next: call
// reset() before each. Names and details are copied (interned names, kept
// details): a source's views need to live only for its callback.
// Correlations (SliceEvent::correlation >= 0, launch <-> GPU activity) ride
// the Extra record of their op; markFlowEnds() picks the pairs that become
// flow events (docs/FORMAT.md section 3, "Flows"). A profile without any
// correlation costs nothing more.
#pragma once

#include <cstdint>
#include <deque>
#include <span>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

#include "xstack/core/TimeUnits.h"
#include "xstack/core/Warnings.h"
#include "xstack/event/Events.h"
#include "xstack/model/RankRows.h"
#include "xstack/render/NameTable.h"
#include "xstack/render/OpStore.h"

namespace xstack {

class RowBuckets final : public EventSink, public OpStore {
 public:
  struct Op {
    uint64_t startNs = 0;
    uint64_t endNs = 0;
    uint32_t nameId = 0;  // NameTable id
    uint32_t extra = 0;   // 0: none; else 1 + index into extras()
  };
  using Extra = OpExtra;  // flow: set by markFlowEnds()
  struct Tid {
    int64_t tid = 0;
    std::vector<Op> ops;  // file order
  };

  // Starts a profile whose rows are `rows` (sorted, from the summary; must
  // outlive the buckets' use). Events of other rows are skipped.
  void reset(const std::vector<RowKey>& rows);
  // Starts a profile whose rows are not known yet (the read stage, which
  // finds them as it reads): every row is kept, in order of first
  // appearance, until adoptRows().
  void resetLearning();
  // After resetLearning() and the last event: puts the rows in the order of
  // `rows` (sorted, the summary's), dropping rows not in it; the buckets then
  // equal what reset(rows) and the same events give. Keeps a copy of `rows`.
  void adoptRows(const std::vector<RowKey>& rows);
  // Ops held (for a memory budget), each kept detail counted as the ops its
  // bytes are (heldOpsOfText).
  uint64_t opCount() const { return ops_; }
  // Learning: past `maxOps` ops (opCount's) the buckets let go of everything they hold
  // and take no more events (abandoned(): the rows must be read again).
  void limitOps(uint64_t maxOps) { maxOps_ = maxOps; }
  bool abandoned() const { return abandoned_; }
  void onSlice(const SliceEvent& e) override;
  void onMemory(const MemoryEvent& m) override;
  // Feeds every event of `events`.
  void addAll(const EventList& events);

  // The tids of row r (rows()[r]), in order of first appearance; only the
  // first tidCount(r) entries are in use.
  std::vector<Tid>& tids(size_t r) { return rows_[r].tids; }
  size_t tidCount(size_t r) const { return rows_[r].used; }
  // Row r's tids in output order, the order of both trace formats: by tid,
  // each tid's ops by ts since `origin` (clamped), ties in file order. Sorts
  // in place; a tid already in order is left as it is.
  std::span<Tid> tidsInOutputOrder(size_t r, const TimeOrigin& origin);
  const NameTable& names() const override { return names_; }
  const std::vector<Extra>& extras() const override { return extras_; }
  const std::vector<MemoryEvent>& memEvents() const { return memEvents_; }
  // Whether any op of the profile has a correlation (else no flow, no work).
  bool hasCorrelations() const { return !correlated_.empty(); }
  // Marks the flow ends (Extra::flow): for each correlation seen on both a
  // CudaApi op and a Gpu op, the earliest-starting of each (ties: the first
  // in file order) when the launch starts strictly before the GPU activity
  // in output time (ns since `origin`, clamped: Perfetto's JSON importer
  // loses a flow whose ends share a ts); other ops sharing that correlation
  // get none. Returns whether any flow was marked. Idempotent; call after
  // the profile was fed.
  bool markFlowEnds(const TimeOrigin& origin);

 private:
  struct Row {
    std::vector<Tid> tids;
    size_t used = 0;
    size_t lastTid = 0;
    std::unordered_map<int64_t, size_t> index;  // tid -> entry, once a row has many tids
  };
  size_t rowIndex(const RowKey& key);  // SIZE_MAX: a row not rendered
  const std::vector<RowKey>* keys_ = nullptr;
  bool learning_ = false;
  std::vector<RowKey> learned_;  // learning: the rows so far; after adoptRows: the summary's
  uint64_t ops_ = 0;
  uint64_t maxOps_ = UINT64_MAX;
  bool abandoned_ = false;
  void abandon();
  std::vector<Row> rows_;
  size_t lastRow_ = 0;
  NameTable names_;
  std::vector<Extra> extras_;
  // Copies of the details, one slot each (a deque never moves its elements;
  // slots keep their capacity from one profile to the next).
  std::deque<std::string> details_;
  size_t detailsUsed_ = 0;
  std::string_view keepDetail(std::string_view detail);
  std::vector<MemoryEvent> memEvents_;
  // Per correlation, the earliest launch and GPU activity so far: 1 + the
  // extras() index (0 = none yet) and the start (ns).
  struct FlowCandidates {
    uint32_t launchExtra = 0, gpuExtra = 0;
    uint64_t launchStartNs = 0, gpuStartNs = 0;
  };
  std::unordered_map<int64_t, FlowCandidates> correlated_;
  void noteCorrelation(RowKind kind, const SliceEvent& e, uint32_t extra);
};

}  // namespace xstack
