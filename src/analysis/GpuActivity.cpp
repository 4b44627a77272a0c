#include "xstack/analysis/GpuActivity.h"

#include <algorithm>
#include <charconv>
#include <iterator>
#include <stdexcept>

namespace xstack {

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
  return idleSplit(onStreams);
}

RankGpuActivity GpuActivityBuilder::build(const std::vector<Span>& spans) {
  RankGpuActivity out;
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
  out.breakdown = rankBreakdown(selected);
  out.breakdown.hasIdleSplit = sawCorrelation_;
  out.breakdown.idle = split;
  out.kernels.reserve(names_.size());
  for (auto& [name, n] : names_)
    out.kernels.push_back({name, n.type, n.count, n.totalNs, n.minNs, n.maxNs});
  std::sort(out.kernels.begin(), out.kernels.end(),
            [](const KernelStat& a, const KernelStat& b) { return a.name < b.name; });
  *this = GpuActivityBuilder{};
  return out;
}

namespace {

void appendNumber(std::string& out, uint64_t v) {
  char buf[24];
  out.append(buf, std::to_chars(buf, buf + sizeof buf, v).ptr);
  out += ' ';
}

[[noreturn]] void malformed() { throw std::runtime_error("bad kernel table encoding"); }

// Reads "<number> " at `p`.
uint64_t readNumber(std::string_view t, size_t& p) {
  uint64_t v = 0;
  auto [ptr, ec] = std::from_chars(t.data() + p, t.data() + t.size(), v);
  if (ec != std::errc() || ptr == t.data() + t.size() || *ptr != ' ') malformed();
  p = static_cast<size_t>(ptr - t.data()) + 1;
  return v;
}

}  // namespace

// "<rank> <kernels> " then per kernel "<type> <count> <total> <min> <max>
// <name bytes> <name>\n".
std::string encodeKernelStats(int64_t rank, const std::vector<KernelStat>& kernels) {
  std::string out;
  appendNumber(out, static_cast<uint64_t>(rank));
  appendNumber(out, kernels.size());
  for (const KernelStat& k : kernels) {
    for (uint64_t v : {static_cast<uint64_t>(k.type), k.count, k.totalNs, k.minNs, k.maxNs,
                       static_cast<uint64_t>(k.name.size())})
      appendNumber(out, v);
    out += k.name;
    out += '\n';
  }
  return out;
}

std::vector<KernelStat> decodeKernelStats(std::string_view text, int64_t& rank) {
  size_t p = 0;
  rank = static_cast<int64_t>(readNumber(text, p));
  const uint64_t n = readNumber(text, p);
  if (n > text.size()) malformed();
  std::vector<KernelStat> kernels(n);
  for (KernelStat& k : kernels) {
    const uint64_t type = readNumber(text, p);
    if (type > 3) malformed();
    k.type = static_cast<HtaKernelType>(type);
    for (uint64_t* f : {&k.count, &k.totalNs, &k.minNs, &k.maxNs}) *f = readNumber(text, p);
    const uint64_t len = readNumber(text, p);
    if (len >= text.size() - p || text[p + len] != '\n') malformed();
    k.name.assign(text.substr(p, len));
    p += len + 1;
  }
  if (p != text.size()) malformed();
  return kernels;
}

}  // namespace xstack
