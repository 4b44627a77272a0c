// What `xstack diff` reads from one `xstack report` output folder: the
// analysis files of docs/ANALYSIS.md only (steps.csv, ranks.csv, kernels.csv,
// findings.json, collectives.csv, waits.csv), never the traces. Every reader returns an Error
// naming the file (and line) for a file that exists but cannot be read or parsed; a missing file is
// not an error (the caller says what is missing). Times are integer ns as in the files.
#pragma once

#include <cstdint>
#include <functional>
#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "xstack/core/Status.h"

namespace xstack {

// steps.csv reduced to what the diff shows: per step, the median over the
// ranks of step_ns; O(rows) numbers while reading, O(steps) kept.
struct StepTimes {
  std::vector<int64_t> steps;      // ascending step numbers
  std::vector<uint64_t> medianNs;  // medianNs[i]: median step_ns over the ranks of steps[i]
  uint64_t medianStepNs = 0;       // median over the steps of medianNs (the report's "step time")
  int64_t ranks = 0;               // distinct ranks
  uint64_t rows = 0;
};

// One row of ranks.csv (HTA's temporal breakdown of the rank's GPU span).
struct RankCategories {
  int64_t rank = 0, trainer = 0, gpu = 0, steps = 0;
  uint64_t spanNs = 0, idleNs = 0, computeNs = 0, nonComputeNs = 0;
  double overlapPct = -1;  // comm_comp_overlap_pct; -1: empty (the rank has no communication)
  std::string node;        // PyTorch traces' node (ranks.csv's node column; empty: none)
  int64_t localRank = -1;  // and local rank (local_rank; -1: none)
};

// One finding of findings.json; `kind` + `ranks` identify it across runs.
struct FindingEntry {
  std::string kind;
  std::vector<int64_t> ranks;
  std::string steps;  // "all" or the step numbers, comma separated
  std::string cause;  // empty when the file has no "cause"
  std::string evidence;
  // cost_ms, milliseconds (a findings.json written before costs were in ms has cost_s: read
  // x 1000); 0 when the file has neither
  double costMs = 0;
};

// One kernels.csv row, as the streaming reader yields it.
struct KernelRow {
  int64_t rank = 0;
  std::string_view name, category;
  uint64_t count = 0, totalNs = 0;
};

// One row of collectives.csv (docs/FORMAT.md); (group, collective, bytes)
// identifies it across runs. The files' ms with 3 decimals are read exactly,
// as integer microseconds.
struct CollectiveStat {
  std::string group;  // empty: the default group
  std::string collective;
  uint64_t bytes = 0, count = 0;
  uint64_t transferP50Us = 0, transferP95Us = 0;
  double busbwGbps = -1;  // busbw_p50_gbps, GB/s (1e9 bytes/s); -1: empty (no bandwidth)
  uint64_t waitUs = 0;    // wait_ms: the members' summed waits
  int64_t topLateRank = 0;
  double topLateShare = 0;  // 0..1: share of the row's instances where topLateRank was last
  int64_t bytesP50 = -1;    // bytes_p50; -1: not in the file (written by an older xstack)
};

// One row of waits.csv: a rank's waits in collectives, per step, in microseconds.
struct RankWaits {
  int64_t rank = 0;
  std::string node;       // the rank's trainer (never a host name)
  uint64_t waitedUs = 0;  // waited_ms_per_step: this rank's waits
  uint64_t causedUs = 0;  // caused_ms_per_step: the others' waits charged to it
  std::string topCause;   // compute, host, unknown; empty: none
};

// critical_path.csv summed over its steps (docs/FORMAT.md): ns on the path per
// kind and per (rank, kind). Sums are held at 2^63 - 1 (addSaturating)
// instead of wrapping. Memory: O(ranks on the path x kinds), never a row kept.
struct CriticalPathTotals {
  uint64_t steps = 0;    // distinct steps (a step's rows are contiguous)
  uint64_t totalNs = 0;  // every segment's dur_ns
  std::map<std::string, uint64_t> kindNs;
  std::map<int64_t, std::map<std::string, uint64_t>> rankKindNs;
};

// The analysis files `xstack diff` reads, in the order it names missing ones.
inline constexpr const char* kAnalysisFiles[] = {
    "steps.csv",       "ranks.csv", "kernels.csv",      "findings.json",
    "collectives.csv", "waits.csv", "critical_path.csv"};

// The analysis files of one folder; nullopt: that file is missing.
struct FolderAnalysis {
  std::string dir;
  std::optional<StepTimes> steps;
  std::optional<std::vector<RankCategories>> ranks;  // ordered by rank
  std::optional<std::vector<FindingEntry>> findings;
  std::optional<std::vector<CollectiveStat>> collectives;  // in file order
  std::optional<std::vector<RankWaits>> waits;             // ordered by rank
  std::optional<CriticalPathTotals> criticalPath;
  bool hasKernels = false;           // kernels.csv exists (streamed later, see forEachKernelRow)
  bool hasTraces = false;            // a traceFile_* is there (a --no-analysis run)
  std::vector<std::string> missing;  // names of the missing analysis files
};

// Reads an RFC 4180 CSV file record by record with bounded memory (quoted
// fields may hold ',', '"' doubled and line breaks). The first record is the
// header; `onRecord` gets each later record's fields and its first line
// number, and returns an Error message (empty: ok) which stops the read.
// Errors name the file and line. `column` holds the index of each of
// `needColumns`, then of each of `optionalColumns` (kNoColumn: not in the header).
inline constexpr size_t kNoColumn = static_cast<size_t>(-1);
Status readCsv(const std::string& path, const std::vector<std::string>& needColumns,
               const std::function<std::string(const std::vector<std::string>& fields,
                                               const std::vector<size_t>& column)>& onRecord,
               const std::vector<std::string>& optionalColumns = {});

// Splits one CSV record (without its final line break) into fields; false
// when a quote is not closed.
bool splitCsvRecord(std::string_view record, std::vector<std::string>& fields);

Expected<StepTimes> readStepsCsv(const std::string& path);
Expected<std::vector<RankCategories>> readRanksCsv(const std::string& path);
Expected<std::vector<FindingEntry>> readFindingsJson(const std::string& path);
// collectives.csv: rows in file order; a (group, collective, bytes) twice is an error.
Expected<std::vector<CollectiveStat>> readCollectivesCsv(const std::string& path);
// waits.csv: rows by ascending rank (checked: a rank out of order or twice is an error).
Expected<std::vector<RankWaits>> readWaitsCsv(const std::string& path);
// critical_path.csv: rows by step (checked: a step after a later one is an
// error), dur_ns an integer, kind not empty.
Expected<CriticalPathTotals> readCriticalPathCsv(const std::string& path);
// Calls onRow for every row of kernels.csv, in file order (streamed: one row
// in memory at a time).
Status forEachKernelRow(const std::string& path,
                        const std::function<void(const KernelRow&)>& onRow);

// The folder's analysis files (kernels.csv only checked for existence). An
// Error when `dir` is not a readable folder, when it holds neither analysis
// files nor traces, or when a file that is there cannot be parsed.
Expected<FolderAnalysis> readFolderAnalysis(const std::string& dir);

// Median as the report computes it (the mean of the two middle values,
// rounded down, for an even count); 0 for none.
uint64_t medianNs(std::vector<uint64_t> v);

}  // namespace xstack
