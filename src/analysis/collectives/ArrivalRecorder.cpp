#include "xstack/analysis/collectives/ArrivalRecorder.h"

#include <algorithm>
#include <map>
#include <numeric>
#include <tuple>
#include <utility>

#include "xstack/analysis/Intervals.h"
#include "xstack/analysis/RankBreakdown.h"
#include "xstack/analysis/StepTable.h"

namespace xstack {

namespace {

// A step's window: [forward start, the later end of its forward span and of
// its first backward span), as the step table has it (analysis/StepTable.h).
struct StepWindow {
  uint64_t startNs = 0, endNs = 0;
  int64_t step = 0;
};

std::vector<StepWindow> stepWindows(const std::vector<Span>& spans) {
  std::map<int64_t, uint64_t> backwardEnd;  // first backward span of each step
  for (const Span& s : spans)
    if (s.phase == Phase::Backward) backwardEnd.emplace(s.step, s.endNs);
  std::vector<StepWindow> w;
  for (const Span& s : spans) {
    if (s.phase != Phase::Forward) continue;
    uint64_t end = s.endNs;
    if (auto it = backwardEnd.find(s.step); it != backwardEnd.end())
      end = std::max(end, it->second);
    w.push_back({s.startNs, end, s.step});
  }
  std::stable_sort(w.begin(), w.end(),
                   [](const StepWindow& a, const StepWindow& b) { return a.startNs < b.startNs; });
  return w;
}

// The step whose window holds `ns` (the latest-starting one); -1 = none.
int64_t stepAt(const std::vector<StepWindow>& w, uint64_t ns) {
  auto it = std::upper_bound(w.begin(), w.end(), ns,
                             [](uint64_t t, const StepWindow& s) { return t < s.startNs; });
  if (it == w.begin()) return -1;
  --it;
  return ns < it->endNs ? it->step : -1;
}

// Adds to sums[j] the ns of `iv` inside windows[j], for every j. `windows`
// are disjoint and sorted; `at` is the first window that may still meet a
// later interval (intervals come sorted and disjoint).
void addToWindows(const Interval& iv, const std::vector<Interval>& windows, size_t& at,
                  std::vector<uint64_t>& sums) {
  while (at < windows.size() && windows[at].end <= iv.start) ++at;
  for (size_t j = at; j < windows.size() && windows[j].start < iv.end; ++j) {
    const uint64_t lo = std::max(iv.start, windows[j].start);
    const uint64_t hi = std::min(iv.end, windows[j].end);
    if (hi > lo) sums[j] += hi - lo;
  }
}

}  // namespace

size_t LaunchTable::slotOf(int64_t correlation) const {
  if (!increasing_) {
    auto it = index_.find(correlation);
    return it == index_.end() ? ring_.size() : it->second;
  }
  // The ring in order is ring_[oldest_..] then ring_[..oldest_), both sorted.
  const auto byId = [](const std::pair<int64_t, uint64_t>& e, int64_t c) { return e.first < c; };
  const bool inFirst = oldest_ == 0 || correlation <= ring_.back().first;
  const auto from = ring_.begin() + (inFirst ? static_cast<std::ptrdiff_t>(oldest_) : 0);
  const auto to = inFirst ? ring_.end() : ring_.begin() + static_cast<std::ptrdiff_t>(oldest_);
  const auto it = std::lower_bound(from, to, correlation, byId);
  return it != to && it->first == correlation ? static_cast<size_t>(it - ring_.begin())
                                              : ring_.size();
}

void LaunchTable::buildIndex() {
  increasing_ = false;
  for (size_t i = 0; i < ring_.size(); ++i) index_.emplace(ring_[i].first, i);
}

const uint64_t* LaunchTable::find(int64_t correlation) const {
  const size_t slot = slotOf(correlation);
  return slot < ring_.size() ? &ring_[slot].second : nullptr;
}

void LaunchTable::add(int64_t correlation, uint64_t startNs) {
  if (capacity_ == 0 || slotOf(correlation) < ring_.size()) return;
  if (increasing_ && !ring_.empty()) {
    const size_t newest = (oldest_ == 0 ? ring_.size() : oldest_) - 1;
    if (correlation < ring_[newest].first) buildIndex();
  }
  size_t slot = ring_.size();
  if (ring_.size() < capacity_) {
    ring_.emplace_back(correlation, startNs);
  } else {
    slot = oldest_;
    oldest_ = (oldest_ + 1) % capacity_;
    if (!increasing_) index_.erase(ring_[slot].first);
    ring_[slot] = {correlation, startNs};
  }
  if (!increasing_) index_.emplace(correlation, slot);
}

ArrivalRecorder::ArrivalRecorder(SpillOptions spill) : gpu_(std::move(spill)) {}

void ArrivalRecorder::noteLaunch(int64_t correlation, uint64_t startNs) {
  if (auto it = waiting_.find(correlation); it != waiting_.end()) {
    arrivals_[it->second].launchNs = startNs;
    waiting_.erase(it);
    return;
  }
  launches_.add(correlation, startNs);
}

void ArrivalRecorder::addArrival(const SliceEvent& e) {
  const CollectiveInfo& c = *e.collective;
  Arrival a;
  a.group = c.group;
  a.collective = c.collective;
  a.bytes = c.bytes;
  a.peer = c.peer;
  a.startNs = e.startNs;
  a.endNs = std::max(e.startNs, e.endNs);
  if (e.correlation >= 0) {
    if (const uint64_t* launch = launches_.find(e.correlation))
      a.launchNs = *launch;
    else
      waiting_[e.correlation] = arrivals_.size();
  }
  if (!c.groupRanks.empty()) {
    auto it = std::find_if(groups_.begin(), groups_.end(),
                           [&](const GroupRanks& g) { return g.group == c.group; });
    if (it == groups_.end()) {
      GroupRanks g{c.group, c.groupRanks};
      std::sort(g.ranks.begin(), g.ranks.end());
      g.ranks.erase(std::unique(g.ranks.begin(), g.ranks.end()), g.ranks.end());
      groups_.push_back(std::move(g));
    }
  }
  arrivals_.push_back(std::move(a));
  seqs_.push_back(c.seq);
}

void ArrivalRecorder::onSlice(const SliceEvent& e) {
  if (e.row.kind == RowKind::CudaApi && e.correlation >= 0) noteLaunch(e.correlation, e.startNs);
  if (e.row.kind != RowKind::Gpu) return;
  const bool comm = e.collective && !e.collective->collective.empty();
  if (comm) addArrival(e);
  KernelKind k{false, KernelCategory::Comm};
  if (!comm) {
    k = kindOf(e);
    if (k.category == KernelCategory::Compute && e.bytes > 0) k.category = KernelCategory::Memcpy;
  }
  gpu_.push({e.startNs, std::max(e.startNs, e.endNs), k.compute,
             k.category == KernelCategory::Memcpy, k.category == KernelCategory::Comm});
  firstGpuNs_ = std::min(firstGpuNs_, e.startNs);
}

ArrivalRecorder::KernelKind ArrivalRecorder::kindOf(const SliceEvent& e) {
  return kinds_.at(e, [](std::string_view name) {
    return KernelKind{htaKernelTypeOf(name) == HtaKernelType::Computation,
                      kernelCategoryOf(name, 0)};
  });
}

// Instances by start order: seq when given, else the order of the group's
// collectives; point to point, the order of the ops in the same direction
// (p2pEnds), so that a send and the recv it feeds get the same instance.
void ArrivalRecorder::assignInstances(std::vector<Arrival>& arrivals) const {
  std::map<std::string, int64_t> groupOrder;
  std::map<std::tuple<std::string, int64_t, int64_t>, int64_t> pairOrder;
  for (Arrival& a : arrivals) {
    if (a.peer >= 0)
      a.instance = pairOrder[std::tuple_cat(std::tuple(a.group), p2pEnds(a))]++;
    else if (a.instance < 0)  // no seq
      a.instance = groupOrder[a.group]++;
  }
}

// Each arrival's GPU compute, copy and idle ns in its window [the end of the
// previous arrivals (the profile's first GPU slice for the first), its start):
// one pass over the GPU intervals sorted by start, three unions (compute,
// compute or copies, any kernel) swept against the windows (disjoint and
// sorted: arrivals are by start, ends >= starts); copies = the second - the first.
// In the same pass, the times of `walk`'s own-work windows: three more
// unions (compute, compute or memcpy, any kernel) measured at their ends.
Status ArrivalRecorder::addWindowTimes(std::vector<Arrival>& arrivals, RankWalk& walk) {
  std::vector<Interval> windows;
  uint64_t lastEnd = firstGpuNs_;
  for (const Arrival& a : arrivals) {
    windows.push_back({std::min(lastEnd, a.startNs), a.startNs});
    lastEnd = std::max(lastEnd, a.endNs);
  }
  if (Status st = gpu_.finish(); !st) return st;
  std::vector<uint64_t> compute(arrivals.size(), 0), busy(arrivals.size(), 0);
  std::vector<uint64_t> computeOrCopy(arrivals.size(), 0);
  UnionStream computeUnion, busyUnion, computeOrCopyUnion;
  size_t computeAt = 0, busyAt = 0, computeOrCopyAt = 0;
  auto onCompute = [&](const Interval& iv) { addToWindows(iv, windows, computeAt, compute); };
  auto onComputeOrCopy = [&](const Interval& iv) {
    addToWindows(iv, windows, computeOrCopyAt, computeOrCopy);
  };
  const std::vector<uint64_t> points = ownWorkPoints(arrivals, walk);
  PrefixMeasure pathCompute(points), pathComputeOrMemcpy(points), pathBusy(points);
  auto onBusy = [&](const Interval& iv) {
    addToWindows(iv, windows, busyAt, busy);
    pathBusy.add(iv);
  };
  auto onPathCompute = [&](const Interval& iv) { pathCompute.add(iv); };
  auto onPathComputeOrMemcpy = [&](const Interval& iv) { pathComputeOrMemcpy.add(iv); };
  UnionStream pathComputeUnion, pathComputeOrMemcpyUnion;
  auto reader = gpu_.read();
  GpuSpan s;
  while (reader.next(s)) {
    if (s.compute) computeUnion.add({s.startNs, s.endNs}, onCompute);
    if (s.compute || s.memcpy) computeOrCopyUnion.add({s.startNs, s.endNs}, onComputeOrCopy);
    busyUnion.add({s.startNs, s.endNs}, onBusy);
    if (!s.comm && !s.memcpy) pathComputeUnion.add({s.startNs, s.endNs}, onPathCompute);
    if (!s.comm) pathComputeOrMemcpyUnion.add({s.startNs, s.endNs}, onPathComputeOrMemcpy);
  }
  if (!reader.status().ok()) return reader.status();
  computeUnion.finish(onCompute);
  computeOrCopyUnion.finish(onComputeOrCopy);
  busyUnion.finish(onBusy);
  pathComputeUnion.finish(onPathCompute);
  pathComputeOrMemcpyUnion.finish(onPathComputeOrMemcpy);
  for (PrefixMeasure* m : {&pathCompute, &pathComputeOrMemcpy, &pathBusy}) m->finish();
  measureOwnWork(arrivals, walk, pathCompute, pathComputeOrMemcpy, pathBusy);
  for (size_t i = 0; i < arrivals.size(); ++i) {
    arrivals[i].computeNs = compute[i];
    arrivals[i].memcpyNs = computeOrCopy[i] - std::min(computeOrCopy[i], compute[i]);
    arrivals[i].idleNs = windows[i].end - windows[i].start - busy[i];
    arrivals[i].freeNs = windows[i].start;
  }
  return {};
}

Expected<CollectivesPart> ArrivalRecorder::buildPart(int64_t rank, const std::vector<Span>& spans) {
  CollectivesPart part;
  RankArrivals& out = part.arrivals;
  out.rank = rank;
  const std::vector<StepWindow> steps = stepWindows(spans);
  out.steps = steps.size();
  std::vector<size_t> order(arrivals_.size());
  std::iota(order.begin(), order.end(), size_t{0});
  std::stable_sort(order.begin(), order.end(),
                   [&](size_t a, size_t b) { return arrivals_[a].startNs < arrivals_[b].startNs; });
  out.arrivals.reserve(order.size());
  for (size_t i : order) {
    Arrival& a = out.arrivals.emplace_back(std::move(arrivals_[i]));
    a.rank = rank;
    a.instance = a.peer < 0 ? seqs_[i] : -1;
    a.step = stepAt(steps, a.startNs);
  }
  arrivals_.clear();
  assignInstances(out.arrivals);
  std::vector<StepWork> work;
  for (const StepWindow& s : steps) work.push_back({s.step, s.startNs, s.endNs, {}});
  part.walk = planOwnWork(out.arrivals, std::move(work));
  // Neither a collective nor a step: the GPU intervals are not needed.
  if (out.arrivals.empty() && part.walk.steps.empty()) return part;
  if (Status st = addWindowTimes(out.arrivals, part.walk); !st) return st.error();
  out.groups = std::move(groups_);
  std::sort(out.groups.begin(), out.groups.end(),
            [](const GroupRanks& a, const GroupRanks& b) { return a.group < b.group; });
  return part;
}

Expected<RankArrivals> ArrivalRecorder::build(int64_t rank, const std::vector<Span>& spans) {
  Expected<CollectivesPart> p = buildPart(rank, spans);
  if (!p) return p.error();
  return std::move(p->arrivals);
}

Expected<std::string> ArrivalRecorder::finish(int64_t rank, const std::vector<Span>& spans) {
  Expected<CollectivesPart> p = buildPart(rank, spans);
  if (!p) return p.error();
  wire::Writer w;
  writeCollectivesPart(w, *p);
  return w.take();
}

}  // namespace xstack
