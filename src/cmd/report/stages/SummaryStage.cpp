#include <chrono>
#include <cstdio>
#include <filesystem>
#include <map>
#include <set>

#include "xstack/cmd/report/stages/ReportStages.h"

namespace xstack {
namespace {

std::string humanBytes(uint64_t b) {
  char buf[64];
  if (b >= (uint64_t{1} << 30))
    std::snprintf(buf, sizeof buf, "%.2f GiB", b / 1073741824.0);
  else if (b >= (1u << 20))
    std::snprintf(buf, sizeof buf, "%.1f MiB", b / 1048576.0);
  else
    std::snprintf(buf, sizeof buf, "%llu bytes", static_cast<unsigned long long>(b));
  return buf;
}

// What the inputs were, over all ranks' summaries.
struct InputTotals {
  std::map<std::string, uint64_t> byKind;
  uint64_t events = 0;
  std::set<std::string> hosts;
  Warnings warnings;
  // The same examples, each followed by "[<path>, read by MPI rank R on H]"
  // (console only: placement-dependent).
  Warnings consoleExamples;
  bool anyProblem = false;
};

// Adds up the summaries; logs each input that had a problem.
InputTotals totalInputs(const ReportRun& run, const std::vector<InputSummary>& all) {
  InputTotals t;
  for (const auto& s : all) {
    t.byKind[kindName(s.file.kind)]++;
    t.events += s.events + s.memEvents;
    t.hosts.insert(s.readerHost);
    t.warnings.merge(s.warnings);
    for (const auto& [k, e] : s.warnings.entries())
      for (const auto& x : e.examples)
        t.consoleExamples.addExample(k, x + " [" + s.file.path + ", read by MPI rank " +
                                            std::to_string(s.reader) + " on " + s.readerHost + "]");
    if (s.status == InputStatus::Ok) continue;
    t.anyProblem = true;
    // A profile names its training rank too: a JSON trace's name need not carry it.
    const std::string subject =
        s.file.kind == InputKind::Profile
            ? "profile of training rank " + std::to_string(s.file.id) + ": "
            : std::string(kindName(s.file.kind)) + " ";
    run.log(std::string(statusName(s.status)) + ": " + subject + s.file.path + " (read by rank " +
            std::to_string(s.reader) + " on " + s.readerHost + "): " + s.problem);
  }
  return t;
}

// "3 7-99999 100001": ascending ranks as ranges, at most 20 echoed (a
// console line stays short whatever the ranks are).
std::string rankRanges(const std::vector<int64_t>& ranks) {
  std::string m;
  size_t shown = 0, ranges = 0;
  for (size_t i = 0; i < ranks.size(); ++ranges) {
    size_t j = i;
    while (j + 1 < ranks.size() && ranks[j + 1] == ranks[j] + 1) ++j;
    if (shown < 20) {
      m += (m.empty() ? "" : " ") + std::to_string(ranks[i]) +
           (j > i ? "-" + std::to_string(ranks[j]) : std::string());
      ++shown;
    }
    i = j + 1;
  }
  if (ranges > shown) m += " ... (" + std::to_string(ranges) + " ranges in all)";
  if (ranks.size() >= kMaxMissingRanks)
    m += " (and possibly more: the list stops at " + std::to_string(kMaxMissingRanks) + ")";
  return m;
}

void logMissingRanks(const ReportRun& run, const JobShape& shape) {
  if (shape.missingRanks.empty()) return;
  run.log("note: no profile for ranks " + rankRanges(shape.missingRanks) +
          " (below the highest rank found)");
}

// Where the run's files are: --out, or the folder's path after a rename.
const std::string& outPathOf(const ReportRun& run, const WriteResult& written) {
  return written.outPath.empty() ? run.options.outDir : written.outPath;
}

void logTotals(const ReportRun& run, const InputTotals& t, const WriteResult& written) {
  double secs = std::chrono::duration<double>(std::chrono::steady_clock::now() - run.start).count();
  std::string kinds;
  for (const auto& [k, n] : t.byKind)
    kinds += (kinds.empty() ? "" : ", ") + std::to_string(n) + " " + k;
  char line[512];
  std::snprintf(line, sizeof line, "wrote %llu trace files (%s) to %s in %.2f s",
                static_cast<unsigned long long>(written.filesWritten),
                humanBytes(written.bytesWritten).c_str(), outPathOf(run, written).c_str(), secs);
  run.log(line);
  run.log("inputs: " + kinds + "; " + std::to_string(t.events) + " events; " +
          std::to_string(run.comm.size()) + " MPI ranks on " + std::to_string(t.hosts.size()) +
          " hosts read them");
}

// The counts, then the first examples of each kind (docs/WARNINGS.md).
void logWarnings(const ReportRun& run, const Warnings& warnings, const Warnings& examples) {
  if (warnings.empty()) return;
  std::string w;
  for (const auto& [k, e] : warnings.entries())
    w += (w.empty() ? "" : ", ") + std::string(warnName(k)) + " " + std::to_string(e.count);
  run.log("warnings: " + w);
  for (const auto& [k, e] : examples.entries())
    for (const auto& x : e.examples) run.log("  " + std::string(warnName(k)) + ": " + x);
}

}  // namespace

int summaryStage(ReportRun& run, const GatheredSummaries& gathered, const WriteResult& written,
                 const JobShape& shape, const AnalysisResult& analysis, bool inputFailed) {
  logMissingRanks(run, shape);
  InputTotals totals = totalInputs(run, gathered.all);
  for (const auto& p :
       std::set<std::string>(written.renderProblems.begin(), written.renderProblems.end()))
    run.log("render failed: " + p);
  logTotals(run, totals, written);
  totals.warnings.merge(written.warnings);
  logWarnings(run, totals.warnings, totals.consoleExamples);
  if (!analysis.written.ok()) run.log("analysis not written: " + analysis.written.error().message);
  for (const std::string& l : analysis.lines) run.log(l);
  if (analysis.written.ok() && !analysis.lines.empty())  // the analysis ran and was written
    run.log("report: " + (std::filesystem::path(outPathOf(run, written)) / "report.html").string() +
            " (findings.json, steps.csv, ranks.csv, kernels.csv beside it)");
  bool partial = totals.anyProblem || !written.renderProblems.empty() || inputFailed ||
                 !analysis.written.ok() || !written.commitProblems.empty();
  return run.comm.allTrue(!partial) ? kExitOk : kExitPartial;
}

}  // namespace xstack
