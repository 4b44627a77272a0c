// The events of one rank of the synchronous job (cmd/synth/SyncJobModel.h), handed
// to a writer as the model makes them. Every time is the rank's true clock in
// ns (before its trainer's clock skew, which each writer adds). For one seed
// the calls come in one fixed order:
//   begin; 4 x memory (parameters, never freed); then per step:
//     step; marker(forward_B); per forward operator (below); marker(forward_E);
//     marker(backward_B); per backward operator; allReduce; marker(backward_E);
//   finish. An operator is: op; [launch(Memset) + copy(Memset), the step's
//   first operator only]; launch(Kernel) + kernel; [launch(Memcpy) +
//   copy(Memcpy) + memory(Pinned)]; [memory(Gpu)].
// A 3D job (cmd/synth/SynthParallelModel.h) calls: begin; 4 x memory; per step:
// step; [op(data loader)]; per compute op: op, launch(Kernel), kernel; per
// NCCL op: collective; then finish.
// A launch is always followed by the one GPU activity it launched (kernel or
// copy). The default implementations do nothing (the model's dry pass).
#pragma once

#include <cstdint>
#include <string>

namespace xstack {

// One NCCL operation of a 3D-parallel job (cmd/synth/SynthParallelModel.h) on one
// rank: the host annotation [opStartNs, opEndNs] (record_param_comms 200 ns
// inside it) with its launch [launchStartNs, launchEndNs] on host thread
// `tid`, then the kernel
// [kernelStartNs, kernelEndNs] on (device, stream); true times in ns. The
// strings are the values PyTorch's profiler writes in the op's and kernel's args.
struct SynthCollective {
  const char* kernelName = "";  // "ncclDevKernel_AllReduce_Sum_f32_RING_LL(...)"
  // "allreduce", "reduce_scatter", "_allgather_base", "send", "recv"
  const char* collectiveName = "";
  const char* annotation = "";  // the record_function around it: "nccl:all_reduce", ...
  int64_t inNelems = 0, outNelems = 0, groupSize = 0;
  const std::string* pgName = nullptr;   // "3"
  const std::string* pgDesc = nullptr;   // "TENSOR_MODEL_PARALLEL_GROUP"
  const std::string* pgRanks = nullptr;  // "[0, 1]"
  int64_t seq = 0;                       // per group (collectives) or per src->dst pair (p2p)
  int64_t srcRank = -1, dstRank = -1;    // recv: Src Rank, send: Dst Rank (global ranks)
  uint64_t opStartNs = 0, opEndNs = 0, launchStartNs = 0, launchEndNs = 0;
  uint64_t kernelStartNs = 0, kernelEndNs = 0;
  uint64_t tid = 0;
  int64_t device = 0, stream = 0;
};

enum class SynthLaunch : uint8_t {
  Kernel,  // cudaLaunchKernel
  Memcpy,  // cudaMemcpyAsync (host to device, from a pinned buffer)
  Memset,  // cudaMemsetAsync
};

enum class SynthMemoryPlace : uint8_t {
  Gpu,     // the rank's GPU (Paddle CUDAPlace, Kineto Device Type 1)
  Pinned,  // page-locked host memory (Paddle CUDAPinnedPlace, Kineto Device Type 0)
};

class SyncJobEvents {
 public:
  virtual ~SyncJobEvents() = default;
  // First call: the rank's data starts at beginNs (before any other event).
  virtual void begin(uint64_t /*beginNs*/) {}
  // Paddle's marker/compute/MarkerCUDA instants ("marker_forward_B", ...).
  virtual void marker(const char* /*detail*/, uint64_t /*atNs*/) {}
  // Step `step` of the rank spans [startNs, endNs] (forward_B to backward_E);
  // called before the step's other events.
  virtual void step(int64_t /*step*/, uint64_t /*startNs*/, uint64_t /*endNs*/) {}
  // A CPU operator `name` (a Paddle op type; backward ops get "_grad" in
  // Paddle's naming) on host thread `tid`; `block` is Paddle's block id.
  virtual void op(const char* /*name*/, bool /*backward*/, uint64_t /*startNs*/, uint64_t /*endNs*/,
                  uint64_t /*tid*/, int64_t /*block*/) {}
  // A CUDA runtime call on host thread `tid`.
  virtual void launch(SynthLaunch /*kind*/, uint64_t /*startNs*/, uint64_t /*endNs*/,
                      uint64_t /*tid*/) {}
  // The kernel the last launch(Kernel) started.
  virtual void kernel(const char* /*name*/, uint64_t /*startNs*/, uint64_t /*endNs*/,
                      int64_t /*device*/, int64_t /*stream*/) {}
  // The memcpy or memset the last launch(kind) started, of `bytes` bytes.
  virtual void copy(SynthLaunch /*kind*/, uint64_t /*startNs*/, uint64_t /*endNs*/,
                    int64_t /*device*/, int64_t /*stream*/, uint64_t /*bytes*/) {}
  // `bytes` allocated at allocNs and freed at freeNs (0: never freed) by the
  // rank's main thread. allocNs never precedes the start of the last op().
  virtual void memory(SynthMemoryPlace /*place*/, uint32_t /*device*/, uint64_t /*allocNs*/,
                      uint64_t /*freeNs*/, uint64_t /*bytes*/) {}
  // The step's gradient all-reduce: the host op [opStartNs, opEndNs] on the
  // main thread `tid`, then the NCCL kernel [kernelStartNs, kernelEndNs].
  virtual void allReduce(uint64_t /*opStartNs*/, uint64_t /*opEndNs*/, uint64_t /*tid*/,
                         uint64_t /*kernelStartNs*/, uint64_t /*kernelEndNs*/, int64_t /*device*/,
                         int64_t /*stream*/) {}
  // A 3D job's NCCL operation (only the Kineto writer writes it).
  virtual void collective(const SynthCollective& /*c*/) {}
  // Last call: the rank's data spans [beginNs, endNs]. False when the
  // writer's output could not be written whole (a full disk).
  virtual bool finish(uint64_t /*beginNs*/, uint64_t /*endNs*/) { return true; }
};

}  // namespace xstack
