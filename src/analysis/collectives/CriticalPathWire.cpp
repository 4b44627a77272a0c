// The critical path's wire forms (wire/Wire.h): a profile's walk data, an
// arrival's outcome, a path segment.
#include <algorithm>
#include <stdexcept>
#include <unordered_map>
#include <utility>

#include "xstack/analysis/collectives/CriticalPath.h"
#include "xstack/transport/TypedMessages.h"

namespace xstack {

namespace {

void writeOwnWork(wire::Writer& w, const OwnWork& o) {
  w.i64(o.prev);
  w.u64(o.fromNs);
  for (uint64_t v : {o.times.computeNs, o.times.memcpyNs, o.times.commNs, o.times.hostNs}) w.u64(v);
}

OwnWork readOwnWork(wire::Reader& r) {
  OwnWork o;
  o.prev = r.i64();
  o.fromNs = r.u64();
  for (uint64_t* v : {&o.times.computeNs, &o.times.memcpyNs, &o.times.commNs, &o.times.hostNs})
    *v = r.u64();
  return o;
}

void writeStepWork(wire::Writer& w, const StepWork& s) {
  w.i64(s.step);
  w.u64(s.startNs);
  w.u64(s.endNs);
  writeOwnWork(w, s.tail);
}

StepWork readStepWork(wire::Reader& r) {
  StepWork s;
  s.step = r.i64();
  s.startNs = r.u64();
  s.endNs = r.u64();
  s.tail = readOwnWork(r);
  if (s.endNs < s.startNs) r.fail("a step window that ends before it starts");
  return s;
}

uint64_t windowNs(const GapTimes& t) { return t.computeNs + t.memcpyNs + t.commNs + t.hostNs; }

// Whether `o`, the own work before `t`, is consistent with `arrivals`
// (Arrival or ArrivalBytes: startNs, endNs).
template <class A>
bool ownWorkValid(const OwnWork& o, uint64_t t, const std::vector<A>& arrivals) {
  if (o.fromNs > t || windowNs(o.times) != t - o.fromNs) return false;
  if (o.prev < 0) return o.prev == -1;
  return static_cast<uint64_t>(o.prev) < arrivals.size() &&
         arrivals[static_cast<size_t>(o.prev)].endNs == o.fromNs;
}

// Fails `r` unless `walk` fits `arrivals` (the walk indexes them unchecked).
template <class A>
void checkWalk(wire::Reader& r, const RankWalk& walk, const std::vector<A>& arrivals) {
  if (walk.before.size() != arrivals.size()) return r.fail("walk data for other arrivals");
  for (size_t i = 0; i < arrivals.size(); ++i)
    if (!ownWorkValid(walk.before[i], arrivals[i].startNs, arrivals))
      return r.fail("an inconsistent own-work window");
  for (const StepWork& s : walk.steps)
    if (!ownWorkValid(s.tail, s.endNs, arrivals)) return r.fail("an inconsistent step tail");
}

}  // namespace

void writeRankWalk(wire::Writer& w, const RankWalk& r) {
  w.list(r.steps, writeStepWork);
  w.list(r.before, writeOwnWork);
}

RankWalk readRankWalk(wire::Reader& r) {
  RankWalk w;
  r.list(w.steps, readStepWork);
  r.list(w.before, readOwnWork);
  return w;
}

void writeCollectivesPart(wire::Writer& w, const CollectivesPart& p) {
  writeRankArrivals(w, p.arrivals);
  writeRankWalk(w, p.walk);
}

CollectivesPart readCollectivesPart(wire::Reader& r) {
  CollectivesPart p;
  p.arrivals = readRankArrivals(r);
  p.walk = readRankWalk(r);
  if (r.ok()) checkWalk(r, p.walk, p.arrivals.arrivals);
  return p;
}

std::string encodeOutcomes(const std::vector<ArrivalOutcome>& outcomes,
                           const std::vector<Arrival>& arrivals) {
  wire::Writer w;
  for (size_t i = 0; i < outcomes.size(); ++i)
    writeOutcome(w, outcomes[i], i < arrivals.size() ? outcomeBase(arrivals[i]) : OutcomeBase{});
  return w.take();
}

namespace {

// HeldProfile::outcomes of profile `p` (held as rank `rank`), one per
// arrival, each a difference from its arrival (p's rank, its start). Throws
// (naming the rank) when they are not exactly that many.
std::vector<ArrivalOutcome> decodeOutcomes(int64_t rank, std::string_view bytes,
                                           const WalkProfile& p) {
  wire::Reader r(bytes, "the collective outcomes of rank " + std::to_string(rank));
  std::vector<ArrivalOutcome> out;
  out.reserve(p.arrivals.size());
  for (size_t i = 0; i < p.arrivals.size() && r.ok(); ++i)
    out.push_back(readOutcome(r, {p.rank, p.arrivals[i].startNs}));
  if (Status st = r.finish(); !st) throw std::runtime_error(st.error().message);
  return out;
}

// What the path's segments say of an arrival.
std::string labelText(const Arrival& a) {
  return a.collective + " group " + (a.group.empty() ? std::string("(default)") : a.group);
}

// A WalkProfile's arrivals, added one at a time, their labels once each.
class WalkArrivals {
 public:
  explicit WalkArrivals(WalkProfile& p) : p_(p) {}
  void add(const Arrival& a) {
    auto [it, added] = index_.try_emplace(labelText(a), static_cast<uint32_t>(p_.labels.size()));
    if (added) p_.labels.push_back(it->first);
    p_.arrivals.push_back({a.startNs, a.endNs, a.step, it->second});
  }

