// --gpus-per-trainer (P) from the inputs, when the option is not given, and
// its check against the inputs when it is (docs/FORMAT.md section 2):
//   1. time file names time.txt.<gpu>.<trainer>: P = largest gpu + 1;
//   2. else the GPU ids of the DCGM rows: P = largest id + 1;
//   3. else, for traces that tell their topology (Chrome JSON): the most GPUs
//      a trace's process saw (deviceProperties), else settled after the read
//      from the devices the traces' GPU work ran on
//      (gpusPerTrainerFromTraceDevices);
//   4. else P = 8, with a note saying it was assumed.
// A given P is contradicted by the time files when a time file names a gpu
// >= P, or when, under P, time files point at ranks with no profile while
// profiles have no time file, and the value the time files imply fits better.
// An inferred P that rests on stray time files is an error too (exit 2): when
// none of the files naming the largest GPU belongs to a rank with a profile,
// while profiles have no time file, and no other GPU is named or a smaller
// value fits the files better (e.g. a stray time.txt.1000.0 beside a job of
// 2-GPU nodes would make one trainer of 1001 GPUs).
// Pure: the same evidence gives the same answer on every rank.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "xstack/event/InputFile.h"

namespace xstack {

struct TopologyEvidence {
  std::vector<InputFile> files;      // every input file of the plan (all kinds)
  std::vector<int64_t> dcgmGpuIds;   // GPU ids seen in DCGM rows (any order, repeats allowed)
  std::optional<int64_t> explicitP;  // --gpus-per-trainer as given on the command line
  // Traces that tell their topology (Chrome JSON): the most GPUs a trace's
  // process saw (deviceProperties; 0 none say), and that their devices are
  // checked once read (gpusPerTrainerAgainstTraces).
  int64_t traceVisibleGpus = 0;
  bool tracesTellDevices = false;
};

enum class GpusPerTrainerSource {
  Option,
  TimeFiles,
  DcgmGpuIds,
  Assumed,
  TraceDevices,  // deviceProperties
  TraceGpuIds,   // the devices of the traces' GPU work, after the read
};
const char* gpusPerTrainerSourceName(GpusPerTrainerSource s);

struct GpusPerTrainer {
  int64_t value = 8;  // the effective P (the only thing that reaches otherData)
  GpusPerTrainerSource source = GpusPerTrainerSource::Assumed;
  std::string contradiction;          // non-empty: a usage error (exit 2), names option and files
  std::vector<std::string> notes;     // "note: ..." lines for the run log
  std::vector<std::string> warnings;  // "warning: ..." lines (dcgm/net of a trainer w/o profiles)
  // True when only the traces' GPU devices can tell P (JSON traces without
  // deviceProperties, no option): `value` is 8 for the read, and
  // gpusPerTrainerFromTraceDevices settles it after the read (notes empty).
  bool settledAfterRead = false;
};

// The value P implied by time file names (largest gpu + 1), if there are any.
std::optional<int64_t> gpusPerTrainerFromTimeFiles(const std::vector<InputFile>& files);

GpusPerTrainer inferGpusPerTrainer(const TopologyEvidence& evidence);

// What one trace file (Chrome JSON) says of its rank's place on its node.
struct TraceTopologyEvidence {
  int64_t rank = 0;
  std::string file;                 // its name, for messages
  std::vector<int64_t> gpuDevices;  // devices of its GPU activities, ascending, distinct
  int64_t visibleGpus = 0;          // deviceProperties' length (0: absent)
};

// The check of P, settled before the read (option, deviceProperties or
// assumed), against the devices the traces ran on (docs/FORMAT.md section 8).
// A rank "shows" its local GPU d when all its GPU activities run on one
// device d and its process saw several GPUs or d > 0 (a process that sees
// only its own GPU calls it 0 whatever its place: no evidence). P fits when
// every showing rank has d < P and rank mod P == d. A misfit is a
// contradiction (exit 2) naming the file and the P that fits; when no P up
// to kMaxGpusPerTrainer fits, a note instead (device ids that do not follow
// the ranks: a launcher's choice, nothing wrong; rank mod P names the trace
// files). A trace whose GPU work runs on a device above kMaxGpuId is no
// evidence, and a warning names it. A job of one rank (one trace, of rank 0,
// and `worldSize`, the ranks the files declare, at most 1; 0: none says) may
// run on any GPU: nothing to check, no warning.
struct TraceTopologyCheck {
  std::string contradiction;
  std::vector<std::string> warnings;
  std::vector<std::string> notes;
};
TraceTopologyCheck gpusPerTrainerAgainstTraces(const std::vector<TraceTopologyEvidence>& traces,
                                               int64_t P, GpusPerTrainerSource source,
                                               int64_t worldSize = 0);

// P from the devices the traces' GPU work ran on, when nothing before the
// read told it (GpusPerTrainer::settledAfterRead): the smallest P that every
// showing rank fits (rank mod P = its GPU), which is the largest local GPU
// shown + 1 unless the ranks say more; with a note naming the rank that
// showed it. Ranks that show no GPU (none, several, or a lone device 0 of a
// process that saw one GPU) and devices above kMaxGpuId are no evidence. No
// showing rank, or no P up to kMaxGpusPerTrainer fits: 8, assumed, with a
// note. When `worldSize` (the job's ranks, as the files declare them; 0:
// unknown) is larger than the ranks present and a larger P fits too, the
// note says so. A job of one rank (as for gpusPerTrainerAgainstTraces) whose
// GPU work shows a GPU no P fits (rank 0 on GPU d > 0): 1, with a note naming
// the trace and its GPU. Pure.
GpusPerTrainer gpusPerTrainerFromTraceDevices(const std::vector<TraceTopologyEvidence>& traces,
                                              int64_t worldSize);

// A message of this file in the PyTorch family's words (Topology::nodeWords):
// --gpus-per-node for --gpus-per-trainer, node and local rank for trainer and GPU.
std::string inNodeWords(std::string line);

}  // namespace xstack
