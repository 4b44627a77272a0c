// THE PRE-STREAMING ANALYSIS, KEPT AS A TEST ORACLE: see ReferenceAnalysis.h.
#include "ReferenceAnalysis.h"

#include <algorithm>
#include <iterator>
#include <tuple>

namespace xstack::reference {

void StepTableBuilder::addSlice(const SliceEvent& e) {
  if (e.row.kind == RowKind::CpuBlock || e.row.kind == RowKind::CudaApi) {
    key_.assign(e.name);
    auto [id, fresh] = cpuNameIds_.emplace(key_, static_cast<uint32_t>(cpuNames_.size()));
    if (fresh) cpuNames_.push_back(key_);
    cpu_.push_back({e.startNs, std::max(e.endNs, e.startNs), id->second});
    return;
  }
  if (e.row.kind != RowKind::Gpu) return;
  key_.assign(e.name);
  auto it = totals_.find(key_);
  if (it == totals_.end())
    it = totals_.emplace(key_, NameEntry{{key_, 0, 0}, kernelCategoryOf(e.name, 0)}).first;
  KernelCategory c = it->second.category;
  if (c == KernelCategory::Compute && e.bytes > 0) c = KernelCategory::Memcpy;
  uint64_t end = std::max(e.endNs, e.startNs);
  byCategory_[static_cast<int>(c)].push_back({e.startNs, end});
  if (c == KernelCategory::Comm) comm_.push_back({e.startNs, end});
  it->second.total.ns += end - e.startNs;
  ++it->second.total.count;
}

void StepTableBuilder::addMemory(const MemoryEvent& m) {
  if (m.place != MemPlace::Gpu) return;
  auto bytes = static_cast<int64_t>(m.bytes);
  memDeltas_.emplace_back(m.startNs, bytes);
  if (m.endNs >= m.startNs && m.endNs != 0) memDeltas_.emplace_back(m.endNs, -bytes);
}

namespace {

uint64_t memoryPeak(std::vector<std::pair<uint64_t, int64_t>>& deltas) {
  std::sort(deltas.begin(), deltas.end());
  int64_t sum = 0, peak = 0;
  for (size_t i = 0; i < deltas.size(); ++i) {
    sum += deltas[i].second;
    bool lastAtNs = i + 1 == deltas.size() || deltas[i + 1].first != deltas[i].first;
    if (lastAtNs) peak = std::max(peak, sum);  // changes at one ns are one sample
  }
  return static_cast<uint64_t>(peak);
}

// The last interval of `sorted` (by start, then end) that starts in [lo, hi], or null.
const Interval* lastStartingIn(const std::vector<Interval>& sorted, uint64_t lo, uint64_t hi) {
  auto it = std::upper_bound(sorted.begin(), sorted.end(), hi,
                             [](uint64_t v, const Interval& iv) { return v < iv.start; });
  if (it == sorted.begin() || (it - 1)->start < lo) return nullptr;
  return &*(it - 1);
}

// The longest stretch of [lo, hi) that no interval of `merged` covers (the
// first of equal ones); empty when there is none.
Interval longestGap(const std::vector<Interval>& merged, uint64_t lo, uint64_t hi) {
  Interval best{lo, lo};
  uint64_t cur = lo;
  auto it = std::lower_bound(merged.begin(), merged.end(), lo,
                             [](const Interval& iv, uint64_t v) { return iv.end <= v; });
  for (; it != merged.end() && it->start < hi && cur < hi; ++it) {
    if (it->start > cur && it->start - cur > best.end - best.start) best = {cur, it->start};
    cur = std::max(cur, it->end);
  }
  if (cur < hi && hi - cur > best.end - best.start) best = {cur, hi};
  return best;
}

}  // namespace

// The CPU-side slice starting in [lo, gap.end) that overlaps `gap` most (ties:
// the shorter, then the name), skipping step spans (those covering [windowStart, hi]).
int64_t StepTableBuilder::gapOpOf(uint64_t lo, uint64_t windowStart, uint64_t hi,
                                  const Interval& gap, uint64_t& overlapNs) const {
  int64_t best = -1;
  uint64_t bestDur = 0;
  overlapNs = 0;
  auto it = std::lower_bound(cpu_.begin(), cpu_.end(), lo,
                             [](const CpuSlice& c, uint64_t v) { return c.start < v; });
  for (; it != cpu_.end() && it->start < gap.end; ++it) {
    if (it->start <= windowStart && it->end >= hi) continue;
    uint64_t a = std::max(it->start, gap.start), b = std::min(it->end, gap.end);
    if (b <= a) continue;
    uint64_t ov = b - a, dur = it->end - it->start;
    bool better =
        ov > overlapNs ||
        (ov == overlapNs &&
         (dur < bestDur || (dur == bestDur && best >= 0 && cpuNames_[it->name] < cpuNames_[best])));
    if (!better) continue;
    best = it->name;
    overlapNs = ov;
    bestDur = dur;
  }
  return best;
}

void StepTableBuilder::addHostIdle(RankTable& t, const std::vector<uint64_t>& ends,
                                   const std::vector<Interval>& all) const {
  std::unordered_map<int64_t, int64_t> indexOfName;  // cpu name id -> index in t.gapOps
  for (size_t i = 0; i < t.steps.size(); ++i) {
    StepRow& r = t.steps[i];
    uint64_t lo = i > 0 && ends[i - 1] < r.startNs ? ends[i - 1] : r.startNs;
    uint64_t hi = r.arrivalNs >= 0 ? r.startNs + static_cast<uint64_t>(r.arrivalNs) : ends[i];
    r.hostIdleNs = hi - lo - unionLengthIn(all, lo, hi);
    Interval gap = longestGap(all, lo, hi);
    if (gap.end == gap.start) continue;
    int64_t name = gapOpOf(lo, r.startNs, hi, gap, r.gapOpNs);
    if (name < 0) continue;
    auto [it, fresh] = indexOfName.emplace(name, static_cast<int64_t>(t.gapOps.size()));
    if (fresh) t.gapOps.push_back(cpuNames_[static_cast<size_t>(name)]);
    r.gapOp = it->second;
  }
}

RankTable StepTableBuilder::build(int64_t rank, const std::vector<Span>& spans) {
  RankTable t;
  t.rank = rank;
  auto byStartEnd = [](const Interval& a, const Interval& b) {
    return a.start != b.start ? a.start < b.start : a.end < b.end;
  };
  std::sort(comm_.begin(), comm_.end(), byStartEnd);
  std::sort(cpu_.begin(), cpu_.end(), [](const CpuSlice& a, const CpuSlice& b) {
    return a.start != b.start ? a.start < b.start
           : a.end != b.end   ? a.end < b.end
                              : a.name < b.name;
  });
  for (auto& v : byCategory_) mergeIntervals(v);
  std::vector<Interval> all, two;  // the three sorted unions merged in linear time
  auto byStart = byStartEnd;
  std::merge(byCategory_[0].begin(), byCategory_[0].end(), byCategory_[1].begin(),
             byCategory_[1].end(), std::back_inserter(two), byStart);
  std::merge(two.begin(), two.end(), byCategory_[2].begin(), byCategory_[2].end(),
             std::back_inserter(all), byStart);
  mergeIntervals(all);
  std::vector<uint64_t> ends;                           // window end of each row
  std::unordered_map<int64_t, const Span*> backwardOf;  // first backward span of each step
  for (const Span& b : spans)
    if (b.phase == Phase::Backward) backwardOf.emplace(b.step, &b);
  for (const Span& f : spans) {
    if (f.phase != Phase::Forward) continue;
    StepRow r;
    r.step = f.step;
    r.startNs = f.startNs;
    r.forwardNs = f.endNs - f.startNs;
    uint64_t end = f.endNs;
    if (auto it = backwardOf.find(f.step); it != backwardOf.end()) {
      r.backwardNs = it->second->endNs - it->second->startNs;
      end = std::max(end, it->second->endNs);
    }
    r.stepNs = end - f.startNs;
    r.computeNs = unionLengthIn(byCategory_[0], f.startNs, end);
    r.commNs = unionLengthIn(byCategory_[1], f.startNs, end);
    r.memcpyNs = unionLengthIn(byCategory_[2], f.startNs, end);
    r.idleNs = r.stepNs - unionLengthIn(all, f.startNs, end);
    r.overlapNs = intersectionLengthIn(byCategory_[0], byCategory_[1], f.startNs, end);
    if (const Interval* last = lastStartingIn(comm_, f.startNs, end)) {
      r.arrivalNs = static_cast<int64_t>(last->start - f.startNs);
      r.lastCommNs = static_cast<int64_t>(last->end - last->start);
    }
    t.steps.push_back(r);
    ends.push_back(end);
  }
  std::vector<size_t> order(t.steps.size());
  for (size_t i = 0; i < order.size(); ++i) order[i] = i;
  std::stable_sort(order.begin(), order.end(),
                   [&](size_t a, size_t b) { return t.steps[a].step < t.steps[b].step; });
  std::vector<StepRow> sorted;
  std::vector<uint64_t> sortedEnds;
  for (size_t i : order) {
    sorted.push_back(t.steps[i]);
    sortedEnds.push_back(ends[i]);
  }
  t.steps = std::move(sorted);
  addHostIdle(t, sortedEnds, all);
  for (auto& [name, k] : totals_) t.kernels.push_back(std::move(k.total));
  std::sort(t.kernels.begin(), t.kernels.end(), [](const KernelTotal& a, const KernelTotal& b) {
    return a.ns != b.ns ? a.ns > b.ns : a.name < b.name;
  });
  if (t.kernels.size() > kKernelsPerRank) t.kernels.resize(kKernelsPerRank);
  t.gpuMemoryPeakBytes = memoryPeak(memDeltas_);
  *this = StepTableBuilder{};
  return t;
}

void GpuActivityBuilder::addSlice(const SliceEvent& e) {
  if (e.correlation >= 0 && !sawCorrelation_) {
    // The rank has correlations: HTA's rule applies, the fallback's slices go.
    sawCorrelation_ = true;
    for (auto& v : uncorrelated_) std::vector<Timed>().swap(v);
  }
  switch (e.row.kind) {
    case RowKind::CpuBlock:
    case RowKind::CudaApi:
      if (e.correlation >= 0) launches_.emplace_back(e.correlation, e.startNs);
      return;
    case RowKind::Gpu:
      addGpuSlice(e);
      return;
    default:
      return;
  }
}

void GpuActivityBuilder::addGpuSlice(const SliceEvent& e) {
  key_.assign(e.name);
  auto it = names_.find(key_);
  if (it == names_.end()) it = names_.emplace(key_, NameStats{htaKernelTypeOf(e.name)}).first;
  NameStats& n = it->second;
  const uint64_t end = std::max(e.endNs, e.startNs);
  const uint64_t dur = end - e.startNs;
  n.minNs = n.count ? std::min(n.minNs, dur) : dur;
  n.maxNs = std::max(n.maxNs, dur);
  n.totalNs += dur;
  ++n.count;
  const bool sync = e.name == "Event Sync" || e.name == "Context Sync";
  const auto type = static_cast<size_t>(n.type);
  const Timed t{e.startNs, end, e.correlation, e.tid};
  if ((e.tid >= 0 && e.correlation >= 0) || sync)
    activities_[type].push_back(t);
  else if (!sawCorrelation_)
    uncorrelated_[type].push_back(t);
}

// HTA's filter (the header): keeps the activities of the steps before the last.
void GpuActivityBuilder::keepOnly(uint64_t lastStepStartNs) {
  std::vector<int64_t> kept;  // correlations of the CPU-side slices kept
  for (const auto& [correlation, startNs] : launches_)
    if (startNs < lastStepStartNs) kept.push_back(correlation);
  std::sort(kept.begin(), kept.end());
  kept.erase(std::unique(kept.begin(), kept.end()), kept.end());
  auto dropped = [&](const Timed& t) {
    if (!sawCorrelation_) return t.startNs >= lastStepStartNs;
    return t.correlation >= 0 && !std::binary_search(kept.begin(), kept.end(), t.correlation);
  };
  for (auto& v : activities_) v.erase(std::remove_if(v.begin(), v.end(), dropped), v.end());
}

// HTA's idle split over the activities with a stream (RankBreakdown.h).
IdleSplit GpuActivityBuilder::idleSplitOfActivities() {
  std::sort(launches_.begin(), launches_.end());
  auto launchOf = [&](int64_t correlation) -> int64_t {
    auto after = std::upper_bound(launches_.begin(), launches_.end(),
                                  std::make_pair(correlation, UINT64_MAX));
    if (after == launches_.begin() || std::prev(after)->first != correlation) return -1;
    return static_cast<int64_t>(std::prev(after)->second);  // the latest CPU-side start
  };
  std::vector<StreamActivity> onStreams;
  for (const auto& v : activities_)
    for (const Timed& a : v)
      if (a.stream >= 0)
        onStreams.push_back(
            {a.stream, a.startNs, a.endNs, a.correlation >= 0 ? launchOf(a.correlation) : -1});
  return reference::idleSplit(onStreams);
}

GpuResult GpuActivityBuilder::build(const std::vector<Span>& spans) {
  GpuResult result;
  RankGpuActivity& out = result.activity;
  uint64_t lastStepStartNs = 0;
  for (const Span& s : spans) {
    if (s.phase != Phase::Forward) continue;
    ++out.steps;
    lastStepStartNs = std::max(lastStepStartNs, s.startNs);
  }
  if (!sawCorrelation_)
    for (size_t t = 0; t < 4; ++t)
      activities_[t].insert(activities_[t].end(), uncorrelated_[t].begin(), uncorrelated_[t].end());
  if (out.steps >= 2) keepOnly(lastStepStartNs);
  IdleSplit split;
  if (sawCorrelation_) split = idleSplitOfActivities();
  std::vector<GpuActivity> selected;
  for (size_t t = 0; t < 4; ++t) {
    for (const Timed& a : activities_[t])
      selected.push_back({a.startNs, a.endNs, static_cast<HtaKernelType>(t)});
    std::vector<Timed>().swap(activities_[t]);
  }
  out.breakdown = reference::rankBreakdown(selected);
  out.breakdown.hasIdleSplit = sawCorrelation_;
  out.breakdown.idle = split;
  std::vector<KernelStat>& kernels = result.kernels;
  kernels.reserve(names_.size());
  for (auto& [name, n] : names_)
    kernels.push_back({name, n.type, n.count, n.totalNs, n.minNs, n.maxNs});
  std::sort(kernels.begin(), kernels.end(),
            [](const KernelStat& a, const KernelStat& b) { return a.name < b.name; });
  *this = GpuActivityBuilder{};
  return result;
}

RankBreakdown rankBreakdown(const std::vector<GpuActivity>& activities) {
  RankBreakdown b;
  if (activities.empty()) return b;
  std::vector<Interval> all, compute, comm;
  uint64_t first = UINT64_MAX, last = 0;
  for (const GpuActivity& a : activities) {
    first = std::min(first, a.startNs);
    last = std::max(last, a.endNs);
    all.push_back({a.startNs, a.endNs});
    if (a.type == HtaKernelType::Computation) compute.push_back({a.startNs, a.endNs});
    if (a.type == HtaKernelType::Communication) comm.push_back({a.startNs, a.endNs});
  }
  b.spanNs = last > first ? last - first : 0;
  mergeIntervals(all);
  mergeIntervals(compute);
  mergeIntervals(comm);
  b.idleNs = b.spanNs - unionLengthIn(all, first, last);
  b.computeNs = unionLengthIn(compute, first, last);
  b.nonComputeNs = b.spanNs - b.idleNs - b.computeNs;
  b.hasComm = !comm.empty();
  b.commNs = unionLengthIn(comm, first, last);
  b.overlapNs = intersectionLengthIn(compute, comm, first, last);
  return b;
}

IdleSplit idleSplit(std::vector<StreamActivity>& activities) {
  // The one change (see the header): ties of (stream, start, end) by launch.
  std::sort(activities.begin(), activities.end(),
            [](const StreamActivity& a, const StreamActivity& b) {
              return std::tie(a.stream, a.startNs, a.endNs, a.launchNs) <
                     std::tie(b.stream, b.startNs, b.endNs, b.launchNs);
            });
  IdleSplit split;
  for (size_t i = 1; i < activities.size(); ++i) {
    const StreamActivity& prev = activities[i - 1];
    const StreamActivity& cur = activities[i];
    if (cur.stream != prev.stream || cur.startNs <= prev.endNs) continue;
    const uint64_t gap = cur.startNs - prev.endNs;
    if (cur.launchNs >= 0 && static_cast<uint64_t>(cur.launchNs) > prev.endNs)
      split.hostWaitNs += gap;
    else if (gap < kKernelWaitBelowNs)
      split.kernelWaitNs += gap;
    else
      split.otherNs += gap;
  }
  return split;
}

}  // namespace xstack::reference
