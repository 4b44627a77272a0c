#include "xstack/analysis/Findings.h"

#include <algorithm>
#include <cmath>
#include <cstddef>
#include <cstdio>
#include <map>
#include <tuple>

namespace xstack {
namespace {

uint64_t medianOf(std::vector<uint64_t> v) {
  if (v.empty()) return 0;
  size_t mid = v.size() / 2;
  std::nth_element(v.begin(), v.begin() + static_cast<std::ptrdiff_t>(mid), v.end());
  uint64_t hi = v[mid];
  if (v.size() % 2) return hi;
  uint64_t lo = *std::max_element(v.begin(), v.begin() + static_cast<std::ptrdiff_t>(mid));
  return lo + (hi - lo) / 2;
}

struct Cell {
  size_t table;  // index into tables
  const StepRow* row;
};

// Everything the findings need about one step, across ranks.
struct StepView {
  int64_t step = 0;
  std::vector<Cell> cells;
  uint64_t medianCompute = 0, medianStep = 0;
  bool useArrival = false;  // every rank has a collective in this step
  std::vector<bool> slow;   // per cell
  int64_t latestFastProgress = 0;
  int64_t latestProgress = 0;
  int64_t medianProgress = 0;
};

int64_t progressOf(const StepView& s, const StepRow& r) {
  return s.useArrival ? r.arrivalNs : static_cast<int64_t>(r.computeNs);
}

void classifyStep(StepView& s) {
  std::vector<uint64_t> compute, steps;
  s.useArrival = true;
  for (const Cell& c : s.cells) {
    compute.push_back(c.row->computeNs);
    steps.push_back(c.row->stepNs);
    s.useArrival = s.useArrival && c.row->arrivalNs >= 0;
  }
  s.medianCompute = medianOf(compute);
  s.medianStep = medianOf(steps);
  std::vector<uint64_t> dev;
  for (uint64_t v : compute)
    dev.push_back(v > s.medianCompute ? v - s.medianCompute : s.medianCompute - v);
  double sigma = 1.4826 * static_cast<double>(medianOf(dev));
  double med = static_cast<double>(s.medianCompute);
  double threshold = med * std::max(1.05, 1 + (med > 0 ? 5 * sigma / med : 0));
  std::vector<uint64_t> progress;
  for (const Cell& c : s.cells)
    progress.push_back(static_cast<uint64_t>(std::max<int64_t>(0, progressOf(s, *c.row))));
  s.medianProgress = static_cast<int64_t>(medianOf(progress));
  s.slow.assign(s.cells.size(), false);
  s.latestFastProgress = 0;
  s.latestProgress = 0;
  for (size_t i = 0; i < s.cells.size(); ++i) {
    const StepRow& r = *s.cells[i].row;
    s.slow[i] = s.cells.size() >= 4 && med > 0 && static_cast<double>(r.computeNs) >= threshold &&
                progressOf(s, r) >= s.medianProgress;
    s.latestProgress = std::max(s.latestProgress, progressOf(s, r));
    if (!s.slow[i]) s.latestFastProgress = std::max(s.latestFastProgress, progressOf(s, r));
  }
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

}  // namespace

std::string formatMs(uint64_t ns) { return fmt("%.3f ms", static_cast<double>(ns) / 1e6); }

namespace {

struct Group {
  std::vector<int64_t> ranks;
  std::vector<size_t> tables;
  std::vector<int64_t> steps;
  bool persistent = false;
  int64_t trainer = -1;
};

// Cost, ratios and evidence of one finding from its group's slow cells.
Finding describe(const Group& g, const std::vector<StepView>& views,
                 const std::map<int64_t, size_t>& viewOfStep, const std::vector<RankTable>& tables,
                 const Topology& topo, uint64_t jobStepNs) {
  Finding f;
  f.kind = "straggler";
  f.ranks = g.ranks;
  f.steps = g.steps;
  f.allSteps = g.persistent;
  f.trainer = g.trainer;
  f.stepsOfRank = static_cast<int64_t>(tables[g.tables[0]].steps.size());
  double ratioSum = 0, lateSum = 0, waitSum = 0;
  uint64_t computeSum = 0, medianSum = 0;
  int64_t cells = 0;
  for (int64_t step : g.steps) {
    const StepView& v = views[viewOfStep.at(step)];
    int64_t latest = 0;
    uint64_t mineComm = 0, mine = 0;
    std::vector<uint64_t> othersComm;
    for (size_t i = 0; i < v.cells.size(); ++i) {
      bool ours = std::find(g.tables.begin(), g.tables.end(), v.cells[i].table) != g.tables.end();
      const StepRow& r = *v.cells[i].row;
      if (ours && v.slow[i]) {
        latest = std::max(latest, progressOf(v, r));
        ratioSum += static_cast<double>(r.computeNs) / static_cast<double>(v.medianCompute);
        computeSum += r.computeNs;
        medianSum += v.medianCompute;
        mineComm += r.commNs;
        ++mine;
        ++cells;
      } else if (!v.slow[i]) {
        othersComm.push_back(r.commNs);
      }
    }
    if (mine == 0) continue;
    f.costNs += static_cast<uint64_t>(std::max<int64_t>(0, latest - v.latestFastProgress));
    lateSum += static_cast<double>(latest - v.medianProgress);
    uint64_t others = medianOf(othersComm), minePer = mineComm / mine;
    waitSum += others > minePer ? static_cast<double>(others - minePer) : 0.0;
  }
  size_t nSteps = g.steps.size();
  f.computeRatio = cells ? ratioSum / static_cast<double>(cells) : 0;
  f.othersWaitNs = nSteps ? static_cast<uint64_t>(waitSum / static_cast<double>(nSteps)) : 0;
  f.score = jobStepNs ? static_cast<double>(f.costNs) / static_cast<double>(jobStepNs) : 0;
  int64_t r0 = g.ranks[0];
  std::string who = g.trainer >= 0
                        ? "trainer " + std::to_string(g.trainer) + " (ranks " + rankList(g.ranks) +
                              ", all its " + std::to_string(g.ranks.size()) + " GPUs)"
                        : "rank " + std::to_string(r0) + " (trainer " +
                              std::to_string(topo.trainerOf(r0)) + ", gpu " +
                              std::to_string(topo.gpuOf(r0)) + ")";
  std::string when =
      g.persistent ? "in " + std::to_string(nSteps) + "/" + std::to_string(f.stepsOfRank) + " steps"
                   : (nSteps == 1 ? "in step " : "in steps ") + rankList(g.steps);
  int64_t others = static_cast<int64_t>(views.empty() ? 0 : views[0].cells.size()) -
                   static_cast<int64_t>(g.ranks.size());
  f.evidence =
      who + (g.trainer >= 0 ? " compute " : " computes ") + fmt("%.2fx", f.computeRatio) +
      " the step median (" + formatMs(cells ? computeSum / static_cast<uint64_t>(cells) : 0) +
      " vs " + formatMs(cells ? medianSum / static_cast<uint64_t>(cells) : 0) + ") " + when +
      " and reach" + (g.trainer >= 0 ? "" : "es") + " the last collective " +
      formatMs(nSteps ? static_cast<uint64_t>(std::max(0.0, lateSum / static_cast<double>(nSteps)))
                      : 0) +
      " after the median rank; the other " + std::to_string(std::max<int64_t>(0, others)) +
      " ranks wait " + formatMs(f.othersWaitNs) + " per step in collectives; costs " +
      fmt("%.3f s", static_cast<double>(f.costNs) / 1e9) + " (" + fmt("%.1f", 100 * f.score) +
      " % of step time)";
  return f;
}

std::vector<Group> groupSlowRanks(const std::vector<StepView>& views,
                                  const std::vector<RankTable>& tables, const Topology& topo) {
  std::map<size_t, std::vector<int64_t>> slowSteps;  // table -> steps
  for (const StepView& v : views)
    for (size_t i = 0; i < v.cells.size(); ++i)
      if (v.slow[i]) slowSteps[v.cells[i].table].push_back(v.step);
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

void addSideTables(JobAnalysis& a, const std::vector<RankTable>& tables,
                   const std::vector<StepView>& views) {
  std::map<std::string, std::vector<std::pair<uint64_t, int64_t>>> perName;  // name -> (ns, rank)
  for (const RankTable& t : tables) {
    for (const KernelTotal& k : t.kernels)
      if (kernelCategoryOf(k.name, 0) != KernelCategory::Comm)
        perName[k.name].emplace_back(k.ns, t.rank);
    a.memoryPeaks.emplace_back(t.rank, t.gpuMemoryPeakBytes);
  }
  for (auto& [name, v] : perName) {
    if (v.size() < 2) continue;
    std::vector<uint64_t> ns;
    for (auto& p : v) ns.push_back(p.first);
    auto slowest = std::max_element(v.begin(), v.end(), [](const auto& x, const auto& y) {
      return x.first != y.first ? x.first < y.first : x.second > y.second;
    });
    a.kernelSpread.push_back(
        {name, medianOf(ns), slowest->first, slowest->second, static_cast<int64_t>(v.size())});
  }
  std::sort(a.kernelSpread.begin(), a.kernelSpread.end(), [](const auto& x, const auto& y) {
    uint64_t dx = x.slowestNs - x.medianNs, dy = y.slowestNs - y.medianNs;
    return dx != dy ? dx > dy : x.name < y.name;
  });
  if (a.kernelSpread.size() > 8) a.kernelSpread.resize(8);
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

}  // namespace

JobAnalysis analyzeJob(const std::vector<RankTable>& tables, const Topology& topo) {
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
  for (StepView& v : views) {
    classifyStep(v);
    medians.push_back(v.medianStep);
    a.jobStepNs += v.medianStep;
    a.stepComputeMedian.push_back(v.medianCompute);
    a.idealSavingNs +=
        static_cast<uint64_t>(std::max<int64_t>(0, v.latestProgress - v.latestFastProgress));
  }
  for (int k = 0; k < 5; ++k) a.breakdownNs[k] = medianOf(cat[k]);
  a.medianStepNs = medianOf(medians);
  if (!medians.empty()) {
    a.minStepNs = *std::min_element(medians.begin(), medians.end());
    a.maxStepNs = *std::max_element(medians.begin(), medians.end());
  }
  for (const Group& g : groupSlowRanks(views, tables, topo))
    a.findings.push_back(describe(g, views, viewOfStep, tables, topo, a.jobStepNs));
  std::sort(a.findings.begin(), a.findings.end(), [](const Finding& x, const Finding& y) {
    return x.costNs != y.costNs ? x.costNs > y.costNs : x.ranks < y.ranks;
  });
  addSideTables(a, tables, views);
  return a;
}

}  // namespace xstack
