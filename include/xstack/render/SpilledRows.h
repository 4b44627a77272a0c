// A displayed rank's rows when they are too many to hold in a rank's memory
// budget (SpillOptions::memoryBytes): the streaming twin of RowBuckets. Fed
// the same way (an EventSink, while the profile is decoded for rendering, the
// time origin known), it holds the names (NameTable, one copy of each
// distinct name) and hands every op to an ExternalSorter in the order the
// walk writes: by row, tid, ts since the origin (clamped), the longer first,
// then file order. Details go to a scratch file of their own and are read
// back by offset. Flows (launch -> GPU activity) are decided over the whole
// profile from a second sorter, by correlation, with RowBuckets' rule; two
// bits per op remember each op's flow end. Memory changes go to a third
// sorter by (place, device, ns), stable, as buildMemoryTracks orders them.
//
// Memory: the sorters' budgets (options.memoryBytes in all), the names, one
// batch of ops, and ops / 4 bytes of flow marks. Disk: about 80 bytes per op
// and 32 per memory change, in unlinked scratch files (io/SpillFile.h).
#pragma once

#include <cstdint>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "xstack/core/Status.h"
#include "xstack/core/TimeUnits.h"
#include "xstack/event/Events.h"
#include "xstack/io/ExternalSorter.h"
#include "xstack/model/MemoryTrack.h"
#include "xstack/render/NameTable.h"
#include "xstack/render/OpStore.h"
#include "xstack/render/RowBuckets.h"

namespace xstack {

// Whether a profile of `events` events (InputSummary::events) is rendered
// from memory (RowBuckets, about 48 bytes an op with its extras) within
// options.memoryBytes; else from SpilledRows.
bool rowsFitInMemory(uint64_t events, const SpillOptions& options);
// The ops RowBuckets may hold within options.memoryBytes.
uint64_t heldOpsWithin(const SpillOptions& options);
// The bytes RowBuckets holding `ops` ops is counted as (the inverse of heldOpsWithin).
uint64_t heldBytesOf(uint64_t ops);
// The ops `bytes` of text a RowBuckets keeps (an op's detail) count as
// against a budget of ops: the bytes over an op's share, rounded up.
uint64_t heldOpsOfText(uint64_t bytes);

class SpilledRows final : public EventSink, public OpStore {
 public:
  // `rows`: the profile's rows (sorted, the summary's; must outlive this).
  // Events of other rows are skipped.
  SpilledRows(const std::vector<RowKey>& rows, TimeOrigin origin, const SpillOptions& options);

  void onSlice(const SliceEvent& e) override;
  void onMemory(const MemoryEvent& m) override;

  // After the last event: ends the sorters and marks the flows. The first
  // scratch-file error of any of them.
  Status finish();
  // Whether any op ends a flow (after finish()).
  bool hasFlows() const { return anyFlow_; }
  uint64_t opCount() const { return seq_; }
  // The tids of row `row` into `out` (replaced), ascending: the walk picks
  // the ids its threads and overlap lanes are written with (RowThreadIds).
  void tidsOf(size_t row, std::vector<int64_t>& out) const;
  // The ops of (row, tid).
  uint64_t opCount(size_t row, int64_t tid) const;
  // Makes `extras` the store's extras() (swapped with the batch's): the walk
  // hands out the overlap lanes' ops, held past their batches, with theirs.
  void swapExtras(std::vector<OpExtra>& extras) { extras_.swap(extras); }

  const NameTable& names() const override { return names_; }
  // The extras of the ops of the last nextBatch().
  const std::vector<OpExtra>& extras() const override { return extras_; }

  // --- Reading, after finish(): one pass over the ops in output order.
  // The (row, tid) of the next op; false at the end of the ops.
  bool peek(size_t& row, int64_t& tid);
  // Up to `max` next ops of (row, tid) into `out` (replaced), their extras
  // into extras() (replaced; Op::extra is 1 + index there, flow ends set).
  // 0 when the next op is not of (row, tid).
  size_t nextBatch(size_t row, int64_t tid, std::vector<RowBuckets::Op>& out, size_t max);
  // The memory changes of (place, device) in order (ns, then file order):
  // `emit(ns, delta)` each. A pass of its own over the sorted changes.
  template <class Emit>
  Status forEachMemoryChange(MemPlace place, uint64_t device, Emit&& emit);
  // The first read error of a pass (nextBatch, forEachMemoryChange).
  const Status& readStatus() const { return readStatus_; }

 private:
  struct OpRecord {
    uint64_t startNs = 0, endNs = 0;  // as read
    uint64_t seq = 0;                 // file order
    int64_t tid = 0;
    uint64_t memcopyBytes = 0;
    int64_t correlation = -1;
    uint64_t detailOffset = 0;  // in details_
    uint32_t detailBytes = 0;
    uint32_t nameId = 0;
    uint32_t row = 0;
    uint32_t hasExtra = 0;
  };
  struct OutputOrder {
    TimeOrigin origin;
    bool operator()(const OpRecord& a, const OpRecord& b) const;
  };
  struct FlowCandidate {
    int64_t correlation = 0;
    uint64_t gpu = 0;  // 0: the launch (CudaApi), 1: the GPU activity
    uint64_t startNs = 0;
    uint64_t seq = 0;
  };
  struct ByCorrelation {
    bool operator()(const FlowCandidate& a, const FlowCandidate& b) const;
  };
  struct MemoryChange {
    uint64_t place = 0;
    uint64_t device = 0;
    uint64_t ns = 0;
    int64_t delta = 0;
  };
  struct ByTrack {
    bool operator()(const MemoryChange& a, const MemoryChange& b) const;
  };

  size_t rowIndex(const RowKey& key);  // SIZE_MAX: a row not rendered
  uint64_t keepDetail(std::string_view detail);
  void markFlows();
  void setFlow(uint64_t seq, FlowEnd end);
  FlowEnd flowOf(uint64_t seq) const;
  bool fill();  // the next record into head_; false at the end (or an error)

  const std::vector<RowKey>& rows_;
  TimeOrigin origin_;
  size_t lastRow_ = 0;
  uint64_t seq_ = 0;
  NameTable names_;
  std::map<std::pair<uint32_t, int64_t>, uint64_t> opsPerThread_;
  ExternalSorter<OpRecord, OutputOrder> ops_;
  ExternalSorter<FlowCandidate, ByCorrelation> flowCandidates_;
  ExternalSorter<MemoryChange, ByTrack> memory_;
  std::optional<SpillFile> details_;
  SpillOptions options_;
  Status writeStatus_;
  std::vector<uint8_t> flowBits_;  // 2 bits per op (FlowEnd), by seq
  bool anyFlow_ = false;
  // The pass over the ops.
  std::optional<ExternalSorter<OpRecord, OutputOrder>::Reader> reader_;
  std::optional<OpRecord> head_;
  std::vector<OpExtra> extras_;
  std::string detailText_;  // the details of the batch, extras_ view into it
  Status readStatus_;
};

template <class Emit>
Status SpilledRows::forEachMemoryChange(MemPlace place, uint64_t device, Emit&& emit) {
  auto reader = memory_.read();
  MemoryChange c;
  const auto p = static_cast<uint64_t>(place);
  while (reader.next(c)) {
    if (c.place != p || c.device != device) {
      if (c.place > p || (c.place == p && c.device > device)) break;
      continue;
    }
    emit(c.ns, c.delta);
  }
  if (!reader.status().ok() && readStatus_.ok()) readStatus_ = reader.status();
  return reader.status();
}

}  // namespace xstack
