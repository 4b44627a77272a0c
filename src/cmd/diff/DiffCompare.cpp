// The comparisons of `xstack diff` (cmd/diff/Diff.h): pure functions of the
// parsed analysis files, plus the two streaming passes over kernels.csv.
#include <algorithm>
#include <array>
#include <cmath>
#include <filesystem>
#include <map>
#include <set>
#include <string>
#include <tuple>
#include <unordered_map>

#include "xstack/cmd/diff/Diff.h"
#include "xstack/core/CheckedMath.h"

namespace fs = std::filesystem;

namespace xstack {
namespace {

double pct(uint64_t part, uint64_t whole) {
  return whole ? 100.0 * static_cast<double>(part) / static_cast<double>(whole) : 0.0;
}

double medianOf(std::vector<double> v) {
  if (v.empty()) return 0;
  std::sort(v.begin(), v.end());
  const size_t mid = v.size() / 2;
  return v.size() % 2 ? v[mid] : (v[mid - 1] + v[mid]) / 2;
}

uint64_t absDiff(uint64_t a, uint64_t b) { return a > b ? a - b : b - a; }

std::string findingKey(const FindingEntry& f) {
  std::string k = f.kind + ":";
  for (int64_t r : f.ranks) k += std::to_string(r) + ",";
  return k;
}

// The median rank's change of each category, percentage points.
CategoryPct medianDeltas(const std::vector<RankDelta>& all) {
  std::vector<double> d[4];
  for (const RankDelta& r : all) {
    d[0].push_back(r.bPct.idle - r.aPct.idle);
    d[1].push_back(r.bPct.compute - r.aPct.compute);
    d[2].push_back(r.bPct.nonCompute - r.aPct.nonCompute);
    if (r.aPct.overlap >= 0 && r.bPct.overlap >= 0) d[3].push_back(r.bPct.overlap - r.aPct.overlap);
  }
  CategoryPct m;
  m.idle = medianOf(d[0]);
  m.compute = medianOf(d[1]);
  m.nonCompute = medianOf(d[2]);
  m.overlap = d[3].empty() ? -1 : medianOf(d[3]);
  return m;
}

void scoreRank(RankDelta& r, const CategoryPct& m) {
  const double dev[3] = {std::fabs(r.bPct.idle - r.aPct.idle - m.idle),
                         std::fabs(r.bPct.compute - r.aPct.compute - m.compute),
                         std::fabs(r.bPct.nonCompute - r.aPct.nonCompute - m.nonCompute)};
  static const char* const kNames[3] = {"idle", "compute", "non-compute"};
  size_t k = static_cast<size_t>(std::max_element(dev, dev + 3) - dev);
  r.scorePt = dev[k];
  r.why = kNames[k];
}

// Pass 1 over one kernels.csv: per name count and total; ranks per name.
struct NameSums {
  std::string category;
  KernelTotalsAB t;
  int64_t lastRankA = INT64_MIN, lastRankB = INT64_MIN;
  bool heldA = false, heldB = false;  // t.aNs / t.bNs held at 2^63 - 1
};
using NameTable = std::unordered_map<std::string, NameSums>;

// sum += v in ns, held at 2^63 - 1 (core/CheckedMath.h, as kernels.csv's total_ns); the
// first time the sum is held, `held` is set and `count` counted (so the count is that of the
// sums held, whatever the order of the rows).
void addHeld(uint64_t& sum, uint64_t v, bool& held, uint64_t& count) {
  if (addSaturating(sum, v) && !held) {
    held = true;
    ++count;
  }
}

Status sumKernels(const std::string& path, bool isB, NameTable& names, uint64_t& held) {
  std::string key;  // reused: no allocation per row
  return forEachKernelRow(path, [&](const KernelRow& r) {
    key.assign(r.name);
    auto it = names.find(key);  // one lookup per row; names repeat per rank
    if (it == names.end()) it = names.emplace(key, NameSums{}).first;
    NameSums& s = it->second;
    if (s.category.empty()) s.category = r.category;
    int64_t& last = isB ? s.lastRankB : s.lastRankA;
    (void)addSaturating(isB ? s.t.bCount : s.t.aCount, r.count);  // a count, not ns: not counted
    addHeld(isB ? s.t.bNs : s.t.aNs, r.totalNs, isB ? s.heldB : s.heldA, held);
    if (last != r.rank) ++(isB ? s.t.bRanks : s.t.aRanks);  // rows come ordered by rank
    last = r.rank;
  });
}

std::vector<KernelDelta> topKernels(const NameTable& names, KernelsDiff& k) {
  std::vector<KernelDelta> all;
  bool heldA = false, heldB = false;
  for (const auto& [name, s] : names) {
    k.namesA += s.t.aCount > 0 || s.t.aRanks > 0;
    k.namesB += s.t.bCount > 0 || s.t.bRanks > 0;
    k.newNames += s.t.aRanks == 0;
    k.vanishedNames += s.t.bRanks == 0;
    addHeld(k.aTotalNs, s.t.aNs, heldA, k.saturatedSums);
    addHeld(k.bTotalNs, s.t.bNs, heldB, k.saturatedSums);
    if (s.t.aNs == s.t.bNs && s.t.aCount == s.t.bCount) continue;
    ++k.changedNames;
    all.push_back(KernelDelta{name, s.category, s.t, 0, {}});
  }
  std::sort(all.begin(), all.end(), [](const KernelDelta& x, const KernelDelta& y) {
    const uint64_t dx = absDiff(x.t.aNs, x.t.bNs), dy = absDiff(y.t.aNs, y.t.bNs);
    return dx != dy ? dx > dy : x.name < y.name;
  });
  if (all.size() > kTopKernels) all.resize(kTopKernels);
  return all;
}

// Pass 2: the per-rank totals of the top names, then which ranks changed.
Status rankKernels(const std::string& aPath, const std::string& bPath,
                   std::vector<KernelDelta>& top, uint64_t& held) {
  std::unordered_map<std::string, size_t> index;
  for (size_t i = 0; i < top.size(); ++i) index.emplace(top[i].name, i);
  std::vector<std::map<int64_t, RankKernelDelta>> perRank(top.size());
  std::vector<std::map<int64_t, std::array<bool, 2>>> heldRank(top.size());  // by side
  for (int side = 0; side < 2; ++side) {
    std::string key;
    Status st = forEachKernelRow(side ? bPath : aPath, [&](const KernelRow& r) {
      key.assign(r.name);
      auto it = index.find(key);
      if (it == index.end()) return;
      RankKernelDelta& d = perRank[it->second][r.rank];
      d.rank = r.rank;
      addHeld(side ? d.bNs : d.aNs, r.totalNs, heldRank[it->second][r.rank][side], held);
    });
    if (!st) return st;
  }
  for (size_t i = 0; i < top.size(); ++i) {
    std::vector<RankKernelDelta> changed;
    for (const auto& [rank, d] : perRank[i])
      if (static_cast<double>(absDiff(d.aNs, d.bNs)) >=
              kRankKernelChange * static_cast<double>(std::max(d.aNs, d.bNs)) &&
          d.aNs != d.bNs)
        changed.push_back(d);
    std::stable_sort(changed.begin(), changed.end(), [](const auto& x, const auto& y) {
      return absDiff(x.aNs, x.bNs) > absDiff(y.aNs, y.bNs);
    });
    top[i].ranksChanged = static_cast<int64_t>(changed.size());
    if (changed.size() > 5) changed.resize(5);
    top[i].topRanks = std::move(changed);
  }
  return {};
}

// |b - a| / max(a, b), 0 when both are 0.
double relDelta(double a, double b) {
  const double hi = std::max(std::fabs(a), std::fabs(b));
  return hi > 0 ? std::fabs(b - a) / hi : 0;
}

bool sameCollective(const CollectiveStat& x, const CollectiveStat& y) {
  return x.count == y.count && x.transferP50Us == y.transferP50Us &&
         x.transferP95Us == y.transferP95Us && x.busbwGbps == y.busbwGbps && x.waitUs == y.waitUs &&
         x.topLateRank == y.topLateRank && x.topLateShare == y.topLateShare &&
         (x.bytesP50 == y.bytesP50 || x.bytesP50 < 0 || y.bytesP50 < 0);  // -1: not in its file
}

// The score of a row in both runs: the larger relative change of transfer p50 and busbw (a
// bandwidth on one side only counts as a full change).
double collectiveScore(const CollectiveStat& a, const CollectiveStat& b) {
  double s = relDelta(static_cast<double>(a.transferP50Us), static_cast<double>(b.transferP50Us));
  if ((a.busbwGbps < 0) != (b.busbwGbps < 0)) return 1;
  if (a.busbwGbps >= 0) s = std::max(s, relDelta(a.busbwGbps, b.busbwGbps));
  return s;
}

using CollectiveKey = std::tuple<std::string, std::string, uint64_t>;
CollectiveKey keyOf(const CollectiveStat& c) { return {c.group, c.collective, c.bytes}; }

}  // namespace

CategoryPct categoryPct(const RankCategories& r) {
  return {pct(r.idleNs, r.spanNs), pct(r.computeNs, r.spanNs), pct(r.nonComputeNs, r.spanNs),
          r.overlapPct};
}

StepsDiff diffSteps(const StepTimes& a, const StepTimes& b) {
  StepsDiff d;
  d.aMedianNs = a.medianStepNs;
  d.bMedianNs = b.medianStepNs;
  d.aRanks = a.ranks;
  d.bRanks = b.ranks;
  size_t i = 0, j = 0;
  while (i < a.steps.size() || j < b.steps.size()) {
    if (j == b.steps.size() || (i < a.steps.size() && a.steps[i] < b.steps[j])) {
      d.onlyA.push_back(a.steps[i++]);
    } else if (i == a.steps.size() || b.steps[j] < a.steps[i]) {
      d.onlyB.push_back(b.steps[j++]);
    } else {
      d.common.push_back({a.steps[i], a.medianNs[i], b.medianNs[j]});
      ++i, ++j;
    }
  }
  return d;
}

RanksDiff diffRanks(const std::vector<RankCategories>& a, const std::vector<RankCategories>& b) {
  RanksDiff d;
  size_t i = 0, j = 0;  // both ordered by rank (readRanksCsv checks it)
  while (i < a.size() || j < b.size()) {
    if (j == b.size() || (i < a.size() && a[i].rank < b[j].rank)) {
      d.onlyA.push_back(a[i++].rank);
    } else if (i == a.size() || b[j].rank < a[i].rank) {
      d.onlyB.push_back(b[j++].rank);
    } else {
      d.all.push_back({a[i].rank,
                       b[j].trainer,
                       b[j].gpu,
                       a[i],
                       b[j],
                       categoryPct(a[i]),
                       categoryPct(b[j]),
                       0,
                       {}});
      ++i, ++j;
    }
  }
  d.medianDeltaPt = medianDeltas(d.all);
  for (size_t k = 0; k < d.all.size(); ++k) {
    scoreRank(d.all[k], d.medianDeltaPt);
    if (d.all[k].scorePt >= kRankChangePt) d.changed.push_back(k);
  }
  std::stable_sort(d.changed.begin(), d.changed.end(),
                   [&](size_t x, size_t y) { return d.all[x].scorePt > d.all[y].scorePt; });
  return d;
}

FindingsDiff diffFindings(const std::vector<FindingEntry>& a, const std::vector<FindingEntry>& b) {
  // A finding of B pairs with the first unpaired finding of A of the same
  // kind and ranks (a key may repeat: one rank late for two causes).
  FindingsDiff d;
  std::map<std::string, std::vector<size_t>> unpaired;  // key -> indexes into a, in order
  for (size_t i = a.size(); i-- > 0;) unpaired[findingKey(a[i])].push_back(i);
  std::vector<bool> paired(a.size(), false);
  for (const FindingEntry& f : b) {
    auto it = unpaired.find(findingKey(f));
    if (it == unpaired.end() || it->second.empty()) {
      d.added.push_back(f);
      continue;
    }
    paired[it->second.back()] = true;
    d.kept.emplace_back(a[it->second.back()], f);
    it->second.pop_back();
  }
  for (size_t i = 0; i < a.size(); ++i)
    if (!paired[i]) d.vanished.push_back(a[i]);
  return d;
}

CollectivesDiff diffCollectives(const std::vector<CollectiveStat>& a,
                                const std::vector<CollectiveStat>& b) {
  CollectivesDiff d;
  d.rowsA = a.size();
  d.rowsB = b.size();
  std::map<CollectiveKey, CollectiveDelta> rows;  // by key: the order of the lists
  for (const CollectiveStat& c : a) {
    d.aWaitUs += c.waitUs;
    CollectiveDelta& r = rows[keyOf(c)];
    r.a = r.b = c;
    r.inA = true;
  }
  for (const CollectiveStat& c : b) {
    d.bWaitUs += c.waitUs;
    CollectiveDelta& r = rows[keyOf(c)];
    if (!r.inA) r.a = c;
    r.b = c;
    r.inB = true;
  }
  for (auto& [key, r] : rows) {
    if (!r.inB) {
      d.vanished.push_back(r);
    } else if (!r.inA) {
      d.added.push_back(r);
    } else if (!sameCollective(r.a, r.b)) {
      ++d.changedRows;
      r.score = collectiveScore(r.a, r.b);
      if (r.score > 0) d.top.push_back(r);
    }
  }
  std::stable_sort(
      d.top.begin(), d.top.end(),
      [](const CollectiveDelta& x, const CollectiveDelta& y) { return x.score > y.score; });
  if (d.top.size() > kTopCollectives) d.top.resize(kTopCollectives);
  return d;
}

WaitsDiff diffWaits(const std::vector<RankWaits>& a, const std::vector<RankWaits>& b) {
  WaitsDiff d;
  for (const RankWaits& r : a) d.aWaitedUs += r.waitedUs, d.aCausedUs += r.causedUs;
  for (const RankWaits& r : b) d.bWaitedUs += r.waitedUs, d.bCausedUs += r.causedUs;
  size_t i = 0, j = 0;
  while (i < a.size() || j < b.size()) {
    if (j == b.size() || (i < a.size() && a[i].rank < b[j].rank)) {
      d.onlyA.push_back(a[i++].rank);
    } else if (i == a.size() || b[j].rank < a[i].rank) {
      d.onlyB.push_back(b[j++].rank);
    } else {
      const uint64_t move =
          std::max(absDiff(a[i].waitedUs, b[j].waitedUs), absDiff(a[i].causedUs, b[j].causedUs));
      d.all.push_back({a[i], b[j], move});
      ++i, ++j;
    }
  }
  for (size_t k = 0; k < d.all.size(); ++k) {
    if (d.all[k].moveUs > 0) d.moved.push_back(k);
    if (d.all[k].a.topCause != d.all[k].b.topCause) d.causeChanged.push_back(k);
  }
  std::stable_sort(d.moved.begin(), d.moved.end(),
                   [&](size_t x, size_t y) { return d.all[x].moveUs > d.all[y].moveUs; });
  return d;
}

namespace {

uint64_t perStep(uint64_t ns, uint64_t steps) { return steps == 0 ? 0 : ns / steps; }

// The kind of most of a rank's time on the path (ties: the first by name); "" for none.
std::string mainKind(const std::map<std::string, uint64_t>* kinds) {
  std::string best;
  uint64_t bestNs = 0;
  if (kinds)
    for (const auto& [kind, ns] : *kinds)
      if (ns > bestNs) best = kind, bestNs = ns;
  return best;
}

uint64_t sumOf(const std::map<std::string, uint64_t>* kinds) {
  uint64_t sum = 0;
  if (kinds)
    for (const auto& [kind, ns] : *kinds) (void)addSaturating(sum, ns);
  return sum;
}

template <class K, class V>
const V* find(const std::map<K, V>& m, const K& key) {
  auto it = m.find(key);
  return it == m.end() ? nullptr : &it->second;
}

}  // namespace

CriticalPathDiff diffCriticalPath(const CriticalPathTotals& a, const CriticalPathTotals& b) {
  CriticalPathDiff d;
  d.aSteps = a.steps;
  d.bSteps = b.steps;
  d.aNs = perStep(a.totalNs, a.steps);
  d.bNs = perStep(b.totalNs, b.steps);
  std::set<std::string> kinds;
  for (const auto* t : {&a, &b})
    for (const auto& [kind, ns] : t->kindNs) kinds.insert(kind);
  for (const std::string& kind : kinds) {
    const uint64_t* x = find(a.kindNs, kind);
    const uint64_t* y = find(b.kindNs, kind);
    d.kinds.push_back({kind, perStep(x ? *x : 0, a.steps), perStep(y ? *y : 0, b.steps)});
  }
  std::set<int64_t> ranks;
  for (const auto* t : {&a, &b})
    for (const auto& [rank, byKind] : t->rankKindNs) ranks.insert(rank);
  for (int64_t rank : ranks) {
    const auto* x = find(a.rankKindNs, rank);
    const auto* y = find(b.rankKindNs, rank);
    d.ranks.push_back(
        {rank, perStep(sumOf(x), a.steps), perStep(sumOf(y), b.steps), mainKind(x), mainKind(y)});
  }
  for (size_t k = 0; k < d.ranks.size(); ++k)
    if (d.ranks[k].aNs != d.ranks[k].bNs) d.moved.push_back(k);
  std::stable_sort(d.moved.begin(), d.moved.end(), [&](size_t x, size_t y) {
    return absDiff(d.ranks[x].aNs, d.ranks[x].bNs) > absDiff(d.ranks[y].aNs, d.ranks[y].bNs);
  });
  d.same = a.steps == b.steps && a.totalNs == b.totalNs && a.kindNs == b.kindNs &&
           a.rankKindNs == b.rankKindNs;
  return d;
}

Expected<KernelsDiff> diffKernels(const std::string& aPath, const std::string& bPath) {
  NameTable names;
  KernelsDiff k;
  Status st = sumKernels(aPath, false, names, k.saturatedSums);
  if (st) st = sumKernels(bPath, true, names, k.saturatedSums);
  if (!st) return st.error();
  k.top = topKernels(names, k);
  names.clear();
  st = rankKernels(aPath, bPath, k.top, k.saturatedSums);
  if (!st) return st.error();
  return k;
}

}  // namespace xstack
