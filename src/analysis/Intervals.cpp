#include "xstack/analysis/Intervals.h"

#include <algorithm>

namespace xstack {

void mergeIntervals(std::vector<Interval>& v) {
  auto byStart = [](const Interval& a, const Interval& b) {
    return a.start != b.start ? a.start < b.start : a.end < b.end;
  };
  if (!std::is_sorted(v.begin(), v.end(), byStart))  // kernels mostly come in start order
    std::sort(v.begin(), v.end(), byStart);
  size_t out = 0;
  for (const Interval& iv : v) {
    if (iv.end <= iv.start) continue;
    if (out > 0 && iv.start <= v[out - 1].end)
      v[out - 1].end = std::max(v[out - 1].end, iv.end);
    else
      v[out++] = iv;
  }
  v.resize(out);
}

namespace {

// First merged interval that ends after `lo`.
std::vector<Interval>::const_iterator firstEndingAfter(const std::vector<Interval>& merged,
                                                       uint64_t lo) {
  return std::upper_bound(merged.begin(), merged.end(), lo,
                          [](uint64_t t, const Interval& iv) { return t < iv.end; });
}

}  // namespace

uint64_t unionLengthIn(const std::vector<Interval>& merged, uint64_t lo, uint64_t hi) {
  uint64_t total = 0;
  for (auto it = firstEndingAfter(merged, lo); it != merged.end() && it->start < hi; ++it)
    total += std::min(it->end, hi) - std::max(it->start, lo);
  return total;
}

uint64_t intersectionLengthIn(const std::vector<Interval>& a, const std::vector<Interval>& b,
                              uint64_t lo, uint64_t hi) {
  uint64_t total = 0;
  auto i = firstEndingAfter(a, lo), j = firstEndingAfter(b, lo);
  while (i != a.end() && j != b.end() && i->start < hi && j->start < hi) {
    uint64_t s = std::max({i->start, j->start, lo}), e = std::min({i->end, j->end, hi});
    if (e > s) total += e - s;
    if (i->end < j->end)
      ++i;
    else
      ++j;
  }
  return total;
}

uint64_t unionLength(std::vector<Interval> v) {
  mergeIntervals(v);
  uint64_t total = 0;
  for (const Interval& iv : v) total += iv.end - iv.start;
  return total;
}

}  // namespace xstack
