// `xstack synth`: a realistic sample data set in docs/FORMAT.md's layout, the same
// bytes for the same options and seed:
//   profile/profile_rank.<R>   real protobuf Profiles (forward/backward
//                              markers, CPU ops on several blocks and threads,
//                              CUDA API calls, kernels on several streams,
//                              memcpys with bytes, memory events in all three
//                              places, a few blocks never freed)
//   dcgm/dcgm.<T>, net/net.<T> per trainer; time/time.txt.<g>.<T> per rank
// Each trainer's clock is skewed by up to --skew-ns, and time files start
// before the profiles. --format kineto|paddle-json writes the --sync job as
// Chrome-trace JSON instead (cmd/synth/ChromeTraceSynth.h).
#pragma once

#include <cstdint>
#include <string>
#include <vector>

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
  // Synchronous job (cmd/synth/SyncJobModel.h): on with --sync or any --slow* flag.
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
  // A Megatron-style 3D-parallel job (cmd/synth/SynthParallelModel.h): on with any of
  // --tp, --pp, --dp; world = tp x pp x dp ranks, only --format kineto.
  struct Parallel {
    bool on = false;
    int64_t tp = 1, pp = 1, dp = 1;
    int64_t microbatches = 4;
    bool tpPpDp = false;  // --rank-order tp-pp-dp (default tp-dp-pp)
    // --moe: every layer is a mixture-of-experts layer whose tokens go to
    // their experts and back in two all-to-alls of the data-parallel group
    // (expert parallel = data parallel), each rank's share its own.
    bool moe = false;
  };
  Parallel parallel;
  // The ranks the job writes: tp x pp x dp for a 3D job, else trainers x GPUs.
  int64_t jobRanks() const {
    return parallel.on ? parallel.tp * parallel.pp * parallel.dp : trainers * gpusPerTrainer;
  }
};

// The `xstack report` command line for the data set `o` makes, e.g.
// "xstack report --data-dir /d --out /d-traces --gpus-per-trainer 2"
// (paths shell-quoted when they need it).
std::string reportCommandFor(const SynthOptions& o);

int runSynth(const SynthOptions& options);

}  // namespace xstack
