#pragma once
// The open slices of one thread, spread over lanes so that the slices of
// each lane nest (Perfetto's BEGIN/END on one track must nest, and its JSON
// importer spills X events that do not; Chrome JSON allows them). Lane 0 is
// the thread itself; a slice goes to the lowest lane it nests in (it ends at
// or before the lane's innermost open slice), and slices end in time order
// (lowest lane on ties; a slice ending at ts is closed before one starting
// at ts). Lanes are kept once made, so their number is the peak overlap.
// Used by the walk (the rows both formats write) and, as a guard for direct
// callers, by the .pftrace encoder.
//
// Cost: O(log lanes) per open, close and lookup (a tournament tree over the
// lanes' innermost end times), not O(lanes) as a scan; `probes()` counts the
// tree nodes visited, for tests of that bound.
#include <cstddef>
#include <cstdint>
#include <optional>
#include <vector>

namespace xstack {

class OverlapLanes {
 public:
  OverlapLanes();

  size_t size() const { return open_.size(); }
  // Lowest lane where a slice ending at `endNs` nests (the lane is empty or
  // its innermost open slice ends at or after endNs); size() when none does.
  size_t laneFor(uint64_t endNs) const;
  // Adds an empty lane; returns its index.
  size_t addLane();
  // Opens a slice ending at `endNs` (ns) on `lane`, innermost.
  void open(size_t lane, uint64_t endNs);
  // The lane whose innermost open slice ends first, lowest lane on ties,
  // when that end is at or before `tsNs`; nullopt otherwise.
  std::optional<size_t> firstEndingBy(uint64_t tsNs) const;
  bool empty(size_t lane) const { return open_[lane].empty(); }
  uint64_t innermostEnd(size_t lane) const { return open_[lane].back(); }
  // Closes the innermost open slice of `lane` (not empty).
  void close(size_t lane);

  uint64_t probes() const { return probes_; }

 private:
  // Tree key of a lane: its innermost end, saturated below kEmpty; an empty
  // lane is kEmpty (fits every slice, ends never).
  static constexpr uint64_t kEmpty = UINT64_MAX;
  uint64_t keyOf(size_t lane) const;
  void update(size_t lane);
  void grow();

  std::vector<std::vector<uint64_t>> open_;  // per lane: end ns, innermost last
  // Implicit binary trees over `capacity_` leaves (node 1 the root, leaf i at
  // capacity_ + i): the max and min key below each node. Leaves past size()
  // hold 0 in maxKey_ (never chosen before a real lane) and kEmpty in minKey_.
  size_t capacity_ = 1;
  std::vector<uint64_t> maxKey_, minKey_;
  mutable uint64_t probes_ = 0;
};

}  // namespace xstack
