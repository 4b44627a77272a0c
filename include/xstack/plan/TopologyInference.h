// --gpus-per-trainer (P) from the inputs, when the option is not given, and
// its check against the inputs when it is (issue 10, docs/FORMAT.md section 2):
//   1. time file names time.txt.<gpu>.<trainer>: P = largest gpu + 1;
//   2. else the GPU ids of the DCGM rows: P = largest id + 1;
//   3. else P = 8, with a note saying it was assumed.
// A given P is contradicted by the time files when a time file names a gpu
// >= P, or when, under P, time files point at ranks with no profile while
// profiles have no time file, and the value the time files imply fits better.
// Pure: the same evidence gives the same answer on every rank.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "xstack/input/InputFile.h"

namespace xstack {

struct TopologyEvidence {
  std::vector<InputFile> files;      // every input file of the plan (all kinds)
  std::vector<int64_t> dcgmGpuIds;   // GPU ids seen in DCGM rows (any order, repeats allowed)
  std::optional<int64_t> explicitP;  // --gpus-per-trainer as given on the command line
};

enum class GpusPerTrainerSource { Option, TimeFiles, DcgmGpuIds, Assumed };

struct GpusPerTrainer {
  int64_t value = 8;  // the effective P (the only thing that reaches otherData)
  GpusPerTrainerSource source = GpusPerTrainerSource::Assumed;
  std::string contradiction;          // non-empty: a usage error (exit 2), names option and files
  std::vector<std::string> notes;     // "note: ..." lines for the run log
  std::vector<std::string> warnings;  // "warning: ..." lines (dcgm/net of a trainer w/o profiles)
};

// The value P implied by time file names (largest gpu + 1), if there are any.
std::optional<int64_t> gpusPerTrainerFromTimeFiles(const std::vector<InputFile>& files);

GpusPerTrainer inferGpusPerTrainer(const TopologyEvidence& evidence);

}  // namespace xstack
