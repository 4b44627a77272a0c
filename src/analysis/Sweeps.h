// Streaming pieces of the analysis builders (StepTable.cpp, GpuActivity.cpp):
// they take intervals in start order (from an io/ExternalSorter pass) and give
// what the in-memory code computed with sorted vectors and binary searches
// (analysis/Intervals.h), exactly, holding O(windows) and not O(intervals).
#pragma once

#include <algorithm>
#include <cstdint>
#include <vector>

#include "xstack/analysis/Intervals.h"

namespace xstack::sweep {

// For each window [lo, hi) (any order, overlapping or not), fed a union's
// disjoint intervals in order: the length of the union inside the window
// (unionLengthIn) and the longest stretch of the window the union does not
// cover, the first of equal ones (the in-memory longestGap). A window is
// looked at only by the union intervals that end after its lo and start
// before its hi; windows that end before the sweep are dropped.
class WindowCover {
 public:
  explicit WindowCover(std::vector<Interval> windows) : w_(std::move(windows)) {
    state_.resize(w_.size());
    order_.resize(w_.size());
    for (size_t i = 0; i < w_.size(); ++i) {
      order_[i] = i;
      state_[i].cur = w_[i].start;
      state_[i].gap = {w_[i].start, w_[i].start};
    }
    std::stable_sort(order_.begin(), order_.end(),
                     [this](size_t a, size_t b) { return w_[a].start < w_[b].start; });
  }

  void add(const Interval& u) {
    while (next_ < order_.size() && w_[order_[next_]].start < u.end)
      active_.push_back(order_[next_++]);
    size_t kept = 0;
    for (size_t i : active_) {
      if (w_[i].end <= u.start) continue;  // ends before the sweep: done
      active_[kept++] = i;
      touch(i, u);
    }
    active_.resize(kept);
  }

  // After the last union interval: the stretches up to each window's end.
  void finish() {
    for (size_t i = 0; i < w_.size(); ++i) {
      State& s = state_[i];
      const uint64_t hi = w_[i].end;
      if (s.cur < hi && hi - s.cur > s.gap.end - s.gap.start) s.gap = {s.cur, hi};
    }
  }

  uint64_t covered(size_t window) const { return state_[window].covered; }
  const Interval& longestGap(size_t window) const { return state_[window].gap; }

 private:
  struct State {
    uint64_t covered = 0;
    uint64_t cur = 0;  // the sweep's end of coverage in the window
    Interval gap;
  };
  void touch(size_t i, const Interval& u) {
    const uint64_t lo = w_[i].start, hi = w_[i].end;
    State& s = state_[i];
    s.covered += std::min(u.end, hi) - std::max(u.start, lo);
    if (u.start > s.cur && u.start - s.cur > s.gap.end - s.gap.start) s.gap = {s.cur, u.start};
    s.cur = std::max(s.cur, u.end);
  }

  std::vector<Interval> w_;
  std::vector<State> state_;
  std::vector<size_t> order_;  // windows by start
  size_t next_ = 0;            // first window of order_ not yet active
  std::vector<size_t> active_;
};

// Queries ordered by a start key, activated as a sweep over records in
// start order reaches them, and dropped once the sweep passes their end:
// what each of the analysis' per-window scans over a sorted vector becomes.
// `Query` has `uint64_t from` (activate when a record's start >= from) and
// `uint64_t until` (drop when a record's start > until).
template <class Query>
class ActiveQueries {
 public:
  explicit ActiveQueries(std::vector<Query>& queries) : q_(queries) {
    order_.resize(q_.size());
    for (size_t i = 0; i < q_.size(); ++i) order_[i] = i;
    std::stable_sort(order_.begin(), order_.end(),
                     [this](size_t a, size_t b) { return q_[a].from < q_[b].from; });
  }
  // Calls visit(query) for every query with from <= start <= until.
  template <class Visit>
  void at(uint64_t start, Visit&& visit) {
    while (next_ < order_.size() && q_[order_[next_]].from <= start)
      active_.push_back(order_[next_++]);
    size_t kept = 0;
    for (size_t i : active_) {
      if (start > q_[i].until) continue;
      active_[kept++] = i;
      visit(q_[i]);
    }
    active_.resize(kept);
  }

 private:
  std::vector<Query>& q_;
  std::vector<size_t> order_;
  size_t next_ = 0;
  std::vector<size_t> active_;
};

}  // namespace xstack::sweep
