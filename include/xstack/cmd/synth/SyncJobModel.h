// `xstack synth --sync`: a synchronous data-parallel job. Every step of every
// rank ends in one NCCL all-reduce kernel (ncclKernel_AllReduce_RING_LL_Sum_float)
// that finishes at the same true time on all ranks: at the slowest rank's
// compute end plus the all-reduce time. A slow rank (--slow, --slow-step,
// --slow-trainer) has longer compute kernels and the SHORTEST all-reduce; the
// others wait inside theirs. A stalled rank (--stall, --stall-step,
// --stall-trainer) has the same kernels but its host spends MS ms in a
// data-loader op after forward_B, so its GPU idles and it reaches the
// all-reduce late; a --slow-memcpy rank's copies take longer. Markers, CPU ops, CUDA API calls,
// memcpy kernels and memory events are written as in the default generator; the trainer's clock
// skew is added to every timestamp of its ranks.
//
// The model hands its events to a SyncJobEvents writer (cmd/synth/SyncJobEvents.h):
// writeProfile writes Paddle protobuf Profiles, cmd/synth/ChromeTraceSynth.h the
// Kineto and Paddle JSON traces of `xstack synth --format kineto|paddle-json`.
// The first operator of every step also launches a 1 MiB memset on the
// all-reduce stream, under that operator's kernel: only the JSON formats
// write it (the Profiles keep their bytes), and it is in no truth column.
//
// The model also writes `<out>/sync_truth.csv`: per (rank, step) the values
// the analysis must find (step_ns, compute_ns, comm_ns, memcpy_ns, in ns),
// computed from the generated kernels directly.
#pragma once

#include <cstdint>
#include <filesystem>
#include <map>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "xstack/cmd/synth/SyncJobEvents.h"
#include "xstack/cmd/synth/Synth.h"

namespace xstack {

class SyncJobModel {
 public:
  // Plans every step of every rank (the common all-reduce ends need all
  // ranks' compute times first). Cost: one dry pass over all ops.
  explicit SyncJobModel(const SynthOptions& options);

  // Hands every event of `rank` to `out` (true times, no skew) and returns
  // the rank's {begin_ns, end_ns}, or nothing when out.finish failed.
  std::optional<std::pair<uint64_t, uint64_t>> writeRank(int64_t rank, SyncJobEvents& out);

  // Every rank's data starts at this true time (ns, before the skew).
  uint64_t beginNs() const;

  // The host thread (also the process id) of rank's main thread; its other
  // threads are the next two ids.
  static uint64_t mainThreadOf(int64_t rank) { return static_cast<uint64_t>(10000 + rank * 10); }

  // Writes rank's profile to `path`; returns its profile {start_ns, end_ns}
  // (with the trainer's `skewNs`), or nothing when the file could not be
  // written whole (a full disk).
  std::optional<std::pair<uint64_t, uint64_t>> writeProfile(int64_t rank, uint64_t skewNs,
                                                            const std::filesystem::path& path);

  // The truth table of every rank written so far, ordered by rank then step.
  bool writeTruth(const std::filesystem::path& path) const;

  // Compute slow-down factor of (rank, step) (1 when not slowed).
  double slowFactor(int64_t rank, int64_t step) const;

  // What is injected into (rank, step): compute factor (noise included),
  // copy factor, host stall (ns, a data-loader op before the first operator).
  struct Injected {
    double compute = 1, memcpy = 1;
    uint64_t stallNs = 0;
  };
  Injected injected(int64_t rank, int64_t step) const;

 private:
  struct StepTruth {
    uint64_t stepNs = 0, computeNs = 0, commNs = 0, memcpyNs = 0;
  };
  struct StepPlan {
    uint64_t startNs = 0;     // true time of every rank's forward_B
    uint64_t allReduceEndNs;  // true time the all-reduce ends on every rank
  };
  const SynthOptions& o_;
  std::vector<StepPlan> steps_;
  std::map<int64_t, std::vector<StepTruth>> truth_;
};

// SyncJobModel::injected and slowFactor for any job of `o` (the 3D model uses
// them too): the compute factor (noise included), copy factor and host stall
// (ns) of (rank, step).
SyncJobModel::Injected syncJobInjected(const SynthOptions& o, int64_t rank, int64_t step);
double syncJobSlowFactor(const SynthOptions& o, int64_t rank, int64_t step);

}  // namespace xstack
