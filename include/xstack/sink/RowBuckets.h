// What rendering one displayed rank's rows needs, gathered in a single pass
// in input order: an EventSink (event/Events.h), fed while the profile file
// is decoded by its source (so no decoded event is ever stored) or from an
// EventList. Per row and per tid, each slice's times, its name (interned and escaped once,
// EscapedNameTable) and, for the few events that have them, mem_bytes and
// detail_info; the memory events as they are. Rendering then reads the
// buckets in order instead of jumping around the events (a cache miss per
// event otherwise). Memory is reused from one profile to the next: call
// reset() before each. Names and details are copied (interned names, kept
// details): a source's views need to live only for its callback.
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
#include "xstack/sink/EscapedNameTable.h"

namespace xstack {

class RowBuckets final : public EventSink {
 public:
  struct Op {
    uint64_t startNs = 0;
    uint64_t endNs = 0;
    uint32_t nameId = 0;  // EscapedNameTable id
    uint32_t extra = 0;   // 0: none; else 1 + index into extras()
  };
  struct Extra {
    uint64_t memcopyBytes = 0;  // SliceEvent::bytes
    std::string_view detail;
  };
  struct Tid {
    int64_t tid = 0;
    std::vector<Op> ops;  // file order
  };

  // Starts a profile whose rows are `rows` (sorted, from the summary; must
  // outlive the buckets' use). Events of other rows are skipped.
  void reset(const std::vector<RowKey>& rows);
  void onSlice(const SliceEvent& e) override;
  void onMemory(const MemoryEvent& m) override { memEvents_.push_back(m); }
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
  const EscapedNameTable& names() const { return names_; }
  const std::vector<Extra>& extras() const { return extras_; }
  const std::vector<MemoryEvent>& memEvents() const { return memEvents_; }

 private:
  struct Row {
    std::vector<Tid> tids;
    size_t used = 0;
    size_t lastTid = 0;
    std::unordered_map<int64_t, size_t> index;  // tid -> entry, once a row has many tids
  };
  const std::vector<RowKey>* keys_ = nullptr;
  std::vector<Row> rows_;
  size_t lastRow_ = 0;
  EscapedNameTable names_;
  std::vector<Extra> extras_;
  // Copies of the details, one slot each (a deque never moves its elements;
  // slots keep their capacity from one profile to the next).
  std::deque<std::string> details_;
  size_t detailsUsed_ = 0;
  std::string_view keepDetail(std::string_view detail);
  std::vector<MemoryEvent> memEvents_;
};

}  // namespace xstack
