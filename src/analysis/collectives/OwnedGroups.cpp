// An owner's groups (OwnedGroups.h).
#include "xstack/analysis/collectives/OwnedGroups.h"

#include <algorithm>
#include <exception>
#include <stdexcept>

namespace xstack {

void GroupBytes::add(int64_t rank, Origin origin, std::string_view encoded, bool ofWholeGroup) {
  held_.i64(static_cast<int64_t>(origin.second - lastPlace_));  // mod 2^64: any order back
  held_.raw(encoded);
  lastPlace_ = origin.second;
  ++count_;
  wholeGroup_ = wholeGroup_ || ofWholeGroup;
  if (runs_.empty() || runs_.back().rank != rank || runs_.back().sender != origin.first)
    runs_.push_back({rank, origin.first, 0});
  ++runs_.back().count;
}

bool GroupBytes::spillTo(SpillFile& file) {
  if (held_.size() <= 1) return true;  // the version byte alone
  const std::string bytes = held_.take();
  const std::string_view arrivals = std::string_view(bytes).substr(1);
  const uint64_t offset = file.size();
  if (!file.append(arrivals)) {
    held_.raw(arrivals);  // they stay (take() left the version byte)
    return false;
  }
  spilled_.emplace_back(offset, arrivals.size());
  return true;
}

std::string GroupBytes::allBytes(const SpillFile* file) const {
  std::string all(1, static_cast<char>(wire::kWireVersion));
  for (const auto& [offset, size] : spilled_) {
    if (file == nullptr) throw std::runtime_error("a group's spilled arrivals without their file");
    const size_t at = all.size();
    all.resize(at + size);
    if (Status st = file->readAt(offset, all.data() + at, size); !st)
      throw std::runtime_error(st.error().message);
  }
  all.append(held_.view().substr(1));
  return all;
}

void GroupBytes::decode(const SpillFile* file, std::vector<Arrival>& arrivals,
                        std::vector<Origin>& origins) const {
  const std::string bytes = allBytes(file);
  arrivals.assign(count_, Arrival());
  origins.assign(count_, Origin());
  wire::Reader r(bytes, "a group's arrivals");
  size_t i = 0, place = 0;
  for (const RankRun& run : runs_)
    for (uint64_t k = 0; k < run.count && i < arrivals.size() && r.ok(); ++k, ++i) {
      place += static_cast<size_t>(r.i64());
      readArrivalInto(r, arrivals[i]);
      arrivals[i].rank = run.rank;
      origins[i] = {run.sender, place};
    }
  if (Status st = r.finish(); !st || i != arrivals.size())
    throw std::runtime_error(st ? "a group's arrivals cut short" : st.error().message);
}

void OwnedCollector::add(size_t sender, std::string_view message) {
  if (!out_.error.empty()) return;  // the groups will not be used
  try {
    wire::Reader r(message, "the collective arrivals from MPI rank " + std::to_string(sender));
    std::string error = r.str();  // the sender's: its parts are not read
    if (error.empty()) {
      const uint64_t parts = r.count();
      for (uint64_t i = 0; i < parts && r.ok(); ++i) addPart(sender, message, r);
      if (Status st = r.finish(); !st) error = st.error().message;
    }
    if (!error.empty()) out_.error = error;
  } catch (const std::exception& e) {
    out_.error = std::string("collectives failed: ") + e.what();
  }
}

// One RankArrivals of a routed message (as readRankArrivals reads it, `r` in
// `message`): each arrival checked by reading it, its bytes copied to its group.
void OwnedCollector::addPart(size_t sender, std::string_view message, wire::Reader& r) {
  const int64_t rank = r.i64();
  (void)r.u64();  // steps
  const uint64_t n = r.count();
  ArrivalKey key;
  for (uint64_t i = 0; i < n && r.ok(); ++i) {
    const size_t begin = r.offset();
    readArrivalKey(r, key);
    if (!r.ok()) return;
    auto slot = slots_.find(key.group);
    if (slot == slots_.end()) {
      GroupBytes* g = &out_.arrivals[std::string(key.group)];
      slot = slots_.emplace(std::string(key.group), g).first;
    }
    GroupBytes& g = *slot->second;
    const uint64_t before = g.heldBytes();
    g.add(rank, {sender, places_[sender]++}, message.substr(begin, r.offset() - begin),
          key.peer < 0);
    held_ += g.heldBytes() - before;
    spillIfOver();
  }
  std::vector<GroupRanks> groups;
  r.list(groups, readGroupRanks);
  for (GroupRanks& g : groups) {
    out_.arrivals[g.group];  // a group with ranks is a group, even without arrivals here
    std::vector<int64_t>& to = out_.ranks[g.group];
    to.insert(to.end(), g.ranks.begin(), g.ranks.end());
  }
}

// Past the budget: every group's arrivals in memory to the scratch file.
void OwnedCollector::spillIfOver() {
  if (held_ <= spill_.memoryBytes || spillFailed_) return;
  if (!out_.spill) {
    Expected<SpillFile> f = SpillFile::create(spill_.dir);
    if (!f) {
      spillFailed_ = true;
      return;
    }
    out_.spill.emplace(std::move(*f));
  }
  held_ = 0;
  for (auto& [group, g] : out_.arrivals) {
    if (!spillFailed_ && !g.spillTo(*out_.spill)) spillFailed_ = true;
    held_ += g.heldBytes();
  }
}

OwnedGroups OwnedCollector::finish(std::vector<size_t>& arrivalsOf) {
  arrivalsOf = places_;
  for (auto& [group, unused] : out_.arrivals) {
    std::vector<int64_t>& r = out_.ranks[group];
    std::sort(r.begin(), r.end());
    r.erase(std::unique(r.begin(), r.end()), r.end());
  }
  if (out_.spill && out_.error.empty())
    if (Status st = out_.spill->flush(); !st) out_.error = st.error().message;
  slots_.clear();
  return std::move(out_);
}

}  // namespace xstack
