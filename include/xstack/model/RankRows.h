// The rows (processes) of a displayed rank, docs/FORMAT.md section 3, in the
// order they are numbered (RowKey order, event/RowKey.h): cpu:block:<d> (d
// ascending), cuda_api, gpu:<d>, then the memory tracks gpu, cpu,
// cudapinnedplace (device ascending). A row exists only when it has events.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "xstack/event/Events.h"

namespace xstack {

// "trainerRank.007" (three digits or more).
std::string rankLabel(int64_t rank);

// process_name of a row: "<NN>_trainerRank.RRR:cpu:block:<d>", ... with NN
// the process's place in the file (model/TracePids.h, processOrder) written
// with at least two digits.
std::string rowProcessName(int64_t order, int64_t rank, const RowKey& row);
// The counter of a memory row: "<label>:<place>:<device> memory" (e.g.
// "trainerRank.003:gpu:0 memory"), whose memory in the words of the row names.
std::string memoryCounterName(int64_t rank, const RowKey& row);

// The sorted rows of a profile's events that have at least one event.
std::vector<RowKey> rankRows(const EventList& events);

// The same rows, collected one event at a time (streaming decode).
class RowCollector {
 public:
  void add(const SliceEvent& e) { insert(e.row); }
  void add(const MemoryEvent& m) {
    insert({memoryRowKind(m.place), static_cast<int64_t>(m.device)});
  }
  std::vector<RowKey> rows() const;  // sorted

 private:
  void insert(const RowKey& k);
  void mergePending();
  std::vector<RowKey> sorted_;   // distinct, ascending, none also in pending_
  std::vector<RowKey> pending_;  // not yet merged; may repeat a key
  RowKey last_;                  // the last row hit: consecutive events mostly share it
  bool hasLast_ = false;
};

}  // namespace xstack
