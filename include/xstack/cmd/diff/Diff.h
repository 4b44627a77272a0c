// `xstack diff A B [--out DIR] [--json]`: two output folders of `xstack
// report` compared from their analysis files only (cmd/diff/DiffInputs.h; never
// the traces): the step time, the per-rank categories of ranks.csv, the
// kernels whose total time changed most (kernels.csv, streamed twice with
// memory bounded by the distinct kernel names), new and vanished findings,
// the collectives whose transfer or bus bandwidth changed most
// (collectives.csv), the ranks whose waits moved most (waits.csv) and how
// the critical path's time moved between kinds and ranks (critical_path.csv).
// Prints text (or, --json, one JSON document) on stdout and writes diff.html
// into DIR (default B) atomically. docs/DIFF.md has the definitions.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "xstack/cmd/diff/DiffInputs.h"

namespace xstack {

struct DiffOptions {
  std::string a, b;         // the two folders: A the baseline, B the run compared with it
  std::string outDir;       // where diff.html goes; empty: B
  bool json = false;        // JSON on stdout instead of the text
  std::string commandLine;  // shown in diff.html
};

// Step time: per step in both runs, the cross-rank median step_ns.
struct StepDelta {
  int64_t step = 0;
  uint64_t aNs = 0, bNs = 0;
};
struct StepsDiff {
  uint64_t aMedianNs = 0, bMedianNs = 0;  // median over steps (the report's "step time")
  int64_t aRanks = 0, bRanks = 0;
  std::vector<StepDelta> common;      // steps in both, ascending
  std::vector<int64_t> onlyA, onlyB;  // steps in one run only
};

// Categories of ranks.csv as percent of the rank's GPU span; overlap is
// comm_comp_overlap_pct (-1: none).
struct CategoryPct {
  double idle = 0, compute = 0, nonCompute = 0, overlap = -1;
};
struct RankDelta {
  int64_t rank = 0, trainer = 0, gpu = 0;
  RankCategories a, b;  // b's node and local rank name the rank in PyTorch's words
  CategoryPct aPct, bPct;
  // Largest |change - the median rank's change| over idle, compute and
  // non-compute, percentage points; `why` names that category.
  double scorePt = 0;
  std::string why;
};
struct RanksDiff {
  CategoryPct medianDeltaPt;    // the median rank's change, percentage points (overlap: -1 none)
  std::vector<RankDelta> all;   // ranks in both, by rank
  std::vector<size_t> changed;  // indexes into `all`: scorePt >= kRankChangePt, most first
  std::vector<int64_t> onlyA, onlyB;
};

// A kernel name summed over the ranks, in both runs.
struct KernelTotalsAB {
  uint64_t aCount = 0, aNs = 0, bCount = 0, bNs = 0;
  int64_t aRanks = 0, bRanks = 0;  // ranks that launched it
};
struct RankKernelDelta {
  int64_t rank = 0;
  uint64_t aNs = 0, bNs = 0;
};
struct KernelDelta {
  std::string name, category;
  KernelTotalsAB t;
  int64_t ranksChanged = 0;               // ranks whose total changed >= kRankKernelChange
  std::vector<RankKernelDelta> topRanks;  // up to 5 of them, largest |change| first
};
struct KernelsDiff {
  uint64_t namesA = 0, namesB = 0, newNames = 0, vanishedNames = 0, changedNames = 0;
  uint64_t aTotalNs = 0, bTotalNs = 0;
  // Sums of ns (a name's total, the totals, a rank's) held at 2^63 - 1 instead of
  // wrapping (docs/FORMAT.md "Sums that would overflow"); each sum counted once.
  uint64_t saturatedSums = 0;
  std::vector<KernelDelta> top;  // largest |total change| first (at most kTopKernels)
};

struct FindingsDiff {
  std::vector<FindingEntry> added, vanished;                // by kind + ranks
  std::vector<std::pair<FindingEntry, FindingEntry>> kept;  // (A, B)
};

// A row of collectives.csv in A and/or B, matched by (group, collective, bytes).
struct CollectiveDelta {
  CollectiveStat a, b;  // the key fields are set in both
  bool inA = false, inB = false;
  // Largest relative change of transfer p50 and busbw: |B - A| / max(A, B), 0..1 (0 for a row
  // in one run only, or when neither changed).
  double score = 0;
};
struct CollectivesDiff {
  uint64_t rowsA = 0, rowsB = 0, changedRows = 0;  // changed: in both, any column differs
  uint64_t aWaitUs = 0, bWaitUs = 0;               // wait_ms summed over the rows, us
  std::vector<CollectiveDelta> top;       // in both, score > 0, largest first (kTopCollectives)
  std::vector<CollectiveDelta> added;     // rows in B only, by key
  std::vector<CollectiveDelta> vanished;  // rows in A only, by key
};

// A rank's waits.csv row in both runs (per step, us).
struct RankWaitDelta {
  RankWaits a, b;
  uint64_t moveUs = 0;  // the larger of |waited change| and |caused change|
};
struct WaitsDiff {
  uint64_t aWaitedUs = 0, bWaitedUs = 0, aCausedUs = 0, bCausedUs = 0;  // summed over the ranks
  std::vector<RankWaitDelta> all;                                       // ranks in both, by rank
  std::vector<size_t> moved;         // indexes into `all`: moveUs > 0, largest first
  std::vector<size_t> causeChanged;  // indexes into `all`: top_cause differs, by rank
  std::vector<int64_t> onlyA, onlyB;
};

// The critical path (critical_path.csv) in both runs, per step: each file's
// sums divided by its own number of steps (integer ns).
struct PathKindDelta {
  std::string kind;
  uint64_t aNs = 0, bNs = 0;  // ns per step of the path in this kind
};
struct RankPathDelta {
  int64_t rank = 0;
  uint64_t aNs = 0, bNs = 0;  // ns per step of the path on this rank (0: not on it)
  std::string aKind, bKind;   // the kind of most of it (ties: the first by name); "" not on it
};
struct CriticalPathDiff {
  uint64_t aSteps = 0, bSteps = 0;
  uint64_t aNs = 0, bNs = 0;         // the path's time per step
  std::vector<PathKindDelta> kinds;  // every kind on either path, by name
  std::vector<RankPathDelta> ranks;  // every rank on either path, by rank
  std::vector<size_t> moved;         // indexes into `ranks`: aNs != bNs, largest |change| first
  bool same = false;                 // the two files' sums and steps are equal
};

struct DiffResult {
  std::string a, b;
  std::vector<std::string> missing;  // "A: kernels.csv", ...
  std::optional<StepsDiff> steps;
  std::optional<RanksDiff> ranks;
  std::optional<KernelsDiff> kernels;
  std::optional<FindingsDiff> findings;
  std::optional<CollectivesDiff> collectives;
  std::optional<WaitsDiff> waits;
  std::optional<CriticalPathDiff> criticalPath;
  bool noChange = false;  // every compared number and finding equal, nothing missing one side only
};

constexpr double kRankChangePt = 2.0;  // a rank is named when it moved this much off the median
constexpr double kRankKernelChange = 0.05;  // a rank's kernel total changed by 5 %
constexpr size_t kTopKernels = 20;
constexpr size_t kTopCollectives = 20;  // collectives.csv rows kept in `top`
constexpr size_t kTopWaitRanks = 20;    // ranks whose waits moved most, in --json's "top"
constexpr size_t kTopPathRanks = 20;    // ranks whose time on the critical path moved most

// The comparisons (DiffCompare.cpp); pure functions of the parsed files.
StepsDiff diffSteps(const StepTimes& a, const StepTimes& b);
RanksDiff diffRanks(const std::vector<RankCategories>& a, const std::vector<RankCategories>& b);
FindingsDiff diffFindings(const std::vector<FindingEntry>& a, const std::vector<FindingEntry>& b);
CollectivesDiff diffCollectives(const std::vector<CollectiveStat>& a,
                                const std::vector<CollectiveStat>& b);
// `a` and `b` ordered by rank (readWaitsCsv checks it).
WaitsDiff diffWaits(const std::vector<RankWaits>& a, const std::vector<RankWaits>& b);
CriticalPathDiff diffCriticalPath(const CriticalPathTotals& a, const CriticalPathTotals& b);
// Streams both kernels.csv twice: once to sum per name, once for the ranks
// of the top names. Memory: O(distinct names + kTopKernels x ranks).
Expected<KernelsDiff> diffKernels(const std::string& aPath, const std::string& bPath);
CategoryPct categoryPct(const RankCategories& r);

// Everything compared; an Error when a folder or a present file is unreadable.
Expected<DiffResult> computeDiff(const std::string& a, const std::string& b);

// The outputs (DiffText.cpp, DiffHtml.cpp).
std::string diffText(const DiffResult& d);
// `htmlPath` empty: diff.html was not written ("html": null).
std::string diffJson(const DiffResult& d, const std::string& htmlPath);
std::string diffHtml(const DiffResult& d, const std::string& commandLine);

// The command: rc 0, or 1: an unreadable or invalid folder or file (named on
// stderr; nothing printed or written), or diff.html that cannot be written
// (the comparison is still printed, the error named on stderr).
int runDiff(const DiffOptions& options);

}  // namespace xstack
