#include "xstack/model/RankRows.h"

#include <algorithm>
#include <cstdio>

namespace xstack {

std::string rankLabel(int64_t rank) {
  char buf[40];
  std::snprintf(buf, sizeof buf, "trainerRank.%03lld", static_cast<long long>(rank));
  return buf;
}

std::string rowProcessName(int64_t order, int64_t rank, const RowKey& row) {
  char nn[32];
  std::snprintf(nn, sizeof nn, "%02lld_", static_cast<long long>(order));
  std::string s = nn;
  const std::string label = rankLabel(rank);
  const std::string dev = std::to_string(row.device);
  switch (row.kind) {
    case RowKind::CpuBlock:
      return s + label + ":cpu:block:" + dev;
    case RowKind::CudaApi:
      return s + label + ":cuda_api";
    case RowKind::Gpu:
      return s + label + ":gpu:" + dev;
    case RowKind::MemGpu:
      return s + "memory usage on " + label + ":gpu:" + dev;
    case RowKind::MemCpu:
      return s + "memory usage on " + label + ":cpu:" + dev;
    case RowKind::MemPinned:
      return s + "memory usage on " + label + ":cudapinnedplace:" + dev;
  }
  return s;
}

std::string memoryCounterName(int64_t rank, const RowKey& row) {
  const std::string dev = std::to_string(row.device);
  const char* place = row.kind == RowKind::MemGpu   ? ":gpu:"
                      : row.kind == RowKind::MemCpu ? ":cpu:"
                                                    : ":cudapinnedplace:";
  return rankLabel(rank) + place + dev + " memory";
}

// O(log n) per event, O(n log n) per profile for n distinct rows: a key not
// found in the sorted `sorted_` goes to `pending_` (duplicates allowed), which
// is merged into `sorted_` once it is as long as `sorted_` (or 64 keys).
void RowCollector::insert(const RowKey& k) {
  if (hasLast_ && last_ == k) return;
  last_ = k;
  hasLast_ = true;
  if (std::binary_search(sorted_.begin(), sorted_.end(), k)) return;
  pending_.push_back(k);
  if (pending_.size() >= std::max<size_t>(64, sorted_.size())) mergePending();
}

void RowCollector::mergePending() {
  std::sort(pending_.begin(), pending_.end());
  pending_.erase(std::unique(pending_.begin(), pending_.end()), pending_.end());
  const size_t mid = sorted_.size();
  sorted_.insert(sorted_.end(), pending_.begin(), pending_.end());
  std::inplace_merge(sorted_.begin(), sorted_.begin() + static_cast<std::ptrdiff_t>(mid),
                     sorted_.end());
  pending_.clear();
}

std::vector<RowKey> RowCollector::rows() const {
  std::vector<RowKey> out = pending_;
  std::sort(out.begin(), out.end());
  out.erase(std::unique(out.begin(), out.end()), out.end());
  const size_t mid = out.size();
  out.insert(out.end(), sorted_.begin(), sorted_.end());
  std::inplace_merge(out.begin(), out.begin() + static_cast<std::ptrdiff_t>(mid), out.end());
  return out;
}

std::vector<RowKey> rankRows(const EventList& events) {
  RowCollector c;
  for (const SliceEvent& e : events.slices) c.add(e);
  for (const MemoryEvent& m : events.memory) c.add(m);
  return c.rows();
}

}  // namespace xstack
