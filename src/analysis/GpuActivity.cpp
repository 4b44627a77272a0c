#include "xstack/analysis/GpuActivity.h"

#include <algorithm>
#include <iterator>
#include <stdexcept>

#include "xstack/core/CheckedMath.h"
#include "xstack/wire/Wire.h"

namespace xstack {

namespace {

SpillOptions shareOf(const SpillOptions& s, uint64_t percent) {
  return {s.dir, s.memoryBytes / 100 * percent};
}

}  // namespace

// While the input is read, either the correlated sorters (activities and
// launches) or the uncorrelated one fill (a correlation empties the latter),
// never both: they share 75 % of the budget with the sync events (loose). At
// build() the joined survivors' two sorters take the other 25 %.
GpuActivityBuilder::GpuActivityBuilder(SpillOptions spill)
    : spill_(std::move(spill)),
      correlated_(shareOf(spill_, 50)),
      loose_(shareOf(spill_, 5)),
      uncorrelated_(shareOf(spill_, 70)),
      launches_(shareOf(spill_, 20)) {}

void GpuActivityBuilder::addSlice(const SliceEvent& e) {
  if (e.correlation >= 0 && !sawCorrelation_) {
    // The rank has correlations: HTA's rule applies, the fallback's slices go.
    sawCorrelation_ = true;
    uncorrelated_ = ExternalSorter<Timed, ByStart>(shareOf(spill_, 70));
  }
  switch (e.row.kind) {
    case RowKind::CpuBlock:
    case RowKind::CudaApi:
      if (e.correlation >= 0) launches_.push({e.correlation, e.startNs});
      return;
    case RowKind::Gpu:
      addGpuSlice(e);
      return;
    default:
      return;
  }
}

HtaKernelType KernelStatsBuilder::add(const SliceEvent& e) {
  NameStats& n =
      names_.at(e, [](std::string_view name) { return NameStats{htaKernelTypeOf(name)}; });
  const uint64_t dur = std::max(e.endNs, e.startNs) - e.startNs;
  n.minNs = n.count ? std::min(n.minNs, dur) : dur;
  n.maxNs = std::max(n.maxNs, dur);
  if (addSaturating(n.totalNs, dur) && !n.saturated) {
    n.saturated = true;
    ++saturatedSums_;
  }
  ++n.count;
  return n.type;
}

std::vector<KernelStat> KernelStatsBuilder::take() {
  std::vector<KernelStat> out;
  out.reserve(names_.size());
  for (auto& [name, n] : names_.entries())
    out.push_back({name, n.type, n.count, n.totalNs, n.minNs, n.maxNs});
  std::sort(out.begin(), out.end(),
            [](const KernelStat& a, const KernelStat& b) { return a.name < b.name; });
  names_.clear();
  return out;
}

void GpuActivityBuilder::addGpuSlice(const SliceEvent& e) {
  const HtaKernelType type = types_.at(e, htaKernelTypeOf);
  const uint64_t end = std::max(e.endNs, e.startNs);
  const bool sync = e.name == "Event Sync" || e.name == "Context Sync";
  const Timed t{e.startNs, end, e.correlation, e.tid, type};
  if ((e.tid >= 0 && e.correlation >= 0) || sync) {
    if (e.correlation >= 0)
      correlated_.push(t);
    else
      loose_.push(t);
  } else if (!sawCorrelation_) {
    uncorrelated_.push(t);
  }
}

Status GpuActivityBuilder::finishSorters() {
  Status st;
  if (Status s = correlated_.finish(); st && !s) st = s;
  if (Status s = loose_.finish(); st && !s) st = s;
  if (Status s = uncorrelated_.finish(); st && !s) st = s;
  if (Status s = launches_.finish(); st && !s) st = s;
  return st;
}

// The activities that pass HTA's filter, sorted for the breakdown (start,
// end) and, on a stream with a launch time, for the idle split.
class GpuActivityBuilder::Survivors {
 public:
  Survivors(const SpillOptions& spill, bool split)
      : breakdown_(shareOf(spill, 12)), streams_(shareOf(spill, 12)), split_(split) {}
  void add(const Timed& t, int64_t launchNs) {
    breakdown_.push({t.startNs, t.endNs, t.type});
    if (split_ && t.stream >= 0) streams_.push({t.stream, t.startNs, t.endNs, launchNs});
  }
  // The breakdown, with the idle split when the rank has correlations.
  Expected<RankBreakdown> result() {
    Status st = breakdown_.finish();
    if (Status s = streams_.finish(); st && !s) st = s;
    if (!st) return st.error();
    BreakdownSweep sweep;
    auto all = breakdown_.read();
    GpuActivity a;
    while (all.next(a)) sweep.add(a);
    if (!all.status()) return all.status().error();
    RankBreakdown b = sweep.finish();
    b.hasIdleSplit = split_;
    IdleSplitSweep idle;
    auto onStreams = streams_.read();
    StreamActivity s;
    while (onStreams.next(s)) idle.add(s);
    if (!onStreams.status()) return onStreams.status().error();
    b.idle = idle.split();
    return b;
  }

