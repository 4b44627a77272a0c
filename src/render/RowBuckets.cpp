#include "xstack/render/RowBuckets.h"

#include <algorithm>
#include <cstdint>

#include "xstack/render/SpilledRows.h"

namespace xstack {

std::span<RowBuckets::Tid> RowBuckets::tidsInOutputOrder(size_t r, const TimeOrigin& origin) {
  std::span<Tid> used(rows_[r].tids.data(), rows_[r].used);
  std::sort(used.begin(), used.end(), [](const Tid& x, const Tid& y) { return x.tid < y.tid; });
  auto byTs = [&origin](const Op& x, const Op& y) {
    return origin.since(x.startNs) < origin.since(y.startNs);
  };
  for (Tid& t : used)
    if (!std::is_sorted(t.ops.begin(), t.ops.end(), byTs))
      std::stable_sort(t.ops.begin(), t.ops.end(), byTs);
  return used;
}

void RowBuckets::reset(const std::vector<RowKey>& rows) {
  keys_ = &rows;
  maxOps_ = UINT64_MAX;
  abandoned_ = false;
  learning_ = false;
  ops_ = 0;
  if (rows_.size() < rows.size()) rows_.resize(rows.size());
  for (Row& r : rows_) {
    for (size_t i = 0; i < r.used; ++i) r.tids[i].ops.clear();
    r.used = 0;
    r.index.clear();
    r.lastTid = 0;
  }
  lastRow_ = 0;
  names_.clear();
  extras_.clear();
  detailsUsed_ = 0;
  memEvents_.clear();
  correlated_.clear();
}

std::string_view RowBuckets::keepDetail(std::string_view detail) {
  if (detail.empty()) return {};
  if (detailsUsed_ == details_.size()) details_.emplace_back();
  std::string& slot = details_[detailsUsed_++];
  slot.assign(detail);
  return slot;
}

void RowBuckets::resetLearning() {
  learned_.clear();
  reset(learned_);
  learning_ = true;
}

void RowBuckets::adoptRows(const std::vector<RowKey>& rows) {
  std::vector<Row> ordered(rows.size());
  for (size_t i = 0; i < learned_.size(); ++i) {
    auto it = std::lower_bound(rows.begin(), rows.end(), learned_[i]);
    if (it != rows.end() && *it == learned_[i])
      ordered[static_cast<size_t>(it - rows.begin())] = std::move(rows_[i]);
  }
  rows_ = std::move(ordered);
  learned_ = rows;
  keys_ = &learned_;
  learning_ = false;
  lastRow_ = 0;
}

size_t RowBuckets::rowIndex(const RowKey& key) {
  const std::vector<RowKey>& keys = *keys_;
  if (lastRow_ < keys.size() && keys[lastRow_] == key) return lastRow_;
  if (learning_) {
    auto it = std::find(learned_.begin(), learned_.end(), key);
    if (it == learned_.end()) {
      learned_.push_back(key);
      if (rows_.size() < learned_.size()) rows_.emplace_back();
      it = learned_.end() - 1;
    }
    return lastRow_ = static_cast<size_t>(it - learned_.begin());
  }
  auto it = std::lower_bound(keys.begin(), keys.end(), key);
  if (it == keys.end() || *it != key) return SIZE_MAX;
  return lastRow_ = static_cast<size_t>(it - keys.begin());
}

void RowBuckets::abandon() {
  abandoned_ = true;
  std::vector<Row>().swap(rows_);
  std::vector<Extra>().swap(extras_);
  std::deque<std::string>().swap(details_);
  detailsUsed_ = 0;
  std::vector<MemoryEvent>().swap(memEvents_);
  std::unordered_map<int64_t, FlowCandidates>().swap(correlated_);
  names_ = NameTable();
  ops_ = 0;
}

void RowBuckets::onMemory(const MemoryEvent& m) {
  if (abandoned_) return;
  if (ops_ == maxOps_) return abandon();
  ++ops_;  // counted with the ops against the limit
  memEvents_.push_back(m);
}

void RowBuckets::onSlice(const SliceEvent& e) {
  if (abandoned_) return;
  const size_t r = rowIndex(e.row);
  if (r == SIZE_MAX) return;
  // A kept detail counts with its op: a profile whose ops carry long details
  // (a collective's "Process Group Ranks" of every rank, 5 KB) stays within the budget.
  const uint64_t cost = 1 + heldOpsOfText(e.detail.size());
  if (cost > maxOps_ - ops_) return abandon();
  ops_ += cost;
  Row& row = rows_[r];
  size_t t = row.lastTid;
  if (t >= row.used || row.tids[t].tid != e.tid) {
    constexpr size_t kLinear = 16;  // past this many tids, a hash index
    if (row.used <= kLinear) {
      t = 0;
      while (t < row.used && row.tids[t].tid != e.tid) ++t;
    } else {
      if (row.index.empty())
        for (size_t i = 0; i < row.used; ++i) row.index.emplace(row.tids[i].tid, i);
      auto it = row.index.find(e.tid);
      t = it == row.index.end() ? row.used : it->second;
    }
    if (t == row.used) {
      if (!row.index.empty()) row.index.emplace(e.tid, t);
      if (row.used == row.tids.size()) row.tids.emplace_back();
      row.tids[row.used].tid = e.tid;
      row.tids[row.used].ops.clear();
      ++row.used;
    }
    row.lastTid = t;
  }
  uint32_t extra = 0;
  if (e.bytes > 0 || !e.detail.empty() || e.correlation >= 0) {
    extras_.push_back(
        {e.bytes, keepDetail(e.detail), e.correlation < 0 ? -1 : e.correlation, FlowEnd::None});
    extra = static_cast<uint32_t>(extras_.size());
    if (e.correlation >= 0) noteCorrelation(e.row.kind, e, extra);
  }
  row.tids[t].ops.push_back({e.startNs, e.endNs, names_.intern(e.name), extra});
}

void RowBuckets::noteCorrelation(RowKind kind, const SliceEvent& e, uint32_t extra) {
  if (kind != RowKind::CudaApi && kind != RowKind::Gpu) return;
  FlowCandidates& c = correlated_[e.correlation];
  const bool launch = kind == RowKind::CudaApi;
  uint32_t& best = launch ? c.launchExtra : c.gpuExtra;
  uint64_t& bestStart = launch ? c.launchStartNs : c.gpuStartNs;
  if (best == 0 || e.startNs < bestStart) {
    best = extra;
    bestStart = e.startNs;
  }
}

bool RowBuckets::markFlowEnds(const TimeOrigin& origin) {
  bool any = false;
  for (const auto& [correlation, c] : correlated_) {
    if (c.launchExtra == 0 || c.gpuExtra == 0) continue;
    if (origin.since(c.gpuStartNs) <= origin.since(c.launchStartNs)) continue;
    extras_[c.launchExtra - 1].flow = FlowEnd::Out;
    extras_[c.gpuExtra - 1].flow = FlowEnd::In;
    any = true;
  }
  return any;
}

void RowBuckets::addAll(const EventList& events) {
  for (const SliceEvent& e : events.slices) onSlice(e);
  for (const MemoryEvent& m : events.memory) onMemory(m);
}

}  // namespace xstack
