// Half-open time intervals [start, end) in ns, and their unions.
#pragma once

#include <algorithm>
#include <cstdint>
#include <vector>

namespace xstack {

struct Interval {
  uint64_t start = 0;
  uint64_t end = 0;  // >= start
};

// Sorts `v` and merges overlapping or touching intervals in place: the result
// is sorted, disjoint, without empty intervals.
void mergeIntervals(std::vector<Interval>& v);

// Length of the union of `merged` (mergeIntervals' result) inside [lo, hi).
uint64_t unionLengthIn(const std::vector<Interval>& merged, uint64_t lo, uint64_t hi);

// Length of (a ∩ b) inside [lo, hi); a and b merged.
uint64_t intersectionLengthIn(const std::vector<Interval>& a, const std::vector<Interval>& b,
                              uint64_t lo, uint64_t hi);

// Length of the union of arbitrary intervals (copies and merges).
uint64_t unionLength(std::vector<Interval> v);

// mergeIntervals, streamed: intervals given in start order (ties in any
// order) join when they overlap or touch, empty ones are dropped; each
// finished union interval goes to `emit`, in order (disjoint, increasing).
class UnionStream {
 public:
  template <class Emit>
  void add(const Interval& iv, Emit&& emit) {
    if (iv.end <= iv.start) return;
    if (open_ && iv.start <= cur_.end) {
      cur_.end = std::max(cur_.end, iv.end);
      return;
    }
    if (open_) emit(cur_);
    cur_ = iv;
    open_ = true;
  }
  template <class Emit>
  void finish(Emit&& emit) {
    if (open_) emit(cur_);
    open_ = false;
  }

 private:
  Interval cur_;
  bool open_ = false;
};

}  // namespace xstack
