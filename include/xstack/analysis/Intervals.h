// Half-open time intervals [start, end) in ns, and their unions.
#pragma once

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

}  // namespace xstack
