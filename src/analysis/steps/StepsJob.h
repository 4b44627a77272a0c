// The job part of the "steps" analysis (StepsAnalysis.h), shared by its files.
#pragma once

#include <cstdint>
#include <string>
#include <utility>
#include <vector>

#include "xstack/analysis/Analysis.h"
#include "xstack/analysis/Findings.h"
#include "xstack/analysis/JobBoard.h"
#include "xstack/analysis/StepTable.h"

namespace xstack {

class StepsJob final : public AnalysisJob {
 public:
  explicit StepsJob(AnalysisJobOptions options) : options_(std::move(options)) {}
  void merge(Comm& comm, const std::vector<RankPart>& local) override;
  void conclude(const JobBoard& board) override;
  Status status() const override { return status_; }
  std::vector<int64_t> ranksToShow() const override;
  TraceExtraRows annotations(int64_t group, int64_t gpu, int64_t pid,
                             uint64_t originNs) const override;
  Status write(Comm& comm, const std::vector<RankPart>& local, const AnalysisOutput& out) override;
  // Keeps the findings and the step rows of the ranks they name (annotations').
  void releaseAfterWrite() override;

 private:
  void analyse();
  std::vector<std::pair<int64_t, uint64_t>> instantsOf(const Finding& f, int64_t group,
                                                       int64_t gpu) const;
  Status writeOnRoot(Comm& comm, const std::vector<RankPart>& local, const AnalysisOutput& out);
  Status writeTables(const JobAnalysis& a, const AnalysisOutput& out,
                     std::vector<AtomicFile>& written) const;
  int readerOf(int64_t rank) const;
  Status nameKernelSpread(Comm& comm, const std::vector<RankPart>& local,
                          std::vector<KernelSpread>& spread) const;

  AnalysisJobOptions options_;
  std::vector<RankTable> tables_;  // rank 0: ordered by rank
  // Rank 0: (training rank, MPI rank that read it) of every table, ordered by
  // rank: whom rank 0 asks for a kernel's name.
  std::vector<std::pair<int64_t, int>> readers_;
  JobBoard board_;        // rank 0: the other analyses' products (conclude)
  JobAnalysis analysis_;  // rank 0
  Status status_;         // rank 0: a decode or analysis failure: no files, no instants
};

// Rank 0: the name of the kernel `digest` of training rank `rank`, read by
// MPI rank `reader` (which is serving name requests); empty when unknown.
std::string kernelNameFrom(Comm& comm, const std::vector<RankPart>& local, int64_t rank,
                           uint64_t digest, int reader);
// A reader (MPI rank > 0) answers rank 0's kernel-name requests from its own
// step tables (with names), until rank 0 releases it (releaseNameServers).
void serveKernelNames(Comm& comm, const std::vector<RankPart>& local);
// Rank 0: ends every other rank's serveKernelNames (always sent).
void releaseNameServers(Comm& comm);

}  // namespace xstack
