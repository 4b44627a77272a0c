// `xstack diff` (cmd/diff/Diff.h): read both folders, compare, print, write diff.html.
#include "xstack/cmd/diff/Diff.h"

#include <cstdio>
#include <filesystem>

#include "xstack/cmd/common/ExitCode.h"
#include "xstack/core/TerminalText.h"
#include "xstack/io/AtomicFile.h"

namespace fs = std::filesystem;

namespace xstack {
namespace {

bool sameRank(const RankCategories& x, const RankCategories& y) {
  return x.spanNs == y.spanNs && x.idleNs == y.idleNs && x.computeNs == y.computeNs &&
         x.nonComputeNs == y.nonComputeNs && x.overlapPct == y.overlapPct && x.steps == y.steps;
}

bool stepsEqual(const StepsDiff& s) {
  if (!s.onlyA.empty() || !s.onlyB.empty() || s.aMedianNs != s.bMedianNs) return false;
  for (const StepDelta& d : s.common)
    if (d.aNs != d.bNs) return false;
  return true;
}

bool ranksEqual(const RanksDiff& r) {
  if (!r.onlyA.empty() || !r.onlyB.empty()) return false;
  for (const RankDelta& d : r.all)
    if (!sameRank(d.a, d.b)) return false;
  return true;
}

bool findingsEqual(const FindingsDiff& f) {
  if (!f.added.empty() || !f.vanished.empty()) return false;
  for (const auto& [x, y] : f.kept)
    if (x.steps != y.steps || x.cause != y.cause) return false;
  return true;
}

bool kernelsEqual(const KernelsDiff& k) {
  return k.changedNames == 0 && k.newNames == 0 && k.vanishedNames == 0;
}

bool collectivesEqual(const CollectivesDiff& c) {
  return c.changedRows == 0 && c.added.empty() && c.vanished.empty();
}

bool waitsEqual(const WaitsDiff& w) {
  return w.moved.empty() && w.causeChanged.empty() && w.onlyA.empty() && w.onlyB.empty();
}

bool nothingChanged(const DiffResult& d, bool oneSided) {
  if (oneSided) return false;
  if (!d.steps && !d.ranks && !d.kernels && !d.findings && !d.collectives && !d.waits &&
      !d.criticalPath)
    return false;  // nothing compared
  return (!d.steps || stepsEqual(*d.steps)) && (!d.ranks || ranksEqual(*d.ranks)) &&
         (!d.kernels || kernelsEqual(*d.kernels)) && (!d.findings || findingsEqual(*d.findings)) &&
         (!d.collectives || collectivesEqual(*d.collectives)) &&
         (!d.waits || waitsEqual(*d.waits)) && (!d.criticalPath || d.criticalPath->same);
}

// "A: kernels.csv" for each file missing in a folder; true when a file is
// missing on one side only (a difference in itself).
bool noteMissing(const FolderAnalysis& a, const FolderAnalysis& b, std::vector<std::string>& out) {
  bool oneSided = false;
  for (const char* name : kAnalysisFiles) {
    auto in = [&](const FolderAnalysis& f) {
      return std::find(f.missing.begin(), f.missing.end(), name) != f.missing.end();
    };
    if (in(a)) out.push_back("A: " + std::string(name));
    if (in(b)) out.push_back("B: " + std::string(name));
    oneSided = oneSided || in(a) != in(b);
  }
  return oneSided;
}

}  // namespace

Expected<DiffResult> computeDiff(const std::string& aDir, const std::string& bDir) {
  auto a = readFolderAnalysis(aDir);
  if (!a) return a.error();
  auto b = readFolderAnalysis(bDir);
  if (!b) return b.error();
  DiffResult d;
  d.a = aDir;
  d.b = bDir;
  const bool oneSided = noteMissing(*a, *b, d.missing);
  if (a->steps && b->steps) d.steps = diffSteps(*a->steps, *b->steps);
  if (a->ranks && b->ranks) d.ranks = diffRanks(*a->ranks, *b->ranks);
  if (a->findings && b->findings) d.findings = diffFindings(*a->findings, *b->findings);
  if (a->collectives && b->collectives)
    d.collectives = diffCollectives(*a->collectives, *b->collectives);
  if (a->waits && b->waits) d.waits = diffWaits(*a->waits, *b->waits);
  if (a->criticalPath && b->criticalPath)
    d.criticalPath = diffCriticalPath(*a->criticalPath, *b->criticalPath);
  if (a->hasKernels && b->hasKernels) {
    auto k = diffKernels((fs::path(aDir) / "kernels.csv").string(),
                         (fs::path(bDir) / "kernels.csv").string());
    if (!k) return k.error();
    d.kernels = std::move(*k);
  }
  d.noChange = nothingChanged(d, oneSided);
  return d;
}

int runDiff(const DiffOptions& o) {
  auto d = computeDiff(o.a, o.b);
  if (!d) {
    // Messages name the folders and files and quote their bytes: made safe for the terminal.
    std::fprintf(stderr, "xstack: diff: %s\n", terminalSafe(d.error().message).c_str());
    return kExitFatal;
  }
  const std::string dir = o.outDir.empty() ? o.b : o.outDir;
  std::error_code ec;
  fs::create_directories(dir, ec);
  std::string html = (fs::path(dir) / "diff.html").string();
  // The comparison is printed even when diff.html cannot be written (rc 1 then).
  Status st = writeFileAtomically(dir, "diff.html", diffHtml(*d, o.commandLine));
  if (!st) html.clear();
  const std::string out =
      o.json ? diffJson(*d, html)
             : diffText(*d) + (html.empty() ? "diff.html: not written\n"
                                            : "diff.html: " + terminalSafe(html) + "\n");
  std::fwrite(out.data(), 1, out.size(), stdout);
  const bool printed = std::fflush(stdout) == 0;
  if (!st) std::fprintf(stderr, "xstack: diff: %s\n", terminalSafe(st.error().message).c_str());
  return printed && st ? kExitOk : kExitFatal;
}

}  // namespace xstack
