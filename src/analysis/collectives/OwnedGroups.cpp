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

void GroupBytes::decode(const SpillFile* file, std::vector<Arrival>& arrivals,
                        std::vector<Origin>& origins) const {
  arrivals.clear();
  origins.clear();
  arrivals.reserve(count_);
  origins.reserve(count_);
  forEach(file, [&](const Arrival& a, const Origin& o) {
    arrivals.push_back(a);
    origins.push_back(o);
  });
}

struct GroupBytes::Cursor {
  size_t run = 0;      // runs_[run] holds the next arrival
  uint64_t inRun = 0;  // its arrivals already read
  uint64_t read = 0;   // arrivals read
  size_t place = 0;    // the last arrival's place in its sender's routed order
  Arrival arrival;     // reused
};

// The arrivals of one piece of the group's bytes (whole arrivals, without
// the version byte), continuing from `at`.
void GroupBytes::decodePiece(
    std::string_view piece, Cursor& at,
    const std::function<void(const Arrival&, const Origin&)>& onArrival) const {
  std::string bytes(1, static_cast<char>(wire::kWireVersion));
  bytes.append(piece);
  wire::Reader r(bytes, "a group's arrivals");
  while (r.ok() && !r.atEnd()) {
    while (at.run < runs_.size() && at.inRun == runs_[at.run].count) {
      ++at.run;
      at.inRun = 0;
    }
    if (at.run == runs_.size()) throw std::runtime_error("a group's arrivals: more than counted");
    at.place += static_cast<size_t>(r.i64());
    readArrivalInto(r, at.arrival);
    if (!r.ok()) break;
    at.arrival.rank = runs_[at.run].rank;
    ++at.inRun;
    ++at.read;
    onArrival(at.arrival, Origin{runs_[at.run].sender, at.place});
  }
  if (Status st = r.finish(); !st) throw std::runtime_error(st.error().message);
}

void GroupBytes::forEach(
    const SpillFile* file,
    const std::function<void(const Arrival&, const Origin&)>& onArrival) const {
  Cursor at;
  std::string piece;
  for (const auto& [offset, size] : spilled_) {
    if (file == nullptr) throw std::runtime_error("a group's spilled arrivals without their file");
    piece.resize(size);
    if (Status st = file->readAt(offset, piece.data(), size); !st)
      throw std::runtime_error(st.error().message);
    decodePiece(piece, at, onArrival);
  }
  decodePiece(held_.view().substr(1), at, onArrival);
  if (at.read != count_) throw std::runtime_error("a group's arrivals cut short");
}

std::vector<int64_t> GroupBytes::ranksSeen() const {
  std::vector<int64_t> ranks;
  for (const RankRun& run : runs_) ranks.push_back(run.rank);
  std::sort(ranks.begin(), ranks.end());
  ranks.erase(std::unique(ranks.begin(), ranks.end()), ranks.end());
  return ranks;
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
