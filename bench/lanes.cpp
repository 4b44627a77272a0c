// xstack_lanes: the cost of overlapping slices on one row with the .pftrace
// writer. Two shapes through PerfettoSequenceEncoder alone
// (bytes counted, not kept):
//   crossing  N slices on one thread, each overlapping all the earlier open
//             ones without nesting (N lanes at once)
//   burst     B crossing slices, then M ordinary back-to-back slices on the
//             same thread (the lanes stay, the slices need only lane 0)
// Prints seconds per shape. Before the lane index (linear scans over every
// lane per slice) the cost grew with slices x peak lanes.
//
//   build/bin/xstack_lanes [N=40000] [B=4000] [M=400000]
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <string>

#include "xstack/render/perfetto/PerfettoSequenceEncoder.h"

using namespace xstack::perfetto;

namespace {

double seconds(std::chrono::steady_clock::time_point t0) {
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
}

// Slice i of `count` starts at start + i and ends at start + count + 2i: it
// overlaps every earlier one still open and nests in none.
void crossing(PerfettoSequenceEncoder& e, uint64_t start, uint64_t count) {
  for (uint64_t i = 0; i < count; ++i) e.slice(1, 1, "cross", "Op", start + i, count + i, {});
}

double crossingSeconds(uint64_t n, uint64_t& bytes) {
  PerfettoSequenceEncoder e(1, [&](std::string_view b) { bytes += b.size(); });
  e.thread(1, 1, "stream 1", 1);
  auto t0 = std::chrono::steady_clock::now();
  crossing(e, 0, n);
  e.finish();
  return seconds(t0);
}

double burstSeconds(uint64_t b, uint64_t m, uint64_t& bytes) {
  PerfettoSequenceEncoder e(1, [&](std::string_view x) { bytes += x.size(); });
  e.thread(1, 1, "stream 1", 1);
  auto t0 = std::chrono::steady_clock::now();
  crossing(e, 0, b);
  const uint64_t after = 4 * b;  // every crossing slice has ended
  for (uint64_t i = 0; i < m; ++i) e.slice(1, 1, "op", "Op", after + 10 * i, 5, {});
  e.finish();
  return seconds(t0);
}

}  // namespace

int main(int argc, char** argv) {
  const uint64_t n = argc > 1 ? std::strtoull(argv[1], nullptr, 10) : 40000;
  const uint64_t b = argc > 2 ? std::strtoull(argv[2], nullptr, 10) : 4000;
  const uint64_t m = argc > 3 ? std::strtoull(argv[3], nullptr, 10) : 400000;
  uint64_t bytes = 0;
  const double c = crossingSeconds(n, bytes);
  std::printf("crossing %llu slices: %.3f s (%llu bytes)\n", static_cast<unsigned long long>(n), c,
              static_cast<unsigned long long>(bytes));
  bytes = 0;
  const double s = burstSeconds(b, m, bytes);
  std::printf("burst of %llu then %llu slices: %.3f s (%llu bytes)\n",
              static_cast<unsigned long long>(b), static_cast<unsigned long long>(m), s,
              static_cast<unsigned long long>(bytes));
  return 0;
}