 private:
  struct ByStartEnd {
    bool operator()(const GpuActivity& a, const GpuActivity& b) const {
      return a.startNs != b.startNs ? a.startNs < b.startNs : a.endNs < b.endNs;
    }
  };
  ExternalSorter<GpuActivity, ByStartEnd> breakdown_;
  ExternalSorter<StreamActivity, IdleSplitOrder> streams_;
  bool split_;
};

// HTA's filter (the header) as a merge join of the activities (by
// correlation) with the launches (by correlation, start): an activity stays
// when a launch of its correlation starts before the last step (or without
// the filter); its launch time is the latest start of its correlation.
Status GpuActivityBuilder::joinCorrelated(Survivors& out, bool filter, uint64_t lastStepStartNs) {
  auto activities = correlated_.read();
  auto launches = launches_.read();
  Launch l{};
  bool haveLaunch = launches.next(l);
  Timed t;
  bool group = false;
  int64_t correlation = 0, latest = -1;
  bool kept = false;
  while (activities.next(t)) {
    if (!group || t.correlation != correlation) {
      group = true;
      correlation = t.correlation;
      kept = false;
      latest = -1;
      while (haveLaunch && l.correlation < correlation) haveLaunch = launches.next(l);
      for (; haveLaunch && l.correlation == correlation; haveLaunch = launches.next(l)) {
        kept = kept || l.startNs < lastStepStartNs;
        latest = static_cast<int64_t>(l.startNs);
      }
    }
    if (!filter || kept) out.add(t, latest);
  }
  if (!activities.status()) return activities.status();
  return launches.status();
}

// Activities without a correlation (sync events; every GPU-row slice of a
// rank without correlations): without correlations the filter keeps those
// that start before the last step; with them, all (HTA's correlation -1).
Status GpuActivityBuilder::addLoose(Survivors& out, bool filter, uint64_t lastStepStartNs) {
  for (const auto* sorter : {&loose_, &uncorrelated_}) {
    if (sawCorrelation_ && sorter == &uncorrelated_) continue;
    auto reader = sorter->read();
    Timed t;
    while (reader.next(t))
      if (sawCorrelation_ || !filter || t.startNs < lastStepStartNs) out.add(t, -1);
    if (!reader.status()) return reader.status();
  }
  return {};
}

Expected<RankGpuActivity> GpuActivityBuilder::build(const std::vector<Span>& spans) {
  RankGpuActivity out;
  uint64_t lastStepStartNs = 0;
  for (const Span& s : spans) {
    if (s.phase != Phase::Forward) continue;
    ++out.steps;
    lastStepStartNs = std::max(lastStepStartNs, s.startNs);
  }
  const bool filter = out.steps >= 2;
  Status st = finishSorters();
  Survivors survivors(spill_, sawCorrelation_);
  if (st) st = addLoose(survivors, filter, lastStepStartNs);
  if (st) st = joinCorrelated(survivors, filter, lastStepStartNs);
  // The inputs' memory goes before the survivors are sorted and read.
  correlated_ = ExternalSorter<Timed, ByCorrelation>();
  launches_ = ExternalSorter<Launch, ByCorrelationStart>();
  if (st) {
    Expected<RankBreakdown> b = survivors.result();
    if (b)
      out.breakdown = *b;
    else
      st = b.error();
  }
  SpillOptions spill = spill_;
  *this = GpuActivityBuilder(std::move(spill));
  if (!st) return st.error();
  return out;
}

namespace {

void writeKernelStat(wire::Writer& w, const KernelStat& k) {
  w.u64(static_cast<uint64_t>(k.type));
  for (uint64_t v : {k.count, k.totalNs, k.minNs, k.maxNs}) w.u64(v);
  w.str(k.name);
}

KernelStat readKernelStat(wire::Reader& r) {
  KernelStat k;
  const uint64_t type = r.u64();
  if (type > static_cast<uint64_t>(HtaKernelType::Other)) r.fail("a kernel type is out of range");
  k.type = static_cast<HtaKernelType>(type);
  for (uint64_t* f : {&k.count, &k.totalNs, &k.minNs, &k.maxNs}) *f = r.u64();
  k.name = r.str();
  return k;
}

}  // namespace

// One wire message: the rank, then the list of kernels.
std::string encodeKernelStats(int64_t rank, const std::vector<KernelStat>& kernels) {
  wire::Writer w;
  w.i64(rank);
  w.list(kernels, writeKernelStat);
  return w.take();
}

Expected<std::vector<KernelStat>> decodeKernelStats(std::string_view bytes, int64_t& rank,
                                                    const std::string& what) {
  wire::Reader r(bytes, what);
  rank = r.i64();
  std::vector<KernelStat> kernels;
  r.list(kernels, readKernelStat);
  if (Status st = r.finish(); !st) return st.error();
  return kernels;
}

}  // namespace xstack
