#include "xstack/analysis/Findings.h"

#include <algorithm>
#include <cctype>
#include <cmath>
#include <cstddef>
#include <cstdio>
#include <functional>
#include <limits>
#include <map>
#include <string>
#include <string_view>
#include <tuple>
#include <vector>

#include "FindingParts.h"
#include "xstack/analysis/RoleFindings.h"
#include "xstack/core/CheckedMath.h"
#include "xstack/core/FileIdentity.h"

namespace xstack {
using namespace finding;  // NOLINT(google-build-using-namespace): this file's own parts
namespace {

// Find, exclude, re-estimate (estimateAndClassify): at most this many rounds.
constexpr int kMaxRounds = 8;
// The evidence says "same compute" within this part of the median rank's.
constexpr double kSameCompute = 0.02;


struct Cell {
  size_t table;  // index into tables
  const StepRow* row;
};

// Everything the findings need about one step, across ranks.
//
// The reference (the "median rank") is the step's cells that are not
// candidate stragglers (`excluded`): its medians and its spread (`sigma`)
// are over those cells only, so that several late ranks in one step neither
// move the median nor inflate the spread the rules compare against
// (estimateAndClassify: find, exclude, re-estimate).
struct StepView {
  int64_t step = 0;
  std::vector<Cell> cells;
  uint64_t medianStep = 0;        // over every cell: the job's step time
  uint64_t medianComputeAll = 0;  // over every cell: the heatmap's reference
  bool useArrival = false;        // every rank has a collective in this step
  std::vector<bool> excluded;     // per cell: a candidate straggler, not in the reference
  // Over the reference cells.
  uint64_t medianCompute = 0, medianHostIdle = 0, medianMemcpy = 0;
  int64_t medianLastComm = 0;  // when useArrival
  double sigma = 0;            // 1.4826 x MAD of last_comm (compute without collectives)
  std::vector<bool> slow;      // per cell: late (or slow, without collectives)
  int64_t latestFastProgress = 0;
  int64_t latestProgress = 0;
  int64_t medianProgress = 0;  // the reference's progress: 0 (its compute without collectives)
};

// How far the rank got, ns, larger = later: with collectives its lateness
// (the reference's median last collective minus its own: skew-free), else
// its compute time.
int64_t progressOf(const StepView& s, const StepRow& r) {
  return s.useArrival ? s.medianLastComm - r.lastCommNs : static_cast<int64_t>(r.computeNs);
}

uint64_t absDiff(uint64_t a, uint64_t b) { return a > b ? a - b : b - a; }

// 1.4826 x the median absolute deviation from `median` (ns).
double sigmaOf(const std::vector<uint64_t>& v, uint64_t median) {
  std::vector<uint64_t> dev;
  for (uint64_t x : v) dev.push_back(absDiff(x, median));
  return 1.4826 * static_cast<double>(medianOf(dev));
}

// The rule's value of a cell: its last collective's length, or its compute
// when the step has no collective on every rank.
uint64_t valueOf(const StepView& s, const StepRow& r) {
  return s.useArrival ? static_cast<uint64_t>(std::max<int64_t>(0, r.lastCommNs)) : r.computeNs;
}

// The medians over every cell (step time, heatmap); whether every rank has a
// collective. No cell excluded yet.
void stepMedians(StepView& s) {
  std::vector<uint64_t> compute, steps;
  s.useArrival = true;
  for (const Cell& c : s.cells) {
    compute.push_back(c.row->computeNs);
    steps.push_back(c.row->stepNs);
    s.useArrival = s.useArrival && c.row->arrivalNs >= 0 && c.row->lastCommNs >= 0;
  }
  s.medianComputeAll = medianOf(compute);
  s.medianStep = medianOf(steps);
  s.excluded.assign(s.cells.size(), false);
}

// The reference's medians and spread, over the cells not excluded.
void estimateReference(StepView& s) {
  std::vector<uint64_t> compute, host, memcpy, value;
  for (size_t i = 0; i < s.cells.size(); ++i) {
    if (s.excluded[i]) continue;
    const StepRow& r = *s.cells[i].row;
    compute.push_back(r.computeNs);
    host.push_back(r.hostIdleNs);
    memcpy.push_back(r.memcpyNs);
    value.push_back(valueOf(s, r));
  }
  s.medianCompute = medianOf(compute);
  s.medianHostIdle = medianOf(host);
  s.medianMemcpy = medianOf(memcpy);
  const uint64_t med = medianOf(value);
  s.medianLastComm = s.useArrival ? static_cast<int64_t>(med) : 0;
  s.sigma = sigmaOf(value, med);
  s.medianProgress = s.useArrival ? 0 : static_cast<int64_t>(s.medianCompute);
}

// Per cell: late at the last collective (or, without collectives, slow
// compute). `pooledSigma`: the job's sigma of last_comm (pooledLateSigma).
std::vector<bool> lateCells(const StepView& s, double pooledSigma) {
  std::vector<bool> late(s.cells.size(), false);
  if (s.cells.size() < 4) return late;
  const double m = static_cast<double>(s.medianCompute);
  for (size_t i = 0; i < s.cells.size(); ++i) {
    const StepRow& r = *s.cells[i].row;
    if (s.useArrival) {
      double lateNs = static_cast<double>(progressOf(s, r));
      late[i] = lateNs > 0 && lateNs >= std::max({5 * s.sigma, 5 * pooledSigma,
                                                  kStepFloor * static_cast<double>(s.medianStep)});
    } else {
      double threshold = m * std::max(1.05, 1 + (m > 0 ? 5 * s.sigma / m : 0));
      late[i] = m > 0 && static_cast<double>(r.computeNs) >= threshold;
    }
  }
  return late;
}

// 1.4826 x the median over every reference (rank, step) with collectives of
// |last_comm - the step's reference median|: the job's jitter, steadier than
// one step's MAD over a few ranks. 0 when no step has collectives on every
// rank. Needs estimateReference.
double pooledLateSigma(const std::vector<StepView>& views) {
  std::vector<uint64_t> dev;
  for (const StepView& s : views)
    if (s.useArrival)
      for (size_t i = 0; i < s.cells.size(); ++i)
        if (!s.excluded[i])
          dev.push_back(absDiff(static_cast<uint64_t>(s.cells[i].row->lastCommNs),
                                static_cast<uint64_t>(s.medianLastComm)));
  return 1.4826 * static_cast<double>(medianOf(dev));
}

// The latest progress of the step's cells, and of those not late (the
// reference's when every cell is late).
void updateProgress(StepView& s) {
  s.latestFastProgress = std::numeric_limits<int64_t>::min();
  s.latestProgress = std::numeric_limits<int64_t>::min();
  for (size_t i = 0; i < s.cells.size(); ++i) {
    const int64_t p = progressOf(s, *s.cells[i].row);
    s.latestProgress = std::max(s.latestProgress, p);
    if (!s.slow[i]) s.latestFastProgress = std::max(s.latestFastProgress, p);
  }
  if (s.latestFastProgress == std::numeric_limits<int64_t>::min())
    s.latestFastProgress = s.medianProgress;
}

int64_t lowerMedian(std::vector<int64_t> v) {
  std::sort(v.begin(), v.end());
  return v.empty() ? 0 : v[(v.size() - 1) / 2];
}

// A rank whose median lateness over its steps with collectives (at least 4
// of them, 4 ranks or more each) is >= max(3 sigma_job, kPersistentFloor of
// the job's median step time) is late in each of those steps where it
// arrives after the reference: a persistent straggler too small for one
// step's rule. Healthy uniform jitter +-a never reaches it (3 sigma_job =
// 2.2a > a).
void markPersistentLate(std::vector<StepView>& views, size_t tables, double pooledSigma,
                        uint64_t medianStepNs) {
  std::vector<std::vector<std::pair<size_t, size_t>>> cellsOf(tables);  // (view, cell)
  std::vector<std::vector<int64_t>> lateOf(tables);
  for (size_t v = 0; v < views.size(); ++v) {
    if (!views[v].useArrival || views[v].cells.size() < 4) continue;
    for (size_t i = 0; i < views[v].cells.size(); ++i) {
      cellsOf[views[v].cells[i].table].emplace_back(v, i);
      lateOf[views[v].cells[i].table].push_back(progressOf(views[v], *views[v].cells[i].row));
    }
  }
  const double floor =
      std::max(3 * pooledSigma, kPersistentFloor * static_cast<double>(medianStepNs));
  for (size_t t = 0; t < tables; ++t) {
    const int64_t med = lowerMedian(lateOf[t]);
    if (lateOf[t].size() < 4 || med <= 0 || static_cast<double>(med) < floor) continue;
    for (size_t k = 0; k < cellsOf[t].size(); ++k)
      if (lateOf[t][k] > 0) views[cellsOf[t][k].first].slow[cellsOf[t][k].second] = true;
  }
}

// The candidates to leave out of step `s`'s reference: its late cells, the
// latest first (ties: the lower table), at most (cells - 1) / 2 of them, so
// that the reference is always a majority of the step's ranks.
std::vector<bool> candidatesOf(const StepView& s) {
  std::vector<size_t> late;
  for (size_t i = 0; i < s.cells.size(); ++i)
    if (s.slow[i]) late.push_back(i);
  std::stable_sort(late.begin(), late.end(), [&](size_t x, size_t y) {
    return progressOf(s, *s.cells[x].row) > progressOf(s, *s.cells[y].row);
  });
  late.resize(std::min(late.size(), (s.cells.size() - 1) / 2));
  std::vector<bool> out(s.cells.size(), false);
  for (size_t i : late) out[i] = true;
  return out;
}

// Find, exclude, re-estimate: classify every cell against the reference of
// the cells not excluded (at first every cell), then leave the late cells
// out of the reference and classify again, until the excluded cells no
// longer change (at most kMaxRounds rounds). Several stragglers in one step
// would otherwise inflate its MAD and the job's sigma: 3 late ranks of 8
// make 5 sigma larger than two of them are late. Sets `slow`.
void estimateAndClassify(std::vector<StepView>& views, size_t tables, uint64_t medianStepNs) {
  for (int round = 1;; ++round) {
    for (StepView& v : views) estimateReference(v);
    const double pooledSigma = pooledLateSigma(views);
    for (StepView& v : views) v.slow = lateCells(v, pooledSigma);
    markPersistentLate(views, tables, pooledSigma, medianStepNs);
    if (round == kMaxRounds) return;
    std::vector<std::vector<bool>> next;
    bool changed = false;
    for (const StepView& v : views) {
      next.push_back(candidatesOf(v));
      changed = changed || next.back() != v.excluded;
    }
    if (!changed) return;
    for (size_t i = 0; i < views.size(); ++i) views[i].excluded = std::move(next[i]);
  }
}

}  // namespace

namespace finding {

uint64_t medianOf(std::vector<uint64_t> v) {
  if (v.empty()) return 0;
  size_t mid = v.size() / 2;
  std::nth_element(v.begin(), v.begin() + static_cast<std::ptrdiff_t>(mid), v.end());
  uint64_t hi = v[mid];
  if (v.size() % 2) return hi;
  uint64_t lo = *std::max_element(v.begin(), v.begin() + static_cast<std::ptrdiff_t>(mid));
  return lo + (hi - lo) / 2;
}

std::string rankList(const std::vector<int64_t>& ranks) {
  std::string s;
  for (size_t i = 0; i < ranks.size(); ++i) s += (i ? ", " : "") + std::to_string(ranks[i]);
  return s;
}

std::string fmt(const char* f, double v) {
  char buf[64];
  std::snprintf(buf, sizeof buf, f, v);
  return buf;
}

namespace {

bool containsLower(std::string s, std::string_view needle) {
  std::transform(s.begin(), s.end(), s.begin(),
                 [](unsigned char c) { return static_cast<char>(std::tolower(c)); });
  return s.find(needle) != std::string::npos;
}

}  // namespace

std::string hostOpKindOf(const std::string& name) {
  return containsLower(name, "dataloader") || containsLower(name, "data_loader") ? "data-loader op"
         : containsLower(name, "sync")                                           ? "sync"
                                                                                 : "CPU op";
}

bool coveredBy(const std::vector<int64_t>& ranks, const std::vector<Finding>& known) {
  for (const Finding& k : known)
    for (int64_t r : ranks)
      if (std::find(k.ranks.begin(), k.ranks.end(), r) != k.ranks.end()) return true;
  return false;
}

void nameTraceFiles(Finding& f, const Topology& topo, const std::string& traceSuffix) {
  for (int64_t r : f.ranks) {
    std::string name = "traceFile_" + std::to_string(topo.groupOf(r)) + "_" +
                       std::to_string(topo.gpuOf(r)) + traceSuffix;
    if (std::find(f.traceFiles.begin(), f.traceFiles.end(), name) == f.traceFiles.end())
      f.traceFiles.push_back(name);
  }
  std::sort(f.traceFiles.begin(), f.traceFiles.end());
}

std::vector<Group> groupByTrainer(std::map<size_t, std::vector<int64_t>> slowSteps,
                                  const std::vector<RankTable>& tables, const Topology& topo) {
  std::map<int64_t, int64_t> ranksOfTrainer;
  for (const RankTable& t : tables) ++ranksOfTrainer[topo.trainerOf(t.rank)];
  // (trainer, persistent, steps) -> group
  std::map<std::tuple<int64_t, bool, std::vector<int64_t>>, Group> byKey;
  for (auto& [table, steps] : slowSteps) {
    int64_t rank = tables[table].rank;
    bool persistent = steps.size() * 4 >= tables[table].steps.size() * 3;
    Group& g =
        byKey[{topo.trainerOf(rank), persistent, persistent ? std::vector<int64_t>{} : steps}];
    g.ranks.push_back(rank);
    g.tables.push_back(table);
    g.persistent = persistent;
    for (int64_t s : steps)
      if (std::find(g.steps.begin(), g.steps.end(), s) == g.steps.end()) g.steps.push_back(s);
  }
  std::vector<Group> groups;
  for (auto& [key, g] : byKey) {
    std::sort(g.steps.begin(), g.steps.end());
    int64_t trainer = std::get<0>(key);
    if (topo.gpusPerTrainer > 1 &&
        static_cast<int64_t>(g.ranks.size()) == ranksOfTrainer[trainer]) {
      g.trainer = trainer;
      groups.push_back(g);
      continue;
    }
    for (size_t i = 0; i < g.ranks.size(); ++i) {
      Group one;
      one.ranks = {g.ranks[i]};
      one.tables = {g.tables[i]};
      one.steps = slowSteps[g.tables[i]];
      one.persistent = g.persistent;
      groups.push_back(one);
    }
  }
  return groups;
}


}  // namespace finding

std::string formatMs(uint64_t ns) { return fmt("%.3f ms", static_cast<double>(ns) / 1e6); }

namespace {


// Sums over a finding's late cells (ns), and the gap ops' overlaps by name.
struct Evidence {
  uint64_t cells = 0;
  double ratioSum = 0, lateSum = 0, waitSum = 0;
  uint64_t compute = 0, computeMed = 0, host = 0, hostMed = 0, memcpy = 0, memcpyMed = 0;
  std::map<std::string, uint64_t> gapOps;   // name -> summed overlap
  std::vector<const StepView*> viewOfCell;  // the step of each late cell, in order
  bool held = false;                        // a sum above was held at 2^63 - 1
};

// One late cell of the finding into `e`.
void addCell(Evidence& e, const StepView& v, const StepRow& r, const RankTable& t) {
  e.ratioSum +=
      v.medianCompute ? static_cast<double>(r.computeNs) / static_cast<double>(v.medianCompute) : 0;
  addHeld(e.compute, r.computeNs, e.held);
  addHeld(e.computeMed, v.medianCompute, e.held);
  addHeld(e.host, r.hostIdleNs, e.held);
  addHeld(e.hostMed, v.medianHostIdle, e.held);
  addHeld(e.memcpy, r.memcpyNs, e.held);
  addHeld(e.memcpyMed, v.medianMemcpy, e.held);
  if (r.gapOp >= 0) addHeld(e.gapOps[t.gapOps[static_cast<size_t>(r.gapOp)]], r.gapOpNs, e.held);
  e.viewOfCell.push_back(&v);
  ++e.cells;
}

// Cost, lateness and waits of group `g` in step view `v` (its late cells into `e`).
uint64_t addStep(Evidence& e, const std::vector<size_t>& groupTables, const StepView& v,
                 const std::vector<RankTable>& tables) {
  int64_t latest = std::numeric_limits<int64_t>::min();
  uint64_t mineComm = 0, mine = 0;
  std::vector<uint64_t> othersComm;
  for (size_t i = 0; i < v.cells.size(); ++i) {
    const size_t table = v.cells[i].table;
    const bool ours = std::find(groupTables.begin(), groupTables.end(), table) != groupTables.end();
    const StepRow& r = *v.cells[i].row;
    if (ours && v.slow[i]) {
      latest = std::max(latest, progressOf(v, r));
      addCell(e, v, r, tables[table]);
      mineComm += r.commNs;
      ++mine;
    } else if (!v.slow[i]) {
      othersComm.push_back(r.commNs);
    }
  }
  if (mine == 0) return 0;
  e.lateSum += static_cast<double>(latest - v.medianProgress);
  uint64_t others = medianOf(othersComm), minePer = mineComm / mine;
  e.waitSum += others > minePer ? static_cast<double>(others - minePer) : 0.0;
  return static_cast<uint64_t>(std::max<int64_t>(0, latest - v.latestFastProgress));
}

uint64_t per(uint64_t sum, uint64_t n) { return n ? sum / n : 0; }
uint64_t excess(uint64_t a, uint64_t b) { return a > b ? a - b : 0; }


// The gap op's name of a cell ("" when none).
std::string_view gapOpName(const StepRow& r, const RankTable& t) {
  return r.gapOp >= 0 ? std::string_view(t.gapOps[static_cast<size_t>(r.gapOp)])
                      : std::string_view();
}

// How long the reference ("median rank") is in each of `names` in its GPU's
// longest idle gap, summed over the finding's late cells: per late cell, the
// median over the step's reference cells of their gap op's overlap when it
// has that name, else 0 (their longest gap is in another op, or none).
std::map<std::string, uint64_t, std::less<>> referenceGapOps(const Evidence& e,
                                                             const std::vector<RankTable>& tables) {
  std::map<std::string, uint64_t, std::less<>> sums;
  for (const auto& name : e.gapOps) sums[name.first] = 0;
  std::map<const StepView*, std::map<std::string_view, uint64_t>> perView;  // medians
  for (const StepView* v : e.viewOfCell) {
    auto [it, fresh] = perView.try_emplace(v);
    if (fresh) {
      size_t reference = 0;
      std::map<std::string_view, std::vector<uint64_t>> overlaps;
      for (size_t i = 0; i < v->cells.size(); ++i) {
        if (v->excluded[i]) continue;
        ++reference;
        const StepRow& r = *v->cells[i].row;
        const std::string_view name = gapOpName(r, tables[v->cells[i].table]);
        if (!name.empty() && sums.find(name) != sums.end()) overlaps[name].push_back(r.gapOpNs);
      }
      for (auto& [name, ns] : overlaps) {
        ns.resize(reference, 0);
        it->second[name] = medianOf(ns);
      }
    }
    for (const auto& [name, ns] : it->second) (void)addSaturating(sums.find(name)->second, ns);
  }
  return sums;
}

// The cause and its numbers from the evidence sums. For cause host, the gap
// op that explains the most of the extra idle time against the reference
// (its overlap on these ranks minus on the median rank), named when that is
// at least half the host excess.
void setCause(Finding& f, const Evidence& e, const std::vector<RankTable>& tables) {
  f.computeNs = per(e.compute, e.cells), f.computeMedianNs = per(e.computeMed, e.cells);
  f.hostIdleNs = per(e.host, e.cells), f.hostIdleMedianNs = per(e.hostMed, e.cells);
  f.memcpyNs = per(e.memcpy, e.cells), f.memcpyMedianNs = per(e.memcpyMed, e.cells);
  const uint64_t c = excess(f.computeNs, f.computeMedianNs),
                 h = excess(f.hostIdleNs, f.hostIdleMedianNs),
                 m = excess(f.memcpyNs, f.memcpyMedianNs);
  // Kernels longer by at least half the lateness: compute, whatever the host did.
  const bool computeExplains = c > 0 && 2 * c >= f.lateNs;
  f.cause = computeExplains || (c >= h && c >= m && c > 0) ? "compute" : m > h ? "memcpy" : "host";
  if (f.cause != "host" || e.gapOps.empty()) return;
  const auto reference = referenceGapOps(e, tables);
  const std::string* best = nullptr;
  uint64_t bestExcess = 0, bestMine = 0;
  for (const auto& [name, mine] : e.gapOps) {  // by name: ties keep the first
    const uint64_t x = excess(mine, reference.at(name));
    if (best == nullptr || x > bestExcess || (x == bestExcess && mine > bestMine))
      best = &name, bestExcess = x, bestMine = mine;
  }
  // The op must explain the extra idle time, not be what every rank does.
  if (bestExcess == 0 || per(bestExcess, e.cells) * 2 < h) return;
  f.hostOp = *best;
  f.hostOpNs = per(bestMine, e.cells);
  f.hostOpMedianNs = per(reference.at(*best), e.cells);
  f.hostOpKind = hostOpKindOf(*best);
}

std::string listOf(const std::vector<std::string>& v) {
  std::string s;
  for (size_t i = 0; i < v.size(); ++i) s += (i ? ", " : "") + v[i];
  return s;
}

std::string whoOf(const Finding& f, const Topology& topo) {
  if (f.trainer >= 0)
    return topo.trainerWho(f.trainer) + " (ranks " + rankList(f.ranks) + ", all its " +
           std::to_string(f.ranks.size()) + " GPUs)";
  return topo.rankWho(f.ranks[0]);
}

// "x ms per step against y ms on the median rank".
std::string against(uint64_t mine, uint64_t median) {
  return formatMs(mine) + " per step against " + formatMs(median) + " on the median rank";
}

// "(same compute: a vs b)" when the finding's compute is within
// kSameCompute of the median rank's, else "(compute a against b on the median rank)".
std::string computeAside(const Finding& f) {
  const bool same = static_cast<double>(absDiff(f.computeNs, f.computeMedianNs)) <=
                    kSameCompute * static_cast<double>(f.computeMedianNs);
  return same ? "(same compute: " + formatMs(f.computeNs) + " vs " + formatMs(f.computeMedianNs) +
                    ")"
              : "(compute " + formatMs(f.computeNs) + " against " + formatMs(f.computeMedianNs) +
                    " on the median rank)";
}

std::string causeText(const Finding& f) {
  const bool node = f.trainer >= 0;
  if (f.cause == "compute")
    return std::string(node ? "they compute " : "it computes ") + fmt("%.2fx", f.computeRatio) +
           " the step median (" + against(f.computeNs, f.computeMedianNs) + ")";
  if (f.cause == "memcpy")
    return std::string(node ? "their" : "its") + " copies take " +
           against(f.memcpyNs, f.memcpyMedianNs) + " " + computeAside(f);
  std::string t = std::string(node ? "their GPUs idle " : "its GPU idles ") +
                  against(f.hostIdleNs, f.hostIdleMedianNs) +
                  " before the collective: launches come late " + computeAside(f);
  if (!f.hostOp.empty())
    t += "; the host is in " + f.hostOpKind + " '" + f.hostOp + "' for " + formatMs(f.hostOpNs) +
         " per step (" + formatMs(f.hostOpMedianNs) + " on the median rank)";
  else
    t += "; no single host op explains it";
  return t;
}

std::string evidenceOf(const Finding& f, const Topology& topo, int64_t otherRanks, bool arrival) {
  const size_t nSteps = f.steps.size();
  const bool node = f.trainer >= 0;
  std::string when =
      f.allSteps ? "in " + std::to_string(nSteps) + "/" + std::to_string(f.stepsOfRank) + " steps"
                 : (nSteps == 1 ? "in step " : "in steps ") + rankList(f.steps);
  std::string late = arrival ? std::string(node ? " reach" : " reaches") + " the last collective "
                             : std::string(node ? " finish" : " finishes") + " computing ";
  return whoOf(f, topo) + late + formatMs(f.lateNs) + " after the median rank " + when +
         "; cause " + f.cause + ": " + causeText(f) + "; the other " +
         std::to_string(std::max<int64_t>(0, otherRanks)) + " ranks wait " +
         formatMs(f.othersWaitNs) + " per step in collectives; costs " + formatMs(f.costNs) + " (" +
         fmt("%.1f", 100 * f.score) + " % of step time)";
}

// Cost, cause and evidence of one finding from its group's late cells.
Finding describe(const Group& g, const std::vector<StepView>& views,
                 const std::map<int64_t, size_t>& viewOfStep, const std::vector<RankTable>& tables,
                 const Topology& topo, uint64_t jobStepNs, const std::string& traceSuffix) {
  Finding f;
  f.kind = "straggler";
  f.ranks = g.ranks;
  f.steps = g.steps;
  f.allSteps = g.persistent;
  f.trainer = g.trainer;
  if (f.trainer >= 0) f.node = topo.nodeOf(topo.rankOf(f.trainer, 0));
  f.stepsOfRank = static_cast<int64_t>(tables[g.tables[0]].steps.size());
  Evidence e;
  bool arrival = true;
  for (int64_t step : g.steps) {
    const StepView& v = views[viewOfStep.at(step)];
    addHeld(f.costNs, addStep(e, g.tables, v, tables), f.saturatedSum);
    arrival = arrival && v.useArrival;
  }
  const auto nSteps = static_cast<double>(g.steps.size());
  f.computeRatio = e.cells ? e.ratioSum / static_cast<double>(e.cells) : 0;
  f.othersWaitNs = nSteps > 0 ? static_cast<uint64_t>(e.waitSum / nSteps) : 0;
  f.lateNs = nSteps > 0 ? static_cast<uint64_t>(std::max(0.0, e.lateSum / nSteps)) : 0;
  f.score = jobStepNs ? static_cast<double>(f.costNs) / static_cast<double>(jobStepNs) : 0;
  f.saturatedSum = f.saturatedSum || e.held;
  setCause(f, e, tables);
  const int64_t others = static_cast<int64_t>(views.empty() ? 0 : views[0].cells.size()) -
                         static_cast<int64_t>(g.ranks.size());
  nameTraceFiles(f, topo, traceSuffix);
  f.evidenceInTrace = evidenceOf(f, topo, others, arrival);
  f.evidence = f.evidenceInTrace + "; see " + listOf(f.traceFiles);
  return f;
}

std::vector<Group> groupSlowRanks(const std::vector<StepView>& views,
                                  const std::vector<RankTable>& tables, const Topology& topo) {
  std::map<size_t, std::vector<int64_t>> slowSteps;  // table -> steps
  for (const StepView& v : views)
    for (size_t i = 0; i < v.cells.size(); ++i)
      if (v.slow[i]) slowSteps[v.cells[i].table].push_back(v.step);
  return groupByTrainer(slowSteps, tables, topo);
}

// The kernels in the top lists of >= 2 ranks, by digest (names need not be
// known: rank 0 gets digests), the most spread first.
std::vector<KernelSpread> kernelSpreadOf(const std::vector<RankTable>& tables) {
  struct PerKernel {
    std::string name;                             // the first rank's (empty without names)
    std::vector<std::pair<uint64_t, int64_t>> v;  // (ns, rank)
  };
  std::map<uint64_t, PerKernel> perKernel;  // digest -> totals
  for (const RankTable& t : tables)
    for (const KernelTotal& k : t.kernels) {
      if (!k.name.empty() && kernelCategoryOf(k.name, 0) == KernelCategory::Comm) continue;
      PerKernel& p = perKernel[k.name.empty() ? k.nameDigest : digestOf(k.name)];
      if (p.v.empty()) p.name = k.name;
      p.v.emplace_back(k.ns, t.rank);
    }
  std::vector<KernelSpread> out;
  for (auto& [digest, p] : perKernel) {
    if (p.v.size() < 2) continue;
    std::vector<uint64_t> ns;
    for (auto& x : p.v) ns.push_back(x.first);
    auto slowest = std::max_element(p.v.begin(), p.v.end(), [](const auto& x, const auto& y) {
      return x.first != y.first ? x.first < y.first : x.second > y.second;
    });
    out.push_back({std::move(p.name), digest, medianOf(ns), slowest->first, slowest->second,
                   static_cast<int64_t>(p.v.size())});
  }
  orderKernelSpread(out);
  const bool named = std::all_of(out.begin(), out.end(), [](auto& k) { return !k.name.empty(); });
  out.resize(named ? std::min(out.size(), kKernelSpreadShown) : kernelSpreadCut(out));
  return out;
}

// The ranks without steps, and per step the ranks with steps that lack it.
void addStepGaps(JobAnalysis& a, const std::vector<RankTable>& tables,
                 const std::vector<StepView>& views) {
  std::vector<int64_t> withSteps;
  for (const RankTable& t : tables)
    (t.steps.empty() ? a.ranksWithoutSteps : withSteps).push_back(t.rank);
  for (const StepView& v : views) {
    if (v.cells.size() == withSteps.size()) continue;
    std::vector<int64_t> lacking;
    for (int64_t r : withSteps) {
      const bool has = std::any_of(v.cells.begin(), v.cells.end(),
                                   [&](const Cell& c) { return tables[c.table].rank == r; });
      if (!has) lacking.push_back(r);
    }
    a.stepGaps.emplace_back(v.step, std::move(lacking));
  }
}

void addSideTables(JobAnalysis& a, const std::vector<RankTable>& tables,
                   const std::vector<StepView>& views) {
  for (const RankTable& t : tables) a.memoryPeaks.emplace_back(t.rank, t.gpuMemoryPeakBytes);
  a.kernelSpread = kernelSpreadOf(tables);
  std::vector<uint64_t> peaks;
  for (auto& p : a.memoryPeaks) peaks.push_back(p.second);
  a.memoryPeakMedian = medianOf(peaks);
  std::sort(a.memoryPeaks.begin(), a.memoryPeaks.end(), [](const auto& x, const auto& y) {
    return x.second != y.second ? x.second > y.second : x.first < y.first;
  });
  for (const StepView& v : views)
    a.stepVariation.push_back(
        {v.step, v.medianStep,
         a.medianStepNs ? static_cast<double>(v.medianStep) / static_cast<double>(a.medianStepNs)
                        : 0});
  std::stable_sort(a.stepVariation.begin(), a.stepVariation.end(),
                   [](const auto& x, const auto& y) {
                     return std::fabs(x.relative - 1) > std::fabs(y.relative - 1);
                   });
  if (a.stepVariation.size() > 5) a.stepVariation.resize(5);
}

// The role and network rules' findings (RoleFindings.h) after the step
// rule's, for ranks it did not name; a network finding first, so that a
// slow node's ranks are not also named for what its transfers did.
void addBoardFindings(std::vector<Finding>& found, const std::vector<RankTable>& tables,
                      const Topology& topo, const JobBoard& board,
                      const std::vector<StepView>& views, uint64_t jobStepNs,
                      const std::string& traceSuffix) {
  for (Finding& f : networkFindings(tables, topo, board, jobStepNs, traceSuffix))
    if (!coveredBy(f.ranks, found)) found.push_back(std::move(f));
  std::map<int64_t, uint64_t> stepMedian;
  for (const StepView& v : views) stepMedian[v.step] = v.medianStep;
  for (Finding& f : roleFindings(tables, topo, board, stepMedian, jobStepNs, found)) {
    nameTraceFiles(f, topo, traceSuffix);
    f.evidence = f.evidenceInTrace + "; see " + listOf(f.traceFiles);
    found.push_back(std::move(f));
  }
  for (Finding& f : found)
    if (f.evidence.empty()) f.evidence = f.evidenceInTrace + "; see " + listOf(f.traceFiles);
}

}  // namespace

uint64_t spreadOf(const KernelSpread& k) { return k.slowestNs - k.medianNs; }

size_t kernelSpreadCut(const std::vector<KernelSpread>& v) {
  size_t n = std::min(v.size(), kKernelSpreadShown);
  while (n > 0 && n < v.size() && spreadOf(v[n]) == spreadOf(v[n - 1])) ++n;
  return n;
}

void orderKernelSpread(std::vector<KernelSpread>& v) {
  std::sort(v.begin(), v.end(), [](const KernelSpread& x, const KernelSpread& y) {
    const uint64_t dx = spreadOf(x), dy = spreadOf(y);
    if (dx != dy) return dx > dy;
    return x.name != y.name ? x.name < y.name : x.nameDigest < y.nameDigest;
  });
}

JobAnalysis analyzeJob(const std::vector<RankTable>& tables, const Topology& topo,
                       const std::string& traceSuffix, const JobBoard& board) {
  JobAnalysis a;
  a.ranks = static_cast<int64_t>(tables.size());
  std::map<int64_t, size_t> viewOfStep;
  std::vector<StepView> views;
  std::vector<uint64_t> cat[5];
  for (size_t t = 0; t < tables.size(); ++t)
    for (const StepRow& r : tables[t].steps) {
      auto [it, fresh] = viewOfStep.emplace(r.step, views.size());
      if (fresh) {
        views.emplace_back();
        views.back().step = r.step;
      }
      views[it->second].cells.push_back({t, &r});
      uint64_t v[5] = {r.computeNs, r.commNs, r.memcpyNs, r.idleNs, r.overlapNs};
      for (int k = 0; k < 5; ++k) cat[k].push_back(v[k]);
    }
  std::sort(views.begin(), views.end(), [](auto& x, auto& y) { return x.step < y.step; });
  for (size_t i = 0; i < views.size(); ++i) viewOfStep[views[i].step] = i;
  a.steps = static_cast<int64_t>(views.size());
  std::vector<uint64_t> medians;
  bool jobHeld = false, idealHeld = false;
  for (StepView& v : views) {
    stepMedians(v);
    medians.push_back(v.medianStep);
    addHeld(a.jobStepNs, v.medianStep, jobHeld);
    a.stepComputeMedian.push_back(v.medianComputeAll);
  }
  a.medianStepNs = medianOf(medians);
  estimateAndClassify(views, tables.size(), a.medianStepNs);
  for (StepView& v : views) {
    updateProgress(v);
    addHeld(a.idealSavingNs,
            static_cast<uint64_t>(std::max<int64_t>(0, v.latestProgress - v.latestFastProgress)),
            idealHeld);
  }
  for (int k = 0; k < 5; ++k) a.breakdownNs[k] = medianOf(cat[k]);
  if (!medians.empty()) {
    a.minStepNs = *std::min_element(medians.begin(), medians.end());
    a.maxStepNs = *std::max_element(medians.begin(), medians.end());
  }
  std::vector<Finding> found;
  for (const Group& g : groupSlowRanks(views, tables, topo))
    found.push_back(describe(g, views, viewOfStep, tables, topo, a.jobStepNs, traceSuffix));
  const size_t stepRule = found.size();
  addBoardFindings(found, tables, topo, board, views, a.jobStepNs, traceSuffix);
  for (size_t i = stepRule; i < found.size(); ++i)
    addHeld(a.idealSavingNs, found[i].costNs, idealHeld);
  a.saturatedSums = static_cast<uint64_t>(jobHeld) + static_cast<uint64_t>(idealHeld);
  for (const Finding& f : found) a.saturatedSums += static_cast<uint64_t>(f.saturatedSum);
  addStepGaps(a, tables, views);
  for (Finding& f : found) (f.score >= kMinScore ? a.findings : a.belowThreshold).push_back(std::move(f));
  for (auto* list : {&a.findings, &a.belowThreshold})
    std::sort(list->begin(), list->end(), [](const Finding& x, const Finding& y) {
      return x.costNs != y.costNs ? x.costNs > y.costNs : x.ranks < y.ranks;
    });
  addSideTables(a, tables, views);
  return a;
}

}  // namespace xstack
