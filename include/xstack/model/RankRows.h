// The rows (processes) of a displayed rank, SPEC.md section 3, in the order
// they are numbered: cpu:block:<d> (d ascending), cuda_api, gpu:<d>, then the
// memory tracks gpu, cpu, cudapinnedplace (device ascending). A row exists
// only when it has events.
#pragma once

#include <compare>
#include <cstdint>
#include <string>
#include <vector>

#include "xstack/core/Warnings.h"
#include "xstack/input/ProfileDecoder.h"

namespace xstack {

enum class RowKind : int {
  CpuBlock = 0,
  CudaApi = 1,
  Gpu = 2,
  MemGpu = 3,
  MemCpu = 4,
  MemPinned = 5
};

struct RowKey {
  RowKind kind = RowKind::CpuBlock;
  int64_t device = 0;
  auto operator<=>(const RowKey&) const = default;
};

// Where an event goes. False for events that have no row: CPU events with a
// device_id below -1 (warning event_bad_device) and unknown types
// (warning event_unknown_type).
bool rowOfEvent(const ProfileEvent& e, RowKey& out, Warnings& warnings);

// "trainerRank.007" (three digits or more).
std::string rankLabel(int64_t rank);

// process_name of a row: "<NN>_trainerRank.RRR:cpu:block:<d>", ... with NN
// the pid written with at least two digits.
std::string rowProcessName(int64_t pid, int64_t rank, const RowKey& row);

// The sorted rows of a profile that have at least one event.
std::vector<RowKey> rankRows(const ProfileData& data, Warnings& warnings);

// The same rows, collected one event at a time (streaming decode).
class RowCollector {
 public:
  void add(const ProfileEvent& e, Warnings& warnings);
  void add(const ProfileMemEvent& m);
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
