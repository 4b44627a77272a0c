// The critical path's own-work windows and the backward walk on one rank
// (analysis/collectives/CriticalPath.h).
#include "xstack/analysis/collectives/CriticalPath.h"

#include <algorithm>
#include <functional>
#include <queue>
#include <set>
#include <utility>

#include "xstack/report/AnalysisFiles.h"

namespace xstack {

namespace {

// The previous arrival of a step at increasing times T: among the step's
// arrivals (indices by start) that start before T and end at or before T, the
// latest end (ties: the later index). Queries must come with T non-decreasing.
class PrevFinder {
 public:
  PrevFinder(const std::vector<Arrival>& arrivals, const std::vector<size_t>& indices)
      : arrivals_(arrivals), indices_(indices) {}

  OwnWork before(uint64_t t, uint64_t stepStartNs) {
    while (pushed_ < indices_.size() && arrivals_[indices_[pushed_]].startNs < t) {
      const size_t i = indices_[pushed_++];
      pending_.emplace(arrivals_[i].endNs, i);
    }
    while (!pending_.empty() && pending_.top().first <= t) {
      const auto [end, i] = pending_.top();
      pending_.pop();
      if (best_ < 0 || end > bestEnd_ || (end == bestEnd_ && static_cast<int64_t>(i) > best_)) {
        best_ = static_cast<int64_t>(i);
        bestEnd_ = end;
      }
    }
    return {best_, best_ < 0 ? stepStartNs : bestEnd_, {}};
  }

