// collectives.csv, waits.csv and the terminal lines of the "collectives"
// analysis (docs/FORMAT.md). Deterministic text: integer ns are turned into
// ms by integer arithmetic; the only float (busbw) is printed with "%.3f".
#include <algorithm>
#include <cstdio>

#include "xstack/analysis/collectives/ClockOffsets.h"
#include "xstack/analysis/collectives/CollectiveMatch.h"
#include "xstack/core/CheckedMath.h"
#include "xstack/report/AnalysisFiles.h"

namespace xstack {

namespace {

// `thousandths` / 1000 with 3 decimals: 12345 -> "12.345".
std::string thousandthsText(uint64_t thousandths) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "%llu.%03llu", static_cast<unsigned long long>(thousandths / 1000),
                static_cast<unsigned long long>(thousandths % 1000));
  return buf;
}

// ns / steps in ms, 3 decimals, rounded half up.
std::string msPerStepText(uint64_t ns, uint64_t steps) {
  const uint64_t d = std::max<uint64_t>(steps, 1) * 1000;  // ns per µs per step
  return thousandthsText(ns / d + (ns % d >= (d + 1) / 2 ? 1 : 0));
}

// 1234567 -> "1,234,567".
std::string withCommas(uint64_t v) {
  std::string digits = std::to_string(v), out;
  for (size_t i = 0; i < digits.size(); ++i) {
    if (i > 0 && (digits.size() - i) % 3 == 0) out += ',';
    out += digits[i];
  }
  return out;
}

uint64_t causedTotal(const RankBlame& b) {
  uint64_t t = 0;
  for (uint64_t v : b.causedNs) (void)addSaturating(t, v);  // ns, held at 2^63 - 1
  return t;
}

// The cause most of `b`'s caused time came from (ties: the first); "" = none.
std::string topCause(const RankBlame& b) {
  int best = -1;
  for (int c = 0; c < kLateCauses; ++c)
    if (b.causedNs[c] > 0 && (best < 0 || b.causedNs[c] > b.causedNs[best])) best = c;
  return best < 0 ? "" : lateCauseName(static_cast<LateCause>(best));
}

const RankBlame* blameOf(const CollectivesSummary& s, int64_t rank) {
  auto it = std::lower_bound(s.ranks.begin(), s.ranks.end(), rank,
                             [](const RankBlame& b, int64_t r) { return b.rank < r; });
  return it != s.ranks.end() && it->rank == rank ? &*it : nullptr;
}

}  // namespace

std::string msText(uint64_t ns) { return msPerStepText(ns, 1); }

std::string collectivesCsv(const CollectivesSummary& s) {
  std::string out =
      "group,collective,bytes,count,transfer_p50_ms,transfer_p95_ms,busbw_p50_gbps,wait_ms,"
      "top_late_rank,top_late_share,bytes_p50\n";
  for (const CollectiveRow& r : s.rows) {
    appendCsvField(out, r.group);
    out += ',';
    appendCsvField(out, r.collective);
    out += ',' + std::to_string(r.bytes) + ',' + std::to_string(r.count) + ',' +
           msText(r.transferP50Ns) + ',' + msText(r.transferP95Ns) + ',';
    if (r.hasBusbw) {
      char buf[64];
      std::snprintf(buf, sizeof buf, "%.3f", r.busbwP50Gbps);
      out += buf;
    }
    out += ',' + msText(r.waitNs) + ',' + std::to_string(r.topLateRank) + ',';
    const uint64_t n = std::max<uint64_t>(r.count, 1);
    out += thousandthsText((r.topLateCount * 1000 + n / 2) / n) + ',' + std::to_string(r.bytesP50) +
           '\n';
  }
  return out;
}

std::string waitsCsv(const CollectivesSummary& s, const std::vector<RankInfo>& ranks) {
  const bool local =
      std::any_of(ranks.begin(), ranks.end(), [](const RankInfo& r) { return r.localRank >= 0; });
  std::string out =
      "rank,node,waited_ms_per_step,caused_ms_per_step,top_cause,clock_offset_us,clock_spread_us";
  out += local ? ",local_rank\n" : "\n";
  if (s.groups == 0) return out;
  for (const RankInfo& r : ranks) {
    const RankBlame none{r.rank};
    const RankBlame* b = blameOf(s, r.rank);
    if (!b) b = &none;
    out += std::to_string(r.rank) + ',';
    appendCsvField(out, r.node);
    out += ',' + msPerStepText(b->waitedNs, r.steps) + ',' +
           msPerStepText(causedTotal(*b), r.steps) + ',' + topCause(*b) + ',';
    if (r.clockKnown)
      out += usText(r.clockOffsetNs) + ',' + usText(static_cast<int64_t>(r.clockSpreadNs));
    else
      out += ',';
    out += local ? ',' + std::to_string(r.localRank) + '\n' : "\n";
  }
  return out;
}

std::vector<std::string> collectivesSummaryLines(const CollectivesSummary& s,
                                                 const std::vector<RankInfo>& /*ranks*/) {
  std::vector<std::string> lines;
  if (s.groups == 0) return lines;
  std::string line = "collectives: " + withCommas(s.groups) +
                     (s.groups == 1 ? " group, " : " groups, ") + withCommas(s.matched) +
                     " instances matched (" + withCommas(s.problems) + " unmatched)";
  // No rank is named here: a wait is charged to one instance's last arriver,
  // which may have been late only because it waited itself (top_cause
  // "waiting": a pipeline's structural bubbles on a healthy job); the
  // findings and critical_path.csv name the roots.
  line += "; per rank in waits.csv (a rank late because it waited itself: cause waiting)";
  lines.push_back(std::move(line));
  for (const Problem& p : s.examples) lines.push_back("  unmatched: " + p.text);
  return lines;
}

}  // namespace xstack