 private:
  WalkProfile& p_;
  std::unordered_map<std::string, uint32_t> index_;
};

// readCollectivesPart into the walk's form: each arrival read into one
// reused Arrival, then kept as a WalkArrival.
WalkProfile readWalkProfile(wire::Reader& r) {
  WalkProfile p;
  p.rank = r.i64();
  (void)r.u64();  // steps
  const uint64_t n = r.count();
  p.arrivals.reserve(std::min<uint64_t>(n, r.left() / 14));  // as readRankArrivals
  WalkArrivals arrivals(p);
  Arrival a;
  for (uint64_t i = 0; i < n && r.ok(); ++i) {
    readArrivalInto(r, a);
    if (r.ok()) arrivals.add(a);
  }
  std::vector<GroupRanks> groups;  // not walked
  r.list(groups, readGroupRanks);
  p.walk = readRankWalk(r);
  if (r.ok()) checkWalk(r, p.walk, p.arrivals);
  return p;
}

}  // namespace

WalkProfile walkProfileOf(const RankArrivals& arrivals, RankWalk walk,
                          std::vector<ArrivalOutcome> outcomes) {
  WalkProfile p;
  p.rank = arrivals.rank;
  p.arrivals.reserve(arrivals.arrivals.size());
  WalkArrivals adder(p);
  for (const Arrival& a : arrivals.arrivals) adder.add(a);
  p.walk = std::move(walk);
  p.outcomes = std::move(outcomes);
  return p;
}

WalkProfile decodeWalkProfile(int64_t rank, std::string_view part, std::string_view outcomes) {
  Expected<WalkProfile> p = decodeMessage<WalkProfile>(
      part, "the collective arrivals of rank " + std::to_string(rank), readWalkProfile);
  if (!p) throw std::runtime_error(p.error().message);
  p->outcomes = decodeOutcomes(rank, outcomes, *p);
  return std::move(*p);
}

void HeldWalkProfiles::clear() {
  held_.clear();
  recent_.clear();
}

const WalkProfile* HeldWalkProfiles::decoded(int64_t rank) const {
  for (const auto& [r, p] : recent_)
    if (r == rank) return p.get();
  auto held = held_.find(rank);
  if (held == held_.end()) return nullptr;
  auto p = std::make_unique<WalkProfile>(
      decodeWalkProfile(rank, held->second.part, held->second.outcomes));
  if (release_) {
    release_(held->second.part);
    release_(held->second.outcomes);
  }
  ++decodes_;
  if (recent_.size() == kKeptDecoded) recent_.pop_front();
  recent_.emplace_back(rank, std::move(p));
  return recent_.back().second.get();
}

PartIndex indexCollectivesPart(wire::Reader& r) {
  PartIndex p;
  p.rank = r.i64();
  p.steps = r.u64();
  RoleCounter role(p.rank);
  ArrivalKey a;
  const uint64_t n = r.count();
  for (uint64_t i = 0; i < n && r.ok(); ++i) {
    const size_t begin = r.offset();
    readArrivalKey(r, a);
    role.add(a.group, a.collective, a.bytes, a.peer);
    p.arrivals.push_back(
        {internName(p.groupNames, a.group), begin, r.offset(), a.startNs, a.endNs});
  }
  r.list(p.groups, readGroupRanks);
  const RankWalk walk = readRankWalk(r);
  if (r.ok()) checkWalk(r, walk, p.arrivals);
  p.role = role.role(p.groups);
  for (const StepWork& s : walk.steps) p.stepEnds.emplace_back(s.step, s.endNs);
  return p;
}

void writeOutcome(wire::Writer& w, const ArrivalOutcome& o, const OutcomeBase& base) {
  writeOutcomeDifferences(w, o.matched,
                          static_cast<uint64_t>(o.lastRank) - static_cast<uint64_t>(base.rank),
                          o.lastArrivalNs - base.startNs);
}

void writeOutcomeDifferences(wire::Writer& w, bool matched, uint64_t rankDelta,
                             uint64_t arrivalDelta) {
  w.boolean(matched);
  if (!matched) return;
  w.i64(static_cast<int64_t>(rankDelta));
  w.i64(static_cast<int64_t>(arrivalDelta));
}

ArrivalOutcome readOutcome(wire::Reader& r, const OutcomeBase& base) {
  ArrivalOutcome o;
  o.matched = r.boolean();
  if (!o.matched) return o;
  o.lastRank =
      static_cast<int64_t>(static_cast<uint64_t>(base.rank) + static_cast<uint64_t>(r.i64()));
  o.lastArrivalNs = base.startNs + static_cast<uint64_t>(r.i64());
  return o;
}

void skipOutcome(wire::Reader& r) {
  if (!r.boolean()) return;
  (void)r.u64();
  (void)r.u64();
}

void writeSegment(wire::Writer& w, const PathSegment& s) {
  w.i64(s.rank);
  w.enumeration(s.kind);
  w.u64(s.startNs);
  w.u64(s.durNs);
  w.str(s.detail);
}

PathSegment readSegment(wire::Reader& r) {
  PathSegment s;
  s.rank = r.i64();
  s.kind = r.enumeration(SegmentKind::Wait);
  s.startNs = r.u64();
  s.durNs = r.u64();
  s.detail = r.str();
  return s;
}

}  // namespace xstack
