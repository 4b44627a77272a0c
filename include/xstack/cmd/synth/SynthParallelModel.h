// `xstack synth --tp N --pp N --dp N --microbatches M --format kineto`: a
// Megatron-style 3D-parallel job (shape and groups: cmd/synth/SynthParallel.h).
//
// Per step every rank runs its stage's 1F1B schedule. A microbatch's forward
// is: recv the activation from the previous stage (not on stage 0), per layer
// (kLayers of them) one compute kernel then one tensor-parallel all-reduce in
// its TP group (when tp > 1), send the activation to the next stage (not on
// the last); its backward mirrors it (recv the gradient from the next stage,
// per layer a compute kernel twice as long and a TP all-reduce, send the
// gradient to the previous stage). With --moe each layer's TP all-reduce is
// followed by its mixture-of-experts part in the DP group (expert parallel =
// data parallel): a token dispatch all-to-all, an expert kernel (half a
// layer's compute) and a combine all-to-all, recorded as PyTorch records
// all_to_all_single with splits ("all_to_allv" on NCCL's SendRecv kernel).
// Each member's share of an all-to-all is its own (1/2 to 3/2 of an
// activation, drawn per member and call); the call's transfer is that of
// its largest share, and every member ends it at once. The step ends with a data-parallel
// reduce-scatter of the gradients in the DP group, the optimizer kernel and
// an all-gather of the parameters (both only when dp > 1).
//
// Timing is simulated across all ranks, in true ns (the trainer's clock skew
// is added by the writer):
//  * each rank has one host thread (its main thread) issuing ops in order and
//    one GPU timeline; a kernel starts when its launch is done and the GPU is
//    free of the rank's previous kernel;
//  * a collective's kernel starts on each member when that member reaches it
//    and ends on every member at the same time: the last member's start plus
//    the transfer time, so early members wait inside their kernel;
//  * a send is eager: its kernel runs [start, start + transfer]; the matching
//    recv (the n-th recv from src matches src's n-th send to it) ends at
//    max(its start + 5 us, the send's start + transfer), and the receiver's
//    host waits for it (Megatron synchronizes after pipeline transfers);
//  * transfer = latency + algorithm bytes / bandwidth: 150 bytes/ns and 10 us
//    when every member is on one node (NVLink), else 20 bytes/ns and 20 us;
//    all-reduce moves 2 (n-1)/n of the buffer, reduce-scatter, all-gather and
//    all-to-all (n-1)/n, a send the whole; --slow-link NODE:F multiplies the transfer of
//    every group with a member on NODE by F. A node is a trainer: ranks
//    [T x P, (T + 1) x P) with P = --gpus-per-trainer (8 by default).
// Faults: --slow*/--noise scale the compute kernels of (rank, step) as in the
// synchronous job, --stall* add a data-loader op of MS ms on the main thread
// at the step's start (the GPU idles while the host is stalled).
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
#include "xstack/cmd/synth/SynthParallel.h"

namespace xstack {

class SynthParallelModel {
 public:
  // Plans and simulates every rank of every step. Throws std::logic_error if
  // the schedule could not finish (a bug: 1F1B with eager sends cannot deadlock).
  explicit SynthParallelModel(const SynthOptions& options);

  // Hands every event of `rank` to `out` and returns the rank's {begin_ns,
  // end_ns} (true times), or nothing when out.finish failed.
  std::optional<std::pair<uint64_t, uint64_t>> writeRank(int64_t rank, SyncJobEvents& out) const;

  // <out>/parallel_truth.csv: per (rank, step) rank,step,stage,step_ns,
  // compute_ns,comm_ns,factor,stall_ns (ns; comm includes waiting in the
  // NCCL kernels). False when it could not be written whole.
  bool writeTruth(const std::filesystem::path& path) const;

  const SynthParallelShape& shape() const { return shape_; }
  // The groups `rank` is in (default, DP, TP, PP), as pg_config lists them.
  std::vector<SynthProcessGroupInfo> groupsOf(int64_t rank) const;
  // Every rank's data starts at this true time (ns, before the skew).
  uint64_t beginNs() const;

  static constexpr int kLayers = 2;                       // layers per stage and microbatch
  static constexpr int64_t kActivationElems = 2'097'152;  // floats per activation/TP all-reduce
  static constexpr int64_t kGradientElems = 16'777'216;   // floats of a rank's gradients

  enum class OpKind : uint8_t {
    StepBegin,
    DataLoader,
    Compute,
    AllReduce,
    ReduceScatter,
    AllGather,
    AllToAll,
    Send,
    Recv,
    StepEnd
  };
  // One entry of a rank's program, with its simulated times (true ns).
  struct Op {
    OpKind kind = OpKind::Compute;
    bool backward = false;
    int64_t step = 0;
    int group = -1;           // collectives and p2p: index into the job's groups
    int64_t peer = -1;        // send: destination, recv: source (global ranks)
    int64_t nelems = 0;       // the whole buffer (floats)
    uint64_t durNs = 0;       // compute kernel or data-loader duration; comm: transfer time
    const char* name = "";    // host op (compute: Paddle op name, as the sync job's)
    const char* kernel = "";  // compute kernel name
    uint64_t opStartNs = 0, opEndNs = 0, launchStartNs = 0, launchEndNs = 0;
    uint64_t kernelStartNs = 0, kernelEndNs = 0;
    int64_t seq = 0;
  };

 private:
  struct RankState;
  void planRank(int64_t rank);
  void addPipeStep(int64_t rank, int64_t step, const SynthPipeStep& ps, double factor,
                   uint64_t& draws, int64_t& alltoalls);
  void addExpertLayer(int64_t rank, int64_t step, bool backward, double factor, uint64_t draws,
                      int64_t& alltoalls);
  int64_t alltoallElems(int group, int64_t index, int64_t rank) const;
  Op commOp(OpKind kind, int64_t rank, int64_t step, int group, int64_t peer, int64_t nelems) const;
  uint64_t transferNs(OpKind kind, const std::vector<int64_t>& ranks, int64_t nelems) const;
  void simulate();
  bool advance(int64_t rank, RankState& st);
  bool advanceComm(int64_t rank, RankState& st, Op& op);
  void writeComm(int64_t rank, const Op& op, SyncJobEvents& out) const;

  const SynthOptions& o_;
  SynthParallelShape shape_;
  std::vector<SynthProcessGroupInfo> groups_;
  std::vector<std::string> groupRanksText_;   // "[0, 1]" per group
  std::vector<std::vector<int>> rankGroups_;  // per rank: its DP, TP, PP group indices
  std::vector<std::vector<Op>> ops_;          // per rank, in program order
  std::map<std::pair<int, int64_t>, std::pair<int, uint64_t>>
      instances_;  // (group, seq) -> arrived, last start
  std::map<std::tuple<int64_t, int64_t, int64_t>, uint64_t>
      sends_;  // (src, dst, seq) -> send start
};

// The 3D job's data set (--format kineto): one Kineto file per rank in
// <out>/profile/ and <out>/parallel_ranks.csv (rank,node,tp,pp,dp). Exit code
// kExitOk or kExitFatal (the failed file named).
int runParallelSynth(const SynthOptions& o);

}  // namespace xstack
