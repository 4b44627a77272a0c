#include "xstack/render/OverlapLanes.h"

#include <algorithm>

namespace xstack {

OverlapLanes::OverlapLanes() : maxKey_(2, 0), minKey_(2, kEmpty) {}

uint64_t OverlapLanes::keyOf(size_t lane) const {
  return open_[lane].empty() ? kEmpty : std::min(open_[lane].back(), kEmpty - 1);
}

void OverlapLanes::update(size_t lane) {
  size_t node = capacity_ + lane;
  maxKey_[node] = minKey_[node] = keyOf(lane);
  for (node /= 2; node >= 1; node /= 2) {
    maxKey_[node] = std::max(maxKey_[2 * node], maxKey_[2 * node + 1]);
    minKey_[node] = std::min(minKey_[2 * node], minKey_[2 * node + 1]);
  }
}

// Doubles the leaves and rebuilds the trees: O(lanes), once per doubling.
void OverlapLanes::grow() {
  capacity_ *= 2;
  maxKey_.assign(2 * capacity_, 0);
  minKey_.assign(2 * capacity_, kEmpty);
  for (size_t lane = 0; lane < open_.size(); ++lane)
    maxKey_[capacity_ + lane] = minKey_[capacity_ + lane] = keyOf(lane);
  for (size_t node = capacity_ - 1; node >= 1; --node) {
    maxKey_[node] = std::max(maxKey_[2 * node], maxKey_[2 * node + 1]);
    minKey_[node] = std::min(minKey_[2 * node], minKey_[2 * node + 1]);
  }
}

size_t OverlapLanes::addLane() {
  if (open_.size() == capacity_) grow();
  open_.emplace_back();
  update(open_.size() - 1);
  return open_.size() - 1;
}

size_t OverlapLanes::laneFor(uint64_t endNs) const {
  const uint64_t key = std::min(endNs, kEmpty - 1);
  ++probes_;
  if (maxKey_[1] < key) return size();
  size_t node = 1;
  while (node < capacity_) {  // leftmost leaf with a key >= endNs
    ++probes_;
    node = maxKey_[2 * node] >= key ? 2 * node : 2 * node + 1;
  }
  return std::min(node - capacity_, size());  // a padding leaf: none fits
}

std::optional<size_t> OverlapLanes::firstEndingBy(uint64_t tsNs) const {
  ++probes_;
  if (minKey_[1] == kEmpty || minKey_[1] > tsNs) return std::nullopt;
  size_t node = 1;
  while (node < capacity_) {  // leftmost leaf holding the minimum
    ++probes_;
    node = minKey_[2 * node] <= minKey_[2 * node + 1] ? 2 * node : 2 * node + 1;
  }
  return node - capacity_;
}

void OverlapLanes::open(size_t lane, uint64_t endNs) {
  open_[lane].push_back(endNs);
  update(lane);
}

void OverlapLanes::close(size_t lane) {
  open_[lane].pop_back();
  update(lane);
}

}  // namespace xstack
