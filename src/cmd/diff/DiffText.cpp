// The terminal text and the --json document of `xstack diff` (cmd/diff/Diff.h).
// Times are printed in ms with 3 decimals (kernel means in us), changes signed; bus bandwidths in
// GB/s with 3 decimals; percentages of a
// rank's span as "%", their changes in percentage points ("pt").
// The text is for a terminal: every name from the folders (kernel names, findings' fields) and
// the folders' paths go through terminalSafe (no control byte, no line of its own). The JSON keeps
// the exact names, JSON-escaped (DEL and C1 controls too, so it is safe on a terminal as well).
#include <cmath>
#include <cstdio>
#include <nlohmann/json.hpp>

#include "xstack/cmd/diff/Diff.h"
#include "xstack/core/TerminalText.h"

namespace xstack {
namespace {

using ojson = nlohmann::ordered_json;

std::string fmt(const char* f, double v) {
  char buf[64];
  std::snprintf(buf, sizeof buf, f, v);
  return buf;
}

std::string ms(uint64_t ns) { return fmt("%.3f ms", static_cast<double>(ns) / 1e6); }

double deltaNs(uint64_t a, uint64_t b) { return static_cast<double>(b) - static_cast<double>(a); }

std::string signedMs(uint64_t a, uint64_t b) { return fmt("%+.3f ms", deltaNs(a, b) / 1e6); }

// "+10.4 %", or "new" when a is 0.
std::string relChange(uint64_t a, uint64_t b) {
  if (a == 0) return b == 0 ? "+0.0 %" : "new";
  return fmt("%+.1f %%", 100.0 * deltaNs(a, b) / static_cast<double>(a));
}

std::string ranksText(const std::vector<int64_t>& ranks) {
  std::string s = ranks.size() == 1 ? "rank " : "ranks ";
  for (size_t i = 0; i < ranks.size(); ++i) s += (i ? ", " : "") + std::to_string(ranks[i]);
  return s;
}

std::string listText(const std::vector<int64_t>& v) {
  std::string s;
  for (size_t i = 0; i < v.size() && i < 10; ++i) s += (i ? ", " : "") + std::to_string(v[i]);
  if (v.size() > 10) s += ", ... (" + std::to_string(v.size()) + ")";
  return s;
}

void stepsText(const StepsDiff& s, std::string& out) {
  out += "step time (median over steps of the cross-rank median): " + ms(s.aMedianNs) + " -> " +
         ms(s.bMedianNs) + " (" + signedMs(s.aMedianNs, s.bMedianNs) + ", " +
         relChange(s.aMedianNs, s.bMedianNs) + "); " + std::to_string(s.common.size()) +
         " steps in both, ranks " + std::to_string(s.aRanks) + " -> " + std::to_string(s.bRanks) +
         "\n";
  std::vector<StepDelta> by = s.common;
  std::stable_sort(by.begin(), by.end(), [](const StepDelta& x, const StepDelta& y) {
    return std::fabs(deltaNs(x.aNs, x.bNs)) > std::fabs(deltaNs(y.aNs, y.bNs));
  });
  std::string line;
  for (size_t i = 0; i < by.size() && i < 3 && by[i].aNs != by[i].bNs; ++i)
    line += std::string(i ? "; " : "") + "step " + std::to_string(by[i].step) + " " +
            ms(by[i].aNs) + " -> " + ms(by[i].bNs) + " (" + relChange(by[i].aNs, by[i].bNs) + ")";
  if (!line.empty()) out += "  steps that changed most: " + line + "\n";
  if (!s.onlyA.empty()) out += "  steps only in A: " + listText(s.onlyA) + "\n";
  if (!s.onlyB.empty()) out += "  steps only in B: " + listText(s.onlyB) + "\n";
}

std::string pt(double v) { return fmt("%+.2f pt", v); }
std::string pc(double v) { return v < 0 ? std::string("-") : fmt("%.2f %%", v); }

void rankLine(const RankDelta& r, const CategoryPct& m, std::string& out) {
  const bool node = !r.b.node.empty() && r.b.localRank >= 0;  // PyTorch's words
  out += "  rank " + std::to_string(r.rank) +
         (node ? " (node " + r.b.node + ", local rank " + std::to_string(r.b.localRank)
               : " (trainer " + std::to_string(r.trainer) + ", gpu " + std::to_string(r.gpu)) +
         "): " + r.why + " moved " + fmt("%.2f", r.scorePt) + " pt off the median rank; compute " +
         pc(r.aPct.compute) + " -> " + pc(r.bPct.compute) + " (" +
         pt(r.bPct.compute - r.aPct.compute) + ", median " + pt(m.compute) + "), idle " +
         pc(r.aPct.idle) + " -> " + pc(r.bPct.idle) + " (" + pt(r.bPct.idle - r.aPct.idle) +
         ", median " + pt(m.idle) + "), non-compute " + pc(r.aPct.nonCompute) + " -> " +
         pc(r.bPct.nonCompute) + "; compute " + ms(r.a.computeNs) + " -> " + ms(r.b.computeNs) +
         " (" + relChange(r.a.computeNs, r.b.computeNs) + ")\n";
}

void ranksText(const RanksDiff& r, std::string& out) {
  const CategoryPct& m = r.medianDeltaPt;
  out += "ranks (ranks.csv, % of each rank's GPU span): median rank idle " + pt(m.idle) +
         ", compute " + pt(m.compute) + ", non-compute " + pt(m.nonCompute) + ", overlap " +
         (m.overlap < 0 ? std::string("-") : pt(m.overlap)) + "\n";
  if (r.changed.empty())
    out += "  no rank moved " + fmt("%.0f", kRankChangePt) + " pt or more off the median rank\n";
  for (size_t i = 0; i < r.changed.size() && i < 5; ++i) rankLine(r.all[r.changed[i]], m, out);
  if (r.changed.size() > 5)
    out += "  ... " + std::to_string(r.changed.size() - 5) + " more ranks (diff.html)\n";
  if (!r.onlyA.empty()) out += "  ranks only in A: " + listText(r.onlyA) + "\n";
  if (!r.onlyB.empty()) out += "  ranks only in B: " + listText(r.onlyB) + "\n";
}

// Kernel means are often microseconds: us with 1 decimal.
std::string meanUs(uint64_t ns, uint64_t count) {
  return fmt("%.1f us", count ? static_cast<double>(ns) / static_cast<double>(count) / 1e3 : 0.0);
}

void kernelLine(const KernelDelta& k, std::string& out) {
  const KernelTotalsAB& t = k.t;
  out += "  " + terminalSafe(k.name) + " [" + terminalSafe(k.category) + "]: total " + ms(t.aNs) +
         " -> " + ms(t.bNs) + " (" + signedMs(t.aNs, t.bNs) + ", " + relChange(t.aNs, t.bNs) +
         "), count " + std::to_string(t.aCount) + " -> " + std::to_string(t.bCount) + ", mean " +
         meanUs(t.aNs, t.aCount) + " -> " + meanUs(t.bNs, t.bCount) + "; changed on " +
         std::to_string(k.ranksChanged) + " of " + std::to_string(std::max(t.aRanks, t.bRanks)) +
         " ranks";
  for (size_t i = 0; i < k.topRanks.size() && i < 3; ++i)
    out += std::string(i ? ", " : " (") + "rank " + std::to_string(k.topRanks[i].rank) + " " +
           signedMs(k.topRanks[i].aNs, k.topRanks[i].bNs);
  out += k.topRanks.empty() ? "\n" : ")\n";
}

void kernelsText(const KernelsDiff& k, std::string& out) {
  out += "kernels (kernels.csv, summed over ranks): " + std::to_string(k.namesA) + " names in A, " +
         std::to_string(k.namesB) + " in B, " + std::to_string(k.newNames) + " new, " +
         std::to_string(k.vanishedNames) + " vanished; GPU kernel time " + ms(k.aTotalNs) + " -> " +
         ms(k.bTotalNs) + " (" + relChange(k.aTotalNs, k.bTotalNs) + ")\n";
  if (k.saturatedSums > 0)
    out += "  warning: " + std::to_string(k.saturatedSums) +
           " sums of ns passed 2^63 - 1 and are shown as 2^63 - 1 (sum_saturated)\n";
  if (k.top.empty()) out += "  no kernel's count or total changed\n";
  for (size_t i = 0; i < k.top.size() && i < 8; ++i) kernelLine(k.top[i], out);
}

std::string findingText(const FindingEntry& f) {
  std::string s =
      terminalSafe(f.kind) + " " + ranksText(f.ranks) + " (steps " + terminalSafe(f.steps);
  if (!f.cause.empty()) s += ", cause " + terminalSafe(f.cause);
  return s + ", cost " + fmt("%.3f ms", f.costMs) + "): " + terminalSafe(f.evidence);
}

void findingsText(const FindingsDiff& f, std::string& out) {
  out += "findings (findings.json): " + std::to_string(f.added.size()) + " new, " +
         std::to_string(f.vanished.size()) + " vanished, " + std::to_string(f.kept.size()) +
         " in both\n";
  for (const FindingEntry& e : f.added) out += "  new: " + findingText(e) + "\n";
  for (const FindingEntry& e : f.vanished) out += "  vanished: " + findingText(e) + "\n";
  for (const auto& [a, b] : f.kept)
    if (a.steps != b.steps || a.cause != b.cause)
      out += "  changed: " + findingText(a) + " -> steps " + terminalSafe(b.steps) +
             (b.cause.empty() ? "" : ", cause " + terminalSafe(b.cause)) + "\n";
}

// The files' ms as read (integer us), 3 decimals.
std::string usMs(uint64_t us) { return fmt("%.3f ms", static_cast<double>(us) / 1e3); }
std::string signedUsMs(uint64_t a, uint64_t b) { return fmt("%+.3f ms", deltaNs(a, b) / 1e3); }

std::string gbps(double v) { return v < 0 ? std::string("-") : fmt("%.3f GB/s", v); }

// "+10.4 %" of two bandwidths; "-" when one side has none.
std::string relGbps(double a, double b) {
  if (a < 0 || b < 0) return "-";
  if (a == 0) return b == 0 ? "+0.0 %" : "new";
  return fmt("%+.1f %%", 100.0 * (b - a) / a);
}

// "allreduce 4194304 B, default group" (names from the file: terminal-safe).
std::string collectiveName(const CollectiveStat& c) {
  return terminalSafe(c.collective) + " " + std::to_string(c.bytes) + " B, " +
         (c.group.empty() ? std::string("default group") : "group " + terminalSafe(c.group));
}

std::string lateText(const CollectiveStat& c) {
  return "rank " + std::to_string(c.topLateRank) + " (" + fmt("%.1f %%", 100 * c.topLateShare) +
         ")";
}

// The median call size of a row whose sizes vary (bytes 0, known bytes_p50).
bool showsSizes(const CollectiveStat& c) { return c.bytes == 0 && c.bytesP50 >= 0; }

std::string collectiveOneSide(const CollectiveStat& c) {
  return collectiveName(c) + ": count " + std::to_string(c.count) +
         (showsSizes(c) ? ", size p50 " + std::to_string(c.bytesP50) + " B" : std::string()) +
         ", transfer p50 " + usMs(c.transferP50Us) + ", busbw p50 " + gbps(c.busbwGbps) +
         ", wait " + usMs(c.waitUs) + ", most often last " + lateText(c);
}

// ", size p50 A B -> B B" for a row whose sizes vary, when both sides tell it.
std::string sizeChange(const CollectiveStat& a, const CollectiveStat& b) {
  if (!showsSizes(a) || !showsSizes(b)) return {};
  return ", size p50 " + std::to_string(a.bytesP50) + " B -> " + std::to_string(b.bytesP50) + " B";
}

void collectiveLine(const CollectiveDelta& r, std::string& out) {
  const CollectiveStat &a = r.a, &b = r.b;
  out += "  " + collectiveName(a) + ": transfer p50 " + usMs(a.transferP50Us) + " -> " +
         usMs(b.transferP50Us) + " (" + relChange(a.transferP50Us, b.transferP50Us) + ")" +
         sizeChange(a, b) +
         (a.busbwGbps < 0 && b.busbwGbps < 0
              ? std::string()
              : ", busbw p50 " + gbps(a.busbwGbps) + " -> " + gbps(b.busbwGbps) + " (" +
                    relGbps(a.busbwGbps, b.busbwGbps) + ")") +
         ", count " + std::to_string(a.count) + " -> " + std::to_string(b.count) + ", wait " +
         usMs(a.waitUs) + " -> " + usMs(b.waitUs) + ", most often last " + lateText(a) + " -> " +
         lateText(b) + "\n";
}

void collectivesText(const CollectivesDiff& c, std::string& out) {
  out +=
      "collectives (collectives.csv, per group, collective and bytes): " + std::to_string(c.rowsA) +
      (c.rowsA == 1 ? " row in A, " : " rows in A, ") + std::to_string(c.rowsB) + " in B, " +
      std::to_string(c.added.size()) + " new, " + std::to_string(c.vanished.size()) +
      " vanished, " + std::to_string(c.changedRows) + " changed; wait (summed) " + usMs(c.aWaitUs) +
      " -> " + usMs(c.bWaitUs) + " (" + signedUsMs(c.aWaitUs, c.bWaitUs) + ", " +
      relChange(c.aWaitUs, c.bWaitUs) + ")\n";
  if (c.top.empty() && c.changedRows == 0)
    out += "  no collective's transfer or bus bandwidth changed\n";
  for (size_t i = 0; i < c.top.size() && i < 5; ++i) collectiveLine(c.top[i], out);
  for (size_t i = 0; i < c.added.size() && i < 5; ++i)
    out += "  new: " + collectiveOneSide(c.added[i].b) + "\n";
  for (size_t i = 0; i < c.vanished.size() && i < 5; ++i)
    out += "  vanished: " + collectiveOneSide(c.vanished[i].a) + "\n";
  if (c.added.size() > 5 || c.vanished.size() > 5)
    out += "  ... more new or vanished (diff.html)\n";
}

std::string causeText(const std::string& cause) {
  return cause.empty() ? std::string("none") : terminalSafe(cause);
}

std::string rankNode(const RankWaits& r) {
  return "rank " + std::to_string(r.rank) + " (node " + terminalSafe(r.node) + ")";
}

void waitLine(const RankWaitDelta& r, std::string& out) {
  out += "  " + rankNode(r.b) + ": waited " + usMs(r.a.waitedUs) + " -> " + usMs(r.b.waitedUs) +
         " (" + signedUsMs(r.a.waitedUs, r.b.waitedUs) + "), caused " + usMs(r.a.causedUs) +
         " -> " + usMs(r.b.causedUs) + " (" + signedUsMs(r.a.causedUs, r.b.causedUs) +
         "); top cause " + causeText(r.a.topCause) + " -> " + causeText(r.b.topCause) + "\n";
}

void waitsText(const WaitsDiff& w, std::string& out) {
  out += "waits (waits.csv, ms per step, summed over ranks): waited " + usMs(w.aWaitedUs) + " -> " +
         usMs(w.bWaitedUs) + " (" + signedUsMs(w.aWaitedUs, w.bWaitedUs) + "), caused " +
         usMs(w.aCausedUs) + " -> " + usMs(w.bCausedUs) + " (" +
         signedUsMs(w.aCausedUs, w.bCausedUs) + "); " + std::to_string(w.all.size()) +
         " ranks in both, " + std::to_string(w.moved.size()) + " moved, " +
         std::to_string(w.causeChanged.size()) + " with another top cause\n";
  for (size_t i = 0; i < w.moved.size() && i < 5; ++i) waitLine(w.all[w.moved[i]], out);
  if (w.moved.size() > 5)
    out += "  ... " + std::to_string(w.moved.size() - 5) + " more ranks (diff.html)\n";
  std::string causes;
  for (size_t i = 0; i < w.causeChanged.size() && i < 10; ++i) {
    const RankWaitDelta& r = w.all[w.causeChanged[i]];
    causes += (i ? ", " : "") + rankNode(r.b) + " " + causeText(r.a.topCause) + " -> " +
              causeText(r.b.topCause);
  }
  if (w.causeChanged.size() > 10) causes += ", ... (" + std::to_string(w.causeChanged.size()) + ")";
  if (!causes.empty()) out += "  top cause changed: " + causes + "\n";
  if (!w.onlyA.empty()) out += "  ranks only in A: " + listText(w.onlyA) + "\n";
  if (!w.onlyB.empty()) out += "  ranks only in B: " + listText(w.onlyB) + "\n";
}

ojson findingJson(const FindingEntry& f) {
  return {{"kind", f.kind},   {"ranks", f.ranks},    {"steps", f.steps},
          {"cause", f.cause}, {"cost_ms", f.costMs}, {"evidence", f.evidence}};
}

ojson categoriesJson(const RankCategories& r, const CategoryPct& p) {
  return {{"span_ns", r.spanNs},
          {"idle_ns", r.idleNs},
          {"compute_ns", r.computeNs},
          {"non_compute_ns", r.nonComputeNs},
          {"idle_pct", p.idle},
          {"compute_pct", p.compute},
          {"non_compute_pct", p.nonCompute},
          {"overlap_pct", p.overlap < 0 ? ojson(nullptr) : ojson(p.overlap)}};
}

ojson stepsJson(const StepsDiff& s) {
  ojson per = ojson::array();
  for (const StepDelta& d : s.common)
    per.push_back({{"step", d.step},
                   {"a_ns", d.aNs},
                   {"b_ns", d.bNs},
                   {"delta_ns", static_cast<int64_t>(d.bNs) - static_cast<int64_t>(d.aNs)}});
  return {{"a_median_ns", s.aMedianNs},
          {"b_median_ns", s.bMedianNs},
          {"delta_ns", static_cast<int64_t>(s.bMedianNs) - static_cast<int64_t>(s.aMedianNs)},
          {"a_ranks", s.aRanks},
          {"b_ranks", s.bRanks},
          {"per_step", per},
          {"only_a", s.onlyA},
          {"only_b", s.onlyB}};
}

ojson rankJson(const RankDelta& r) {
  return {{"rank", r.rank},
          {"trainer", r.trainer},
          {"gpu", r.gpu},
          {"score_pt", r.scorePt},
          {"why", r.why},
          {"a", categoriesJson(r.a, r.aPct)},
          {"b", categoriesJson(r.b, r.bPct)}};
}

ojson ranksJson(const RanksDiff& r) {
  ojson changed = ojson::array(), all = ojson::array();
  for (size_t i : r.changed) changed.push_back(rankJson(r.all[i]));
  for (const RankDelta& d : r.all) all.push_back(rankJson(d));
  const CategoryPct& m = r.medianDeltaPt;
  return {{"median_delta_pt",
           {{"idle", m.idle},
            {"compute", m.compute},
            {"non_compute", m.nonCompute},
            {"overlap", m.overlap < 0 ? ojson(nullptr) : ojson(m.overlap)}}},
          {"changed", changed},
          {"by_rank", all},
          {"only_a", r.onlyA},
          {"only_b", r.onlyB}};
}

ojson kernelsJson(const KernelsDiff& k) {
  ojson top = ojson::array();
  for (const KernelDelta& d : k.top) {
    ojson ranks = ojson::array();
    for (const RankKernelDelta& r : d.topRanks)
      ranks.push_back({{"rank", r.rank}, {"a_ns", r.aNs}, {"b_ns", r.bNs}});
    const KernelTotalsAB& t = d.t;
    top.push_back({{"name", d.name},
                   {"category", d.category},
                   {"a",
                    {{"count", t.aCount},
                     {"total_ns", t.aNs},
                     {"mean_ns", t.aCount ? t.aNs / t.aCount : 0},
                     {"ranks", t.aRanks}}},
                   {"b",
                    {{"count", t.bCount},
                     {"total_ns", t.bNs},
                     {"mean_ns", t.bCount ? t.bNs / t.bCount : 0},
                     {"ranks", t.bRanks}}},
                   {"delta_total_ns", static_cast<int64_t>(t.bNs) - static_cast<int64_t>(t.aNs)},
                   {"ranks_changed", d.ranksChanged},
                   {"top_ranks", ranks}});
  }
  return {{"names_a", k.namesA},
          {"names_b", k.namesB},
          {"new", k.newNames},
          {"vanished", k.vanishedNames},
          {"changed", k.changedNames},
          {"a_total_ns", k.aTotalNs},
          {"b_total_ns", k.bTotalNs},
          {"saturated_sums", k.saturatedSums},
          {"top", top}};
}

ojson findingsJson(const FindingsDiff& f) {
  ojson added = ojson::array(), vanished = ojson::array(), kept = ojson::array();
  for (const FindingEntry& e : f.added) added.push_back(findingJson(e));
  for (const FindingEntry& e : f.vanished) vanished.push_back(findingJson(e));
  for (const auto& [a, b] : f.kept) kept.push_back({{"a", findingJson(a)}, {"b", findingJson(b)}});
  return {{"new", added}, {"vanished", vanished}, {"kept", kept}};
}

double usToMs(uint64_t us) { return static_cast<double>(us) / 1e3; }

ojson collectiveSideJson(const CollectiveStat& c) {
  return {{"count", c.count},
          {"transfer_p50_ms", usToMs(c.transferP50Us)},
          {"transfer_p95_ms", usToMs(c.transferP95Us)},
          {"busbw_p50_gbps", c.busbwGbps < 0 ? ojson(nullptr) : ojson(c.busbwGbps)},
          {"wait_ms", usToMs(c.waitUs)},
          {"top_late_rank", c.topLateRank},
          {"top_late_share", c.topLateShare},
          {"bytes_p50", c.bytesP50 < 0 ? ojson(nullptr) : ojson(c.bytesP50)}};
}

ojson collectiveJson(const CollectiveDelta& r) {
  return {{"group", r.a.group},
          {"collective", r.a.collective},
          {"bytes", r.a.bytes},
          {"a", r.inA ? collectiveSideJson(r.a) : ojson(nullptr)},
          {"b", r.inB ? collectiveSideJson(r.b) : ojson(nullptr)}};
}

ojson collectivesJson(const CollectivesDiff& c) {
  ojson top = ojson::array(), added = ojson::array(), vanished = ojson::array();
  for (const CollectiveDelta& r : c.top) top.push_back(collectiveJson(r));
  for (const CollectiveDelta& r : c.added) added.push_back(collectiveJson(r));
  for (const CollectiveDelta& r : c.vanished) vanished.push_back(collectiveJson(r));
  return {{"rows_a", c.rowsA},
          {"rows_b", c.rowsB},
          {"new", c.added.size()},
          {"vanished", c.vanished.size()},
          {"changed", c.changedRows},
          {"a_wait_ms", usToMs(c.aWaitUs)},
          {"b_wait_ms", usToMs(c.bWaitUs)},
          {"top", top},
          {"new_rows", added},
          {"vanished_rows", vanished}};
}

ojson waitSideJson(const RankWaits& r) {
  return {{"waited_ms_per_step", usToMs(r.waitedUs)},
          {"caused_ms_per_step", usToMs(r.causedUs)},
          {"top_cause", r.topCause}};
}

ojson waitJson(const RankWaitDelta& r) {
  return {
      {"rank", r.b.rank}, {"node", r.b.node}, {"a", waitSideJson(r.a)}, {"b", waitSideJson(r.b)}};
}

ojson waitsJson(const WaitsDiff& w) {
  ojson moved = ojson::array(), causes = ojson::array();
  for (size_t i = 0; i < w.moved.size() && i < kTopWaitRanks; ++i)
    moved.push_back(waitJson(w.all[w.moved[i]]));
  for (size_t i : w.causeChanged) causes.push_back(waitJson(w.all[i]));
  return {{"ranks", w.all.size()},
          {"a_waited_ms_per_step", usToMs(w.aWaitedUs)},
          {"b_waited_ms_per_step", usToMs(w.bWaitedUs)},
          {"a_caused_ms_per_step", usToMs(w.aCausedUs)},
          {"b_caused_ms_per_step", usToMs(w.bCausedUs)},
          {"moved", w.moved.size()},
          {"top", moved},
          {"cause_changed", causes},
          {"only_a", w.onlyA},
          {"only_b", w.onlyB}};
}

std::string kindText(const std::string& kind) {
  return kind.empty() ? std::string("none") : terminalSafe(kind);
}

void pathRankLine(const RankPathDelta& r, std::string& out) {
  out += "  rank " + std::to_string(r.rank) + ": " + ms(r.aNs) + " -> " + ms(r.bNs) + " (" +
         signedMs(r.aNs, r.bNs) + "), mostly " + kindText(r.aKind) + " -> " + kindText(r.bKind) +
         "\n";
}

// "critical path (critical_path.csv, ms per step): ..." then the kinds and the
// ranks whose time on the path moved most (5; diff.html all).
void criticalPathText(const CriticalPathDiff& p, std::string& out) {
  out += "critical path (critical_path.csv, per step): " + ms(p.aNs) + " -> " + ms(p.bNs) + " (" +
         signedMs(p.aNs, p.bNs) + "); " + std::to_string(p.aSteps) + " -> " +
         std::to_string(p.bSteps) + " steps, " + std::to_string(p.ranks.size()) +
         " ranks on either path, " + std::to_string(p.moved.size()) + " moved\n";
  std::string kinds;
  for (const PathKindDelta& k : p.kinds)
    kinds += (kinds.empty() ? "" : ", ") + kindText(k.kind) + " " + ms(k.aNs) + " -> " + ms(k.bNs) +
             " (" + signedMs(k.aNs, k.bNs) + ")";
  if (!kinds.empty()) out += "  by kind: " + kinds + "\n";
  for (size_t i = 0; i < p.moved.size() && i < 5; ++i) pathRankLine(p.ranks[p.moved[i]], out);
  if (p.moved.size() > 5)
    out += "  ... " + std::to_string(p.moved.size() - 5) + " more ranks (diff.html)\n";
}

double nsToMs(uint64_t ns) { return static_cast<double>(ns) / 1e6; }

ojson pathRankJson(const RankPathDelta& r) {
  return {{"rank", r.rank},
          {"a", {{"ms_per_step", nsToMs(r.aNs)}, {"main_kind", r.aKind}}},
          {"b", {{"ms_per_step", nsToMs(r.bNs)}, {"main_kind", r.bKind}}}};
}

ojson criticalPathJson(const CriticalPathDiff& p) {
  ojson kinds = ojson::array(), top = ojson::array();
  for (const PathKindDelta& k : p.kinds)
    kinds.push_back(
        {{"kind", k.kind}, {"a_ms_per_step", nsToMs(k.aNs)}, {"b_ms_per_step", nsToMs(k.bNs)}});
  for (size_t i = 0; i < p.moved.size() && i < kTopPathRanks; ++i)
    top.push_back(pathRankJson(p.ranks[p.moved[i]]));
  return {{"a_steps", p.aSteps},
          {"b_steps", p.bSteps},
          {"a_ms_per_step", nsToMs(p.aNs)},
          {"b_ms_per_step", nsToMs(p.bNs)},
          {"kinds", kinds},
          {"ranks", p.ranks.size()},
          {"moved", p.moved.size()},
          {"top", top}};
}

// `json` (valid UTF-8 from dump) with DEL and the C1 controls (U+0080-U+009F, bytes C2 80..C2 9F)
// written as \u escapes, which dump keeps raw (it escapes only U+0000-U+001F): the same JSON
// values, and no byte a terminal acts on. Such bytes occur only inside strings.
std::string escapeDelAndC1(const std::string& json) {
  std::string out;
  out.reserve(json.size());
  for (size_t i = 0; i < json.size(); ++i) {
    const auto c = static_cast<unsigned char>(json[i]);
    const auto next = i + 1 < json.size() ? static_cast<unsigned char>(json[i + 1]) : 0;
    if (c == 0x7f) {
      out += "\\u007f";
    } else if (c == 0xc2 && next >= 0x80 && next <= 0x9f) {
      char esc[8];
      std::snprintf(esc, sizeof esc, "\\u%04x", static_cast<unsigned>(next));
      out += esc;
      ++i;
    } else {
      out.push_back(static_cast<char>(c));
    }
  }
  return out;
}

}  // namespace

std::string diffText(const DiffResult& d) {
  std::string out = "xstack diff: A " + terminalSafe(d.a) + ", B " + terminalSafe(d.b) + "\n";
  if (d.noChange)
    out += d.collectives || d.waits || d.criticalPath
               ? "no change: step times, rank categories, kernels, findings, collectives, "
                 "waits and critical paths are equal\n"
               : "no change: step times, rank categories, kernels and findings are equal\n";
  if (d.steps) stepsText(*d.steps, out);
  if (d.ranks) ranksText(*d.ranks, out);
  if (d.kernels) kernelsText(*d.kernels, out);
  if (d.findings) findingsText(*d.findings, out);
  if (d.collectives) collectivesText(*d.collectives, out);
  if (d.waits) waitsText(*d.waits, out);
  if (d.criticalPath) criticalPathText(*d.criticalPath, out);
  if (!d.missing.empty()) {
    out += "missing (not compared; a folder written with --no-analysis has none):";
    for (size_t i = 0; i < d.missing.size(); ++i) out += (i ? ", " : " ") + d.missing[i];
    out += "\n";
  }
  return out;
}

std::string diffJson(const DiffResult& d, const std::string& htmlPath) {
  ojson j = {{"a", d.a}, {"b", d.b}, {"no_change", d.noChange}, {"missing", d.missing}};
  j["steps"] = d.steps ? stepsJson(*d.steps) : ojson(nullptr);
  j["ranks"] = d.ranks ? ranksJson(*d.ranks) : ojson(nullptr);
  j["kernels"] = d.kernels ? kernelsJson(*d.kernels) : ojson(nullptr);
  j["findings"] = d.findings ? findingsJson(*d.findings) : ojson(nullptr);
  j["collectives"] = d.collectives ? collectivesJson(*d.collectives) : ojson(nullptr);
  j["waits"] = d.waits ? waitsJson(*d.waits) : ojson(nullptr);
  j["critical_path"] = d.criticalPath ? criticalPathJson(*d.criticalPath) : ojson(nullptr);
  j["html"] = htmlPath.empty() ? ojson(nullptr) : ojson(htmlPath);  // null: not written
  // Kernel names are bytes from the traces: invalid UTF-8 becomes U+FFFD.
  return escapeDelAndC1(j.dump(-1, ' ', false, ojson::error_handler_t::replace)) + "\n";
}

}  // namespace xstack