 private:
  using Pending = std::pair<uint64_t, size_t>;  // (end, index)
  const std::vector<Arrival>& arrivals_;
  const std::vector<size_t>& indices_;
  size_t pushed_ = 0;
  std::priority_queue<Pending, std::vector<Pending>, std::greater<>> pending_;
  int64_t best_ = -1;
  uint64_t bestEnd_ = 0;
};

// The indices (by start) of the arrivals of step s.step that start inside
// [s.startNs, s.endNs) (overlapping windows: an arrival is in the step
// ArrivalRecorder gave it).
std::vector<size_t> arrivalsIn(const std::vector<Arrival>& arrivals, const StepWork& s) {
  auto lo = std::lower_bound(arrivals.begin(), arrivals.end(), s.startNs,
                             [](const Arrival& a, uint64_t t) { return a.startNs < t; });
  std::vector<size_t> out;
  for (auto it = lo; it != arrivals.end() && it->startNs < s.endNs; ++it)
    if (it->step == s.step) out.push_back(static_cast<size_t>(it - arrivals.begin()));
  return out;
}

// The three measures were made from the same points (ownWorkPoints).
GapTimes timesOf(uint64_t from, uint64_t to, const PrefixMeasure& compute,
                 const PrefixMeasure& computeOrMemcpy, const PrefixMeasure& busy) {
  const size_t f = busy.placeOf(from), t = busy.placeOf(to);
  const uint64_t c = compute.atPlace(t) - compute.atPlace(f);
  const uint64_t cm = computeOrMemcpy.atPlace(t) - computeOrMemcpy.atPlace(f);
  const uint64_t b = busy.atPlace(t) - busy.atPlace(f);
  return {c, cm - c, b - cm, (to - from) - b};
}

const StepWork* stepOf(const RankWalk& w, int64_t step) {
  for (const StepWork& s : w.steps)
    if (s.step == step) return &s;
  return nullptr;
}

void addSegment(std::vector<PathSegment>& out, int64_t rank, SegmentKind kind, uint64_t start,
                uint64_t dur, std::string detail = {}) {
  if (dur > 0) out.push_back({rank, kind, start, dur, std::move(detail)});
}

// The own work [from, to) as consecutive segments host, memcpy, compute,
// transfer (collectives not followed) with their lengths (not the kernels'
// own times), appended latest first.
void addOwnWork(std::vector<PathSegment>& out, int64_t rank, uint64_t from, uint64_t to,
                const GapTimes& t) {
  const uint64_t memcpyAt = from + t.hostNs;
  const uint64_t computeAt = memcpyAt + t.memcpyNs;
  const uint64_t commAt = computeAt + t.computeNs;
  addSegment(out, rank, SegmentKind::Transfer, commAt, to - commAt, "collectives not followed");
  addSegment(out, rank, SegmentKind::Compute, computeAt, t.computeNs);
  addSegment(out, rank, SegmentKind::Memcpy, memcpyAt, t.memcpyNs);
  addSegment(out, rank, SegmentKind::Host, from, t.hostNs);
}

// The own work before `t` on the walk's rank: the step's tail, the window
// before the arrival starting at `t`, or null when `t` is no such point.
const OwnWork* ownWorkAt(const WalkProfile& p, const StepWork& s, uint64_t t, bool atStepEnd) {
  if (atStepEnd) return &s.tail;
  if (t >= s.endNs) return nullptr;
  const std::vector<WalkArrival>& a = p.arrivals;
  auto it = std::lower_bound(a.begin(), a.end(), t,
                             [](const WalkArrival& x, uint64_t v) { return x.startNs < v; });
  if (it == a.end() || it->startNs != t || it->step != s.step) return nullptr;
  return &p.walk.before[static_cast<size_t>(it - a.begin())];
}

}  // namespace

RankWalk planOwnWork(const std::vector<Arrival>& arrivals, std::vector<StepWork> steps) {
  RankWalk w;
  std::set<int64_t> seen;
  for (StepWork& s : steps)
    if (seen.insert(s.step).second) w.steps.push_back(s);
  w.before.resize(arrivals.size());
  for (size_t i = 0; i < arrivals.size(); ++i) w.before[i].fromNs = arrivals[i].startNs;
  for (StepWork& s : w.steps) {
    const std::vector<size_t> in = arrivalsIn(arrivals, s);
    PrevFinder prev(arrivals, in);
    for (size_t i : in) w.before[i] = prev.before(arrivals[i].startNs, s.startNs);
    s.tail = prev.before(s.endNs, s.startNs);
  }
  return w;
}

PrefixMeasure::PrefixMeasure(std::vector<uint64_t> points) : points_(std::move(points)) {
  // ownWorkPoints gives them sorted and unique: then one pass, no sort.
  if (!std::is_sorted(points_.begin(), points_.end())) std::sort(points_.begin(), points_.end());
  points_.erase(std::unique(points_.begin(), points_.end()), points_.end());
  values_.assign(points_.size(), 0);
}

void PrefixMeasure::add(const Interval& iv) {
  while (next_ < points_.size() && points_[next_] <= iv.start) values_[next_++] = sum_;
  while (next_ < points_.size() && points_[next_] < iv.end) {
    values_[next_] = sum_ + (points_[next_] - iv.start);
    ++next_;
  }
  sum_ += iv.end - iv.start;
}

void PrefixMeasure::finish() {
  while (next_ < points_.size()) values_[next_++] = sum_;
}

size_t PrefixMeasure::placeOf(uint64_t t) const {
  auto it = std::lower_bound(points_.begin(), points_.end(), t);
  if (it == points_.end() || *it != t) return points_.size();
  return static_cast<size_t>(it - points_.begin());
}

uint64_t PrefixMeasure::at(uint64_t t) const { return atPlace(placeOf(t)); }

std::vector<uint64_t> ownWorkPoints(const std::vector<Arrival>& arrivals, const RankWalk& walk) {
  std::vector<uint64_t> p;
  for (size_t i = 0; i < walk.before.size() && i < arrivals.size(); ++i) {
    p.push_back(walk.before[i].fromNs);
    p.push_back(arrivals[i].startNs);
  }
  for (const StepWork& s : walk.steps) {
    p.push_back(s.tail.fromNs);
    p.push_back(s.endNs);
  }
  std::sort(p.begin(), p.end());
  p.erase(std::unique(p.begin(), p.end()), p.end());
  return p;
}

void measureOwnWork(const std::vector<Arrival>& arrivals, RankWalk& walk,
                    const PrefixMeasure& compute, const PrefixMeasure& computeOrMemcpy,
                    const PrefixMeasure& busy) {
  for (size_t i = 0; i < walk.before.size() && i < arrivals.size(); ++i)
    walk.before[i].times =
        timesOf(walk.before[i].fromNs, arrivals[i].startNs, compute, computeOrMemcpy, busy);
  for (StepWork& s : walk.steps)
    s.tail.times = timesOf(s.tail.fromNs, s.endNs, compute, computeOrMemcpy, busy);
}

const char* segmentKindName(SegmentKind k) {
  switch (k) {
    case SegmentKind::Compute:
      return "compute";
    case SegmentKind::Host:
      return "host";
    case SegmentKind::Memcpy:
      return "memcpy";
    case SegmentKind::Transfer:
      return "transfer";
    case SegmentKind::Wait:
      break;
  }
  return "wait";
}

WalkPoint walkRank(const WalkProfile& p, int64_t step, const WalkPoint& at,
                   std::vector<PathSegment>& out) {
  const int64_t rank = p.rank;
  const StepWork* s = stepOf(p.walk, step);
  WalkPoint done{true, rank, at.timeNs, false};
  if (!s) return done;
  uint64_t t = at.timeNs;
  bool atStepEnd = at.atStepEnd;
  for (;;) {
    done.timeNs = t;
    if (t <= s->startNs) return done;
    const OwnWork* w = ownWorkAt(p, *s, t, atStepEnd);
    if (!w) return done;
    addOwnWork(out, rank, w->fromNs, t, w->times);
    done.timeNs = w->fromNs;
    if (w->prev < 0) return done;
    const auto i = static_cast<size_t>(w->prev);
    const WalkArrival& a = p.arrivals[i];
    const ArrivalOutcome& o = p.outcomes[i];
    const std::string& label = p.labels[a.label];
    atStepEnd = false;
    t = a.startNs;
    if (!o.matched) {
      addSegment(out, rank, SegmentKind::Wait, a.startNs, a.endNs - a.startNs,
                 label + ", unmatched");
    } else if (o.lastRank == rank || o.lastArrivalNs >= a.endNs) {
      addSegment(out, rank, SegmentKind::Transfer, a.startNs, a.endNs - a.startNs, label);
    } else {
      addSegment(out, rank, SegmentKind::Transfer, o.lastArrivalNs, a.endNs - o.lastArrivalNs,
                 label + ", waited for rank " + std::to_string(o.lastRank));
      return {false, o.lastRank, o.lastArrivalNs, false};
    }
  }
}

WalkPoint walkLocal(const WalkProfileLookup& find, int64_t step, WalkPoint at,
                    std::vector<PathSegment>& out) {
  while (!at.done) {
    const WalkProfile* p = find(at.rank);
    if (p == nullptr) return at;
    at = walkRank(*p, step, at, out);
  }
  return at;
}

WalkPoint walkLocal(const std::map<int64_t, WalkProfile>& profiles, int64_t step, WalkPoint at,
                    std::vector<PathSegment>& out) {
  return walkLocal(
      [&profiles](int64_t rank) -> const WalkProfile* {
        auto it = profiles.find(rank);
        return it == profiles.end() ? nullptr : &it->second;
      },
      step, at, out);
}

std::string criticalPathCsv(const std::vector<StepPath>& paths, uint64_t originNs) {
  std::string out = "step,order,rank,kind,start_ns,dur_ns,detail\n";
  for (const StepPath& p : paths) {
    uint64_t order = 0;
    for (const PathSegment& s : p.segments) {
      out += std::to_string(p.step) + ',' + std::to_string(order++) + ',' + std::to_string(s.rank) +
             ',' + segmentKindName(s.kind) + ',' +
             std::to_string(s.startNs >= originNs ? s.startNs - originNs : 0) + ',' +
             std::to_string(s.durNs) + ',';
      appendCsvField(out, s.detail);
      out += '\n';
    }
  }
  return out;
}

}  // namespace xstack
