// steps.csv, findings.json and the terminal summary (report.html: ReportHtml.cpp).
#include "xstack/report/AnalysisFiles.h"

#include <algorithm>
#include <cstdio>

#include "xstack/core/TextWriting.h"

namespace xstack {
namespace {

std::string fixed(double v, int decimals) {
  char buf[64];
  std::snprintf(buf, sizeof buf, "%.*f", decimals, v);
  return buf;
}

void appendInts(std::string& out, const std::vector<int64_t>& v) {
  out += '[';
  for (size_t i = 0; i < v.size(); ++i) {
    if (i) out += ',';
    appendInt(out, v[i]);
  }
  out += ']';
}

double seconds(uint64_t ns) { return static_cast<double>(ns) / 1e9; }

// The PyTorch family's words (Topology::nodeWords): the columns appended to
// steps.csv and ranks.csv, and a rank's cells of them.
const char* nodeColumns(const Topology& topo) { return topo.nodeWords ? ",node,local_rank" : ""; }

void appendNodeCells(std::string& out, const Topology& topo, int64_t rank) {
  if (!topo.nodeWords) return;
  out += ',';
  appendCsvField(out, topo.nodeOf(rank));
  out += ',';
  appendInt(out, topo.gpuOf(rank));
}

}  // namespace

std::string stepsCsv(const std::vector<RankTable>& tables, const Topology& topo,
                     uint64_t originNs) {
  std::string out =
      "rank,trainer,gpu,step,start_ns,step_ns,forward_ns,backward_ns,compute_ns,comm_ns,memcpy_ns,"
      "idle_ns,overlap_ns,arrival_ns,last_comm_ns,host_idle_ns" +
      std::string(nodeColumns(topo)) + "\n";
  for (const RankTable& t : tables)
    for (const StepRow& r : t.steps) {
      for (int64_t v : {t.rank, topo.trainerOf(t.rank), topo.gpuOf(t.rank), r.step}) {
        appendInt(out, v);
        out += ',';
      }
      appendInt(out, static_cast<int64_t>(r.startNs) - static_cast<int64_t>(originNs));
      for (uint64_t v : {r.stepNs, r.forwardNs, r.backwardNs, r.computeNs, r.commNs, r.memcpyNs,
                         r.idleNs, r.overlapNs}) {
        out += ',';
        appendUint(out, v);
      }
      for (int64_t v : {r.arrivalNs, r.lastCommNs, static_cast<int64_t>(r.hostIdleNs)}) {
        out += ',';
        appendInt(out, v);
      }
      appendNodeCells(out, topo, t.rank);
      out += '\n';
    }
  return out;
}

namespace {

// ",host,kernel,other" ns then their shares of the split's total; empty fields without a split.
}  // namespace

std::string ranksCsv(const std::vector<RankTable>& tables, const Topology& topo) {
  std::string out =
      "rank,trainer,gpu,steps,span_ns,idle_ns,compute_ns,non_compute_ns,idle_pct,compute_pct,"
      "non_compute_pct,comm_comp_overlap_pct" +
      std::string(nodeColumns(topo)) + "\n";
  for (const RankTable& t : tables) {
    const RankBreakdown& b = t.gpuBreakdown;
    for (int64_t v : {t.rank, topo.trainerOf(t.rank), topo.gpuOf(t.rank)}) {
      appendInt(out, v);
      out += ',';
    }
    for (uint64_t v :
         {static_cast<uint64_t>(t.steps.size()), b.spanNs, b.idleNs, b.computeNs, b.nonComputeNs}) {
      appendUint(out, v);
      out += ',';
    }
    for (uint64_t v : {b.idleNs, b.computeNs, b.nonComputeNs})
      out += percentText(v, b.spanNs) + ',';
    if (b.hasComm) out += percentText(b.overlapNs, b.commNs);
    appendNodeCells(out, topo, t.rank);
    out += '\n';
  }
  return out;
}

std::string kernelsCsvHeader() {
  return "rank,name,category,count,total_ns,mean_ns,min_ns,max_ns\n";
}

void appendCsvField(std::string& out, std::string_view raw) {
  const std::string field = visibleText(raw);
  if (field.find_first_of(",\"\r\n") == std::string::npos) {
    out += field;
    return;
  }
  out += '"';
  for (char c : field) {
    if (c == '"') out += '"';
    out += c;
  }
  out += '"';
}

void appendKernelsCsvRows(std::string& out, int64_t rank, const std::vector<KernelStat>& kernels) {
  for (const KernelStat& k : kernels) {
    appendInt(out, rank);
    out += ',';
    appendCsvField(out, k.name);
    out += ',';
    out += htaKernelTypeName(k.type);
    for (uint64_t v : {k.count, k.totalNs, k.count ? k.totalNs / k.count : 0, k.minNs, k.maxNs}) {
      out += ',';
      appendUint(out, v);
    }
    out += '\n';
  }
}

namespace {

double ms(uint64_t ns) { return static_cast<double>(ns) / 1e6; }

// "[mine,median]" in ms, 3 decimals.
std::string pairMs(uint64_t mine, uint64_t median) {
  return "[" + fixed(ms(mine), 3) + "," + fixed(ms(median), 3) + "]";
}

void appendFinding(std::string& out, const Finding& f) {
  out += "{\"kind\":";
  appendJsonString(out, f.kind);
  out += ",\"ranks\":";
  appendInts(out, f.ranks);
  out += ",\"steps\":";
  if (f.allSteps)
    out += "\"all\"";
  else
    appendInts(out, f.steps);
  out += ",\"cause\":";
  appendJsonString(out, f.cause);
  out += ",\"score\":" + fixed(f.score, 4) + ",\"evidence\":";
  appendJsonString(out, f.evidence);
  if (f.trainer >= 0) {
    out += ",\"trainer\":" + std::to_string(f.trainer) + ",\"node\":";
    appendJsonString(out, f.node.empty() ? std::to_string(f.trainer) : f.node);
  }
  out += ",\"slow_steps\":";
  appendInts(out, f.steps);
  out += ",\"cost_ms\":" + fixed(ms(f.costNs), 3) + ",\"cost_pct\":" + fixed(100 * f.score, 2) +
         ",\"late_ms_per_step\":" + fixed(ms(f.lateNs), 3) +
         ",\"per_step_ms\":{\"what\":\"[these ranks, median rank], mean over the slow steps\"" +
         ",\"compute\":" + pairMs(f.computeNs, f.computeMedianNs) +
         ",\"host_idle\":" + pairMs(f.hostIdleNs, f.hostIdleMedianNs) +
         ",\"memcpy\":" + pairMs(f.memcpyNs, f.memcpyMedianNs) + "}";
  if (!f.hostOp.empty()) {
    out += ",\"host_op\":{\"name\":";
    appendJsonString(out, f.hostOp);
    out += ",\"kind\":";
    appendJsonString(out, f.hostOpKind);
    out += ",\"ms_per_step\":" + fixed(ms(f.hostOpNs), 3) +
           ",\"median_ms_per_step\":" + fixed(ms(f.hostOpMedianNs), 3) + "}";
  }
  out += ",\"trace_files\":[";
  for (size_t i = 0; i < f.traceFiles.size(); ++i) {
    if (i) out += ',';
    appendJsonString(out, f.traceFiles[i]);
  }
  out += "],\"compute_ratio\":" + fixed(f.computeRatio, 4) +
         ",\"others_wait_ns_per_step\":" + std::to_string(f.othersWaitNs) + "}";
}

void appendFindingList(std::string& out, const std::vector<Finding>& list) {
  out += '[';
  for (size_t i = 0; i < list.size(); ++i) {
    out += i ? ",\n" : "\n";
    appendFinding(out, list[i]);
  }
  out += ']';
}

void appendSideTables(std::string& out, const JobAnalysis& a) {
  out += ",\n\"kernel_spread\":[";
  for (size_t i = 0; i < a.kernelSpread.size(); ++i) {
    const KernelSpread& k = a.kernelSpread[i];
    out += i ? ",\n" : "\n";
    out += "{\"name\":";
    appendJsonString(out, k.name);
    out += ",\"median_ns\":" + std::to_string(k.medianNs) +
           ",\"slowest_rank\":" + std::to_string(k.slowestRank) +
           ",\"slowest_ns\":" + std::to_string(k.slowestNs) +
           ",\"ranks\":" + std::to_string(k.ranks) + "}";
  }
  out += "],\n\"memory_peaks\":{\"gpu_median_bytes\":" + std::to_string(a.memoryPeakMedian) +
         ",\"largest\":[";
  for (size_t i = 0; i < a.memoryPeaks.size() && i < 8; ++i)
    out += std::string(i ? "," : "") + "{\"rank\":" + std::to_string(a.memoryPeaks[i].first) +
           ",\"gpu_bytes\":" + std::to_string(a.memoryPeaks[i].second) + "}";
  out += "],\"by_rank\":[";  // [rank, peak bytes], ordered by rank
  std::vector<std::pair<int64_t, uint64_t>> byRank = a.memoryPeaks;
  std::sort(byRank.begin(), byRank.end());
  for (size_t i = 0; i < byRank.size(); ++i)
    out += std::string(i ? "," : "") + "[" + std::to_string(byRank[i].first) + "," +
           std::to_string(byRank[i].second) + "]";
  out += "]},\n\"step_variation\":[";
  for (size_t i = 0; i < a.stepVariation.size(); ++i)
    out += std::string(i ? "," : "") + "{\"step\":" + std::to_string(a.stepVariation[i].step) +
           ",\"median_step_ns\":" + std::to_string(a.stepVariation[i].medianStepNs) +
           ",\"relative\":" + fixed(a.stepVariation[i].relative, 4) + "}";
  out += "]";
}

}  // namespace

std::string findingsJson(const JobAnalysis& a, const Topology& topo) {
  std::string out = "{\"findings\":";
  appendFindingList(out, a.findings);
  out += ",\n\"below_threshold\":";
  appendFindingList(out, a.belowThreshold);
  out += ",\n\"min_cost_pct\":" + fixed(100 * kMinScore, 2);
  out += ",\n\"job\":{\"ranks\":" + std::to_string(a.ranks) +
         ",\"steps\":" + std::to_string(a.steps) +
         ",\"gpus_per_trainer\":" + std::to_string(topo.gpusPerTrainer) +
         ",\"median_step_ns\":" + std::to_string(a.medianStepNs) +
         ",\"step_time_s\":" + fixed(seconds(a.jobStepNs), 6) +
         "},\n\"ideal_job\":{\"saving_ms\":" + fixed(ms(a.idealSavingNs), 3) + ",\"saving_pct\":" +
         fixed(a.jobStepNs
                   ? 100.0 * static_cast<double>(a.idealSavingNs) / static_cast<double>(a.jobStepNs)
                   : 0.0,
               2) +
         ",\"what\":\"step time saved if every straggler computed at the step median\"}";
  // Only when some sum was held (docs/FORMAT.md "Sums that would overflow").
  if (a.saturatedSums > 0) out += ",\n\"saturated_sums\":" + std::to_string(a.saturatedSums);
  appendSideTables(out, a);
  out += ",\n\"ranks_without_steps\":";
  appendInts(out, a.ranksWithoutSteps);
  out += ",\n\"steps_lacking_ranks\":[";
  for (size_t i = 0; i < a.stepGaps.size(); ++i) {
    out += std::string(i ? "," : "") + "{\"step\":" + std::to_string(a.stepGaps[i].first) +
           ",\"ranks\":";
    appendInts(out, a.stepGaps[i].second);
    out += "}";
  }
  out += "]}\n";
  return out;
}

namespace {

// "1, 2, 5" (the first `most`, then "... (N in all)").
std::string rankListText(const std::vector<int64_t>& ranks, size_t most) {
  std::string s;
  for (size_t i = 0; i < ranks.size() && i < most; ++i)
    s += (i ? ", " : "") + std::to_string(ranks[i]);
  if (ranks.size() > most) s += ", ... (" + std::to_string(ranks.size()) + " in all)";
  return s;
}

}  // namespace

std::vector<std::string> terminalSummary(const JobAnalysis& a, const Topology&) {
  std::vector<std::string> lines;
  lines.push_back("analysis: " + std::to_string(a.ranks) + " ranks x " + std::to_string(a.steps) +
                  " steps; step time " + formatMs(a.medianStepNs) + " (median; steps " +
                  formatMs(a.minStepNs) + " .. " + formatMs(a.maxStepNs) + ")");
  if (a.saturatedSums > 0)
    lines.push_back("analysis: warning: " + std::to_string(a.saturatedSums) +
                    " sums of step ns passed 2^63 - 1 and are shown as 2^63 - 1 (sum_saturated; "
                    "findings.json saturated_sums)");
  if (!a.ranksWithoutSteps.empty())
    lines.push_back("analysis: " + std::to_string(a.ranksWithoutSteps.size()) +
                    " ranks have no step (no ProfilerStep span or step marker), left out of the "
                    "step analysis: ranks " + rankListText(a.ranksWithoutSteps, 16));
  for (size_t i = 0; i < a.stepGaps.size() && i < 3; ++i)
    lines.push_back("analysis: step " + std::to_string(a.stepGaps[i].first) + " is missing on " +
                    std::to_string(a.stepGaps[i].second.size()) + " ranks (" +
                    rankListText(a.stepGaps[i].second, 16) + "); analysed over the others");
  if (a.stepGaps.size() > 3)
    lines.push_back("analysis: " + std::to_string(a.stepGaps.size() - 3) +
                    " more steps are missing on some ranks (findings.json steps_lacking_ranks)");
  if (a.steps == 0) {
    lines.front() += "; no forward/backward markers, no step table";
    return lines;
  }
  lines.push_back("per step (median rank): compute " + formatMs(a.breakdownNs[0]) + ", comm " +
                  formatMs(a.breakdownNs[1]) + ", memcpy " + formatMs(a.breakdownNs[2]) +
                  ", idle " + formatMs(a.breakdownNs[3]) + ", overlap " +
                  formatMs(a.breakdownNs[4]));
  if (a.findings.empty())
    lines.push_back("findings: none (no straggler costing >= " + fixed(100 * kMinScore, 0) +
                    " % of step time)");
  const size_t shown = std::min<size_t>(a.findings.size(), 5);
  for (size_t i = 0; i < shown; ++i)
    lines.push_back(a.findings[i].kind + ": " + a.findings[i].evidence);
  if (a.findings.size() > shown)
    lines.push_back("... " + std::to_string(a.findings.size() - shown) +
                    " more findings in findings.json");
  if (!a.findings.empty())
    lines.push_back("ideal job (every straggler at the median): " + formatMs(a.idealSavingNs) +
                    " of " + formatMs(a.jobStepNs) + " step time saved (" +
                    fixed(100.0 * static_cast<double>(a.idealSavingNs) /
                              static_cast<double>(a.jobStepNs ? a.jobStepNs : 1),
                          1) +
                    " %)");
  return lines;
}

}  // namespace xstack
