// The findings of jobs with many collectives in several process groups
// (docs/ANALYSIS.md "Role rule", "Network rule"): a rank against the median
// of the ranks with its role (RankInfo::role: the same collectives), and a
// node whose cross-node transfers are slower than the same transfers
// elsewhere. Rank 0, from the step tables and the collectives' summary.
#include "xstack/analysis/RoleFindings.h"

#include <algorithm>
#include <array>
#include <cmath>
#include <map>
#include <tuple>

#include "FindingParts.h"
#include "xstack/core/CheckedMath.h"

namespace xstack {

using namespace finding;  // NOLINT(google-build-using-namespace): the rules' shared parts

namespace {

// What a rank's GPU did in a step that others may wait for: compute, idle
// (the GPU waits for its host) and memcpy ns (steps.csv's columns).
enum Metric : size_t { kCompute = 0, kIdle = 1, kMemcpy = 2 };
constexpr size_t kMetrics = 3;
using Values = std::array<uint64_t, kMetrics>;

Values valuesOf(const StepRow& r) { return {r.computeNs, r.idleNs, r.memcpyNs}; }

// A (rank, step) of a role: its values and its role's medians of the step.
struct RoleCell {
  size_t table = 0;
  const StepRow* row = nullptr;
  Values median{};
  bool slow = false;
};

int64_t excessOf(const RoleCell& c, Metric m) {
  return static_cast<int64_t>(valuesOf(*c.row)[m]) - static_cast<int64_t>(c.median[m]);
}

// The positive excess of a slow cell over its role's medians, summed (ns).
// Held at 2^63 - 1 (core/CheckedMath.h; `held` set when it was).
uint64_t lateOf(const RoleCell& c, bool& held) {
  uint64_t sum = 0;
  for (Metric m : {kCompute, kIdle, kMemcpy})
    addHeld(sum, static_cast<uint64_t>(std::max<int64_t>(0, excessOf(c, m))), held);
  return sum;
}

// The tables of each role with at least kMinRole ranks (a median needs a majority).
constexpr size_t kMinRole = 3;

std::vector<std::vector<size_t>> rolesOf(const std::vector<RankTable>& tables,
                                         const std::vector<RankInfo>& ranks) {
  std::map<int64_t, uint64_t> roleOfRank;
  for (const RankInfo& r : ranks) roleOfRank[r.rank] = r.role;
  std::map<uint64_t, std::vector<size_t>> byRole;
  for (size_t t = 0; t < tables.size(); ++t) {
    auto it = roleOfRank.find(tables[t].rank);
    byRole[it == roleOfRank.end() ? 0 : it->second].push_back(t);
  }
  std::vector<std::vector<size_t>> out;
  for (auto& [role, members] : byRole)
    if (members.size() >= kMinRole) out.push_back(std::move(members));
  return out;
}

// The cells of one role, with their step medians and slow flags. A cell is
// slow when one metric's excess over the role's step median is at least
// max(5 sigma of that metric over the role's cells, kStepFloor of the job's
// median step time of that step).
std::vector<RoleCell> classifyRole(const std::vector<size_t>& members,
                                   const std::vector<RankTable>& tables,
                                   const std::map<int64_t, uint64_t>& stepMedian) {
  std::vector<RoleCell> cells;
  std::map<int64_t, std::vector<size_t>> byStep;  // step -> cell indexes
  for (size_t t : members)
    for (const StepRow& r : tables[t].steps) {
      byStep[r.step].push_back(cells.size());
      cells.push_back({t, &r, {}, false});
    }
  for (auto& [step, idx] : byStep)
    for (size_t m = 0; m < kMetrics; ++m) {
      std::vector<uint64_t> v;
      for (size_t i : idx) v.push_back(valuesOf(*cells[i].row)[m]);
      const uint64_t med = medianOf(v);
      for (size_t i : idx) cells[i].median[m] = med;
    }
  for (Metric m : {kCompute, kIdle, kMemcpy}) {
    std::vector<uint64_t> dev;
    for (const RoleCell& c : cells)
      dev.push_back(static_cast<uint64_t>(std::llabs(excessOf(c, m))));
    const double sigma = 1.4826 * static_cast<double>(medianOf(dev));
    for (RoleCell& c : cells) {
      const auto it = stepMedian.find(c.row->step);
      const double floor =
          kStepFloor * static_cast<double>(it == stepMedian.end() ? 0 : it->second);
      const auto x = static_cast<double>(excessOf(c, m));
      c.slow = c.slow || (x > 0 && x >= std::max(5 * sigma, floor));
    }
  }
  return cells;
}

// Sums over a finding's slow cells.
struct RoleEvidence {
  uint64_t cells = 0;
  Values mine{}, median{};
  uint64_t late = 0;
  std::map<std::string, std::pair<uint64_t, uint64_t>> gapOps;  // name -> (mine, role's median)
  std::map<int64_t, uint64_t> latestOfStep;                     // step -> max late of its ranks
  // A sum above was held at 2^63 - 1.
  bool held = false;
};

// The median over the role's cells of step `step` of their gap op's
// overlap when it is `name` (else 0).
uint64_t roleGapOp(const std::vector<RoleCell>& cells, const std::vector<RankTable>& tables,
                   int64_t step, const std::string& name) {
  std::vector<uint64_t> v;
  for (const RoleCell& c : cells) {
    if (c.row->step != step) continue;
    const RankTable& t = tables[c.table];
    const bool same = c.row->gapOp >= 0 && t.gapOps[static_cast<size_t>(c.row->gapOp)] == name;
    v.push_back(same ? c.row->gapOpNs : 0);
  }
  return medianOf(v);
}

RoleEvidence evidenceOf(const Group& g, const std::vector<RoleCell>& cells,
                        const std::vector<RankTable>& tables) {
  RoleEvidence e;
  for (const RoleCell& c : cells) {
    if (!c.slow || std::find(g.tables.begin(), g.tables.end(), c.table) == g.tables.end()) continue;
    if (std::find(g.steps.begin(), g.steps.end(), c.row->step) == g.steps.end()) continue;
    ++e.cells;
    const Values v = valuesOf(*c.row);
    for (size_t m = 0; m < kMetrics; ++m) {
      addHeld(e.mine[m], v[m], e.held);
      addHeld(e.median[m], c.median[m], e.held);
    }
    const uint64_t late = lateOf(c, e.held);
    addHeld(e.late, late, e.held);
    uint64_t& latest = e.latestOfStep[c.row->step];
    latest = std::max(latest, late);
    if (c.row->gapOp >= 0) {
      const std::string& name = tables[c.table].gapOps[static_cast<size_t>(c.row->gapOp)];
      auto& [mine, median] = e.gapOps[name];
      addHeld(mine, c.row->gapOpNs, e.held);
      addHeld(median, roleGapOp(cells, tables, c.row->step, name), e.held);
    }
  }
  return e;
}

uint64_t per(uint64_t sum, uint64_t n) { return n ? sum / n : 0; }
uint64_t excess(uint64_t a, uint64_t b) { return a > b ? a - b : 0; }

// Cause: compute when the extra compute is at least half the lateness,
// else host (idle) or memcpy, the larger; host names the gap op that
// explains at least half the extra idle time.
void setRoleCause(Finding& f, const RoleEvidence& e) {
  f.computeNs = per(e.mine[kCompute], e.cells),
  f.computeMedianNs = per(e.median[kCompute], e.cells);
  f.hostIdleNs = per(e.mine[kIdle], e.cells), f.hostIdleMedianNs = per(e.median[kIdle], e.cells);
  f.memcpyNs = per(e.mine[kMemcpy], e.cells), f.memcpyMedianNs = per(e.median[kMemcpy], e.cells);
  const uint64_t c = excess(f.computeNs, f.computeMedianNs),
                 h = excess(f.hostIdleNs, f.hostIdleMedianNs),
                 m = excess(f.memcpyNs, f.memcpyMedianNs);
  f.cause = c > 0 && 2 * c >= f.lateNs ? "compute" : m > h ? "memcpy" : "host";
  f.computeRatio = f.computeMedianNs
                       ? static_cast<double>(f.computeNs) / static_cast<double>(f.computeMedianNs)
                       : 0;
  if (f.cause != "host") return;
  const std::string* best = nullptr;
  uint64_t bestExcess = 0;
  for (const auto& [name, ns] : e.gapOps) {
    const uint64_t x = excess(ns.first, ns.second);
    if (best == nullptr || x > bestExcess) best = &name, bestExcess = x;
  }
  if (best == nullptr || 2 * per(bestExcess, e.cells) < h) return;
  f.hostOp = *best;
  f.hostOpNs = per(e.gapOps.at(*best).first, e.cells);
  f.hostOpMedianNs = per(e.gapOps.at(*best).second, e.cells);
  f.hostOpKind = hostOpKindOf(*best);
}

std::string whoOf(const Finding& f, const Topology& topo) {
  if (f.trainer >= 0)
    return topo.trainerWho(f.trainer) + " (ranks " + rankList(f.ranks) + ", all its " +
           std::to_string(f.ranks.size()) + " GPUs)";
  return topo.rankWho(f.ranks[0]);
}

std::string againstRole(uint64_t mine, uint64_t median) {
  return formatMs(mine) + " per step against " + formatMs(median) + " on its role's median rank";
}

std::string roleCauseText(const Finding& f) {
  if (f.cause == "compute")
    return "it computes " + fmt("%.2fx", f.computeRatio) + " its role's median (" +
           againstRole(f.computeNs, f.computeMedianNs) + ")";
  if (f.cause == "memcpy") return "its copies take " + againstRole(f.memcpyNs, f.memcpyMedianNs);
  std::string t = "its GPU idles " + againstRole(f.hostIdleNs, f.hostIdleMedianNs) +
                  ": launches come late (compute " + formatMs(f.computeNs) + " against " +
                  formatMs(f.computeMedianNs) + ")";
  if (!f.hostOp.empty())
    return t + "; the host is in " + f.hostOpKind + " '" + f.hostOp + "' for " +
           formatMs(f.hostOpNs) + " per step (" + formatMs(f.hostOpMedianNs) +
           " on its role's median rank)";
  return t + "; no single host op explains it";
}

// What the others waited in the collectives these ranks arrived last at,
// per step (the collectives' direct blame: instance by instance).
uint64_t waitedForPerStep(const Finding& f, const JobBoard& board) {
  if (board.collectives == nullptr) return 0;
  uint64_t sum = 0;
  for (const RankBlame& b : board.collectives->ranks)
    if (std::find(f.ranks.begin(), f.ranks.end(), b.rank) != f.ranks.end())
      for (uint64_t v : b.causedNs) (void)addSaturating(sum, v);  // held like the others
  return per(sum, static_cast<uint64_t>(std::max<int64_t>(1, f.stepsOfRank)));
}

std::string stepsText(const Finding& f) {
  return f.allSteps ? "in " + std::to_string(f.steps.size()) + "/" + std::to_string(f.stepsOfRank) +
                          " steps"
                    : (f.steps.size() == 1 ? "in step " : "in steps ") + rankList(f.steps);
}

Finding describeRole(const Group& g, const std::vector<RoleCell>& cells, size_t roleSize,
                     const std::vector<RankTable>& tables, const Topology& topo,
                     const JobBoard& board, uint64_t jobStepNs) {
  Finding f;
  f.kind = "straggler";
  f.ranks = g.ranks;
  f.steps = g.steps;
  f.allSteps = g.persistent;
  f.trainer = g.trainer;
  if (f.trainer >= 0) f.node = topo.nodeOf(topo.rankOf(f.trainer, 0));
  f.stepsOfRank = static_cast<int64_t>(tables[g.tables[0]].steps.size());
  const RoleEvidence e = evidenceOf(g, cells, tables);
  f.saturatedSum = e.held;
  for (const auto& [step, late] : e.latestOfStep) addHeld(f.costNs, late, f.saturatedSum);
  f.lateNs = per(e.late, e.cells);
  f.score = jobStepNs ? static_cast<double>(f.costNs) / static_cast<double>(jobStepNs) : 0;
  setRoleCause(f, e);
  f.othersWaitNs = waitedForPerStep(f, board);
  f.evidenceInTrace = whoOf(f, topo) + " is " + formatMs(f.lateNs) + " per step behind the " +
                      std::to_string(roleSize - g.ranks.size()) +
                      " other ranks of its role (the same collectives) " + stepsText(f) +
                      "; cause " + f.cause + ": " + roleCauseText(f) + "; others wait " +
                      formatMs(f.othersWaitNs) +
                      " per step in the collectives it arrives last at; costs " +
                      formatMs(f.costNs) + " (" + fmt("%.1f", 100 * f.score) + " % of step time)";
  return f;
}

}  // namespace

std::vector<Finding> roleFindings(const std::vector<RankTable>& tables, const Topology& topo,
                                  const JobBoard& board,
                                  const std::map<int64_t, uint64_t>& stepMedian, uint64_t jobStepNs,
                                  const std::vector<Finding>& known) {
  std::vector<Finding> out;
  if (board.collectiveRanks == nullptr) return out;
  for (const std::vector<size_t>& members : rolesOf(tables, *board.collectiveRanks)) {
    const std::vector<RoleCell> cells = classifyRole(members, tables, stepMedian);
    std::map<size_t, std::vector<int64_t>> slowSteps;
    for (const RoleCell& c : cells)
      if (c.slow) slowSteps[c.table].push_back(c.row->step);
    for (const Group& g : groupByTrainer(slowSteps, tables, topo)) {
      if (coveredBy(g.ranks, known)) continue;
      out.push_back(describeRole(g, cells, members.size(), tables, topo, board, jobStepNs));
    }
  }
  return out;
}

namespace {

// A node's slow cross-node transfers in one class (collective, bytes, members).
struct SlowClass {
  std::string text;
  double excessNs = 0;  // summed over the node's instances, per group
};

// Per node, the classes whose instances touching it take >= kNetworkFactor
// times the class' other cross-node instances (mean transfer).
constexpr double kNetworkFactor = 1.4;

std::map<int64_t, std::vector<SlowClass>> slowNodes(const std::vector<NetCell>& net) {
  std::map<int64_t, std::vector<SlowClass>> out;
  const NetCell* total = nullptr;
  for (const NetCell& c : net) {
    if (c.node < 0) {
      total = &c;
      continue;
    }
    if (total == nullptr || std::tie(total->collective, total->bytes, total->members) !=
                                std::tie(c.collective, c.bytes, c.members))
      continue;
    if (c.instances == 0 || total->instances <= c.instances) continue;
    const double mine = static_cast<double>(c.transferNs) / static_cast<double>(c.instances);
    const double others = static_cast<double>(total->transferNs - c.transferNs) /
                          static_cast<double>(total->instances - c.instances);
    if (others <= 0 || mine < kNetworkFactor * others) continue;
    SlowClass s;
    s.excessNs = (mine - others) * static_cast<double>(c.instances) /
                 static_cast<double>(std::max<uint64_t>(1, c.groups));
    // Bytes 0: the collective's sizes vary from call to call (collectives.csv).
    const std::string size = c.bytes ? " of " + std::to_string(c.bytes) + " bytes" : "";
    s.text = c.collective + size + " among " + std::to_string(c.members) +
             " ranks: " + fmt("%.3f", mine / 1e6) + " ms against " + fmt("%.3f", others / 1e6) +
             " ms elsewhere (" + std::to_string(c.instances) + " instances)";
    out[c.node].push_back(std::move(s));
  }
  return out;
}

}  // namespace

std::vector<Finding> networkFindings(const std::vector<RankTable>& tables, const Topology& topo,
                                     const JobBoard& board, uint64_t jobStepNs,
                                     const std::string& traceSuffix) {
  std::vector<Finding> out;
  if (board.collectives == nullptr) return out;
  const auto slow = slowNodes(board.collectives->net);
  int64_t node = -1;
  double best = 0;
  for (const auto& [n, classes] : slow) {
    double sum = 0;
    for (const SlowClass& c : classes) sum += c.excessNs;
    if (sum > best) best = sum, node = n;
  }
  if (node < 0) return out;
  Finding f;
  f.kind = "straggler";
  f.cause = "network";
  f.trainer = node;
  f.node = topo.nodeOf(topo.rankOf(node, 0));
  for (const RankTable& t : tables)
    if (topo.trainerOf(t.rank) == node) f.ranks.push_back(t.rank);
  if (f.ranks.empty()) return out;
  f.stepsOfRank = static_cast<int64_t>(tables.front().steps.size());
  for (const StepRow& r : tables.front().steps) f.steps.push_back(r.step);
  f.allSteps = true;
  f.costNs = static_cast<uint64_t>(best);
  f.score = jobStepNs ? best / static_cast<double>(jobStepNs) : 0;
  f.lateNs = per(f.costNs, f.steps.size());
  std::string classes;
  for (const SlowClass& c : slow.at(node)) classes += (classes.empty() ? "" : "; ") + c.text;
  f.evidenceInTrace = whoOf(f, topo) +
                      ": the transfers of the collectives with a member on it are " +
                      "slower than the same collectives between other nodes: " + classes +
                      "; cause network; costs " + formatMs(f.costNs) + " (" +
                      fmt("%.1f", 100 * f.score) + " % of step time)";
  nameTraceFiles(f, topo, traceSuffix);
  out.push_back(std::move(f));
  return out;
}

}  // namespace xstack
