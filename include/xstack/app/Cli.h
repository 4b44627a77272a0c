// Command line of the four subcommands. Parsing never touches MPI: a usage
// error is found by every rank alike, printed by rank 0 only, exit code 2.
#pragma once

#include <cstdint>
#include <string>
#include <variant>
#include <vector>

#include "xstack/app/Diff.h"
#include "xstack/app/Report.h"
#include "xstack/core/Failure.h"

namespace xstack {

// What `xstack synth` writes (docs/FORMAT.md, "Sample data sets").
enum class SynthFormat : uint8_t {
  PaddleProfile,  // protobuf profile_rank.<R> dumps plus dcgm/, net/, time/ (the default)
  Kineto,         // PyTorch profiler: profile/rank<R>.*.pt.trace.json.gz, a --sync job
  PaddleJson,     // Paddle's new profiler: profile/*.rank<R>.paddle_trace.json, a --sync job
};

struct SynthOptions {
  std::string outDir;
  SynthFormat format = SynthFormat::PaddleProfile;
  int64_t trainers = 2;
  int64_t gpusPerTrainer = 8;
  int64_t steps = 4;
  int64_t opsPerStep = 200;
  uint64_t seed = 1;
  // Maximum clock skew between trainers, ns (each trainer gets its own).
  uint64_t skewNs = 2'000'000;
  // Synchronous job (app/SyncJobModel.h): on with --sync or any --slow* flag.
  struct Slowdown {
    // Compute: kernels take `factor` times longer (--slow*); Stall: the host
    // stalls `factor` ms in a data-loader op after forward_B, before the
    // step's first operator, so the GPU idles (--stall*); Memcpy: copies take
    // `factor` times longer (--slow-memcpy); Link: every transfer of a group
    // with a member on node `trainer` takes `factor` times longer (--slow-link,
    // 3D jobs only).
    enum class Kind : uint8_t { Compute, Stall, Memcpy, Link };
    Kind kind = Kind::Compute;
    int64_t rank = -1;     // -1: every rank of `trainer`
    int64_t trainer = -1;  // -1: only `rank`; Link: the node
    int64_t step = -1;     // -1: every step
    double factor = 1;     // multiplier (Compute, Memcpy) or ms (Stall)
  };
  bool sync = false;
  std::vector<Slowdown> slowdowns;
  double noisePct = 2;  // per (rank, step) compute noise, uniform +-noisePct %
  // A Megatron-style 3D-parallel job (app/SynthParallelModel.h): on with any of
  // --tp, --pp, --dp; world = tp x pp x dp ranks, only --format kineto.
  struct Parallel {
    bool on = false;
    int64_t tp = 1, pp = 1, dp = 1;
    int64_t microbatches = 4;
    bool tpPpDp = false;  // --rank-order tp-pp-dp (default tp-dp-pp)
  };
  Parallel parallel;
  // The ranks the job writes: tp x pp x dp for a 3D job, else trainers x GPUs.
  int64_t jobRanks() const {
    return parallel.on ? parallel.tp * parallel.pp * parallel.dp : trainers * gpusPerTrainer;
  }
};

struct InspectOptions {
  std::string file;
  bool json = false;
};

struct HelpRequest {
  std::string text;
};

// A command line that cannot run is a Failure of kind Usage (exit 2).
using Command =
    std::variant<ReportOptions, SynthOptions, InspectOptions, DiffOptions, HelpRequest, Failure>;

Command parseCommandLine(const std::vector<std::string>& args);

}  // namespace xstack
