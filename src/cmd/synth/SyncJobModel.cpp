#include "xstack/cmd/synth/SyncJobModel.h"

#include <algorithm>
#include <cstdio>
#include <fstream>
#include <string>
#include <utility>

#include "profiler.pb.h"
#include "xstack/cmd/synth/SynthRandom.h"

namespace pb = paddle::platform::proto;

namespace xstack {
namespace {

constexpr uint64_t kEpochNs = 1700000000ull * 1000000000ull;
constexpr const char* kAllReduce = "ncclKernel_AllReduce_RING_LL_Sum_float";
// The host op of an injected stall (--stall*): PyTorch's name of a data-loader iteration.
constexpr const char* kDataLoaderOp = "enumerate(DataLoader)#_SingleProcessDataLoaderIter.__next__";
constexpr int64_t kCommStream = 20;
constexpr uint64_t kMemsetBytes = 1 << 20;
const char* kOps[] = {"matmul_v2", "elementwise_add", "relu",           "layer_norm",
                      "softmax",   "dropout",         "conv2d",         "batch_norm",
                      "reshape2",  "transpose2",      "fused_attention"};
const char* kComputeKernels[] = {"volta_sgemm_128x64_nn", "VectorizedElementwiseKernel",
                                 "cutlass_80_tensorop_gemm", "LayerNormForward", "SoftmaxKernel"};

// Writes the model's events into a Paddle protobuf Profile (the default
// `xstack synth --sync` output), adding the trainer's clock skew. Memsets and
// the step spans have no protobuf event: the Profile's bytes stay those of
// the model before they existed.
class ProtoProfileEvents : public SyncJobEvents {
 public:
  ProtoProfileEvents(uint64_t skewNs, uint64_t mainThread, std::filesystem::path path)
      : skew_(skewNs), mainThread_(mainThread), path_(std::move(path)) {}

  void marker(const char* detail, uint64_t atNs) override {
    event(pb::Event::CPU, "marker/compute/MarkerCUDA", atNs, atNs + 1000, 0,
          static_cast<int64_t>(mainThread_))
        ->set_detail_info(detail);
  }
  void op(const char* name, bool backward, uint64_t startNs, uint64_t endNs, uint64_t tid,
          int64_t block) override {
    std::string text = name;
    if (backward) text += "_grad";
    event(pb::Event::CPU, text, startNs, endNs, block, static_cast<int64_t>(tid));
  }
  void launch(SynthLaunch kind, uint64_t startNs, uint64_t endNs, uint64_t tid) override {
    if (kind == SynthLaunch::Memset) return;
    event(pb::Event::CPU, kind == SynthLaunch::Kernel ? "cudaLaunchKernel" : "cudaMemcpyAsync",
          startNs, endNs, -1, static_cast<int64_t>(tid));
  }
  void kernel(const char* name, uint64_t startNs, uint64_t endNs, int64_t device,
              int64_t stream) override {
    event(pb::Event::GPUKernel, name, startNs, endNs, device, stream);
  }
  void copy(SynthLaunch kind, uint64_t startNs, uint64_t endNs, int64_t device, int64_t stream,
            uint64_t bytes) override {
    if (kind != SynthLaunch::Memcpy) return;
    event(pb::Event::GPUKernel, "GpuMemcpyAsync:CPU->GPU", startNs, endNs, device, stream)
        ->mutable_memcopy()
        ->set_bytes(bytes);
  }
  void memory(SynthMemoryPlace place, uint32_t device, uint64_t allocNs, uint64_t freeNs,
              uint64_t bytes) override {
    pb::MemEvent* m = prof_.add_mem_events();
    m->set_start_ns(allocNs + skew_);
    m->set_end_ns(freeNs == 0 ? 0 : freeNs + skew_);
    m->set_bytes(bytes);
    m->set_place(place == SynthMemoryPlace::Gpu ? pb::MemEvent::CUDAPlace
                                                : pb::MemEvent::CUDAPinnedPlace);
    m->set_thread_id(mainThread_);
    m->set_device_id(device);
  }
  void allReduce(uint64_t opStartNs, uint64_t opEndNs, uint64_t tid, uint64_t kernelStartNs,
                 uint64_t kernelEndNs, int64_t device, int64_t stream) override {
    event(pb::Event::CPU, "c_allreduce_sum", opStartNs, opEndNs, 0, static_cast<int64_t>(tid));
    event(pb::Event::GPUKernel, kAllReduce, kernelStartNs, kernelEndNs, device, stream);
  }
  bool finish(uint64_t beginNs, uint64_t endNs) override {
    prof_.set_start_ns(beginNs + skew_);
    prof_.set_end_ns(endNs + skew_);
    std::ofstream f(path_, std::ios::binary);
    const bool serialized = prof_.SerializeToOstream(&f);
    f.close();
    return serialized && !f.fail();
  }

 private:
  pb::Event* event(pb::Event::EventType type, const std::string& name, uint64_t s, uint64_t e,
                   int64_t dev, int64_t sub) {
    pb::Event* ev = prof_.add_events();
    ev->set_type(type);
    ev->set_name(name);
    ev->set_start_ns(s + skew_);
    ev->set_end_ns(e + skew_);
    ev->set_device_id(dev);
    ev->set_sub_device_id(sub);
    return ev;
  }
  pb::Profile prof_;
  const uint64_t skew_, mainThread_;
  const std::filesystem::path path_;
};

// What an operator needs of its rank and step.
struct OperatorContext {
  int64_t gpu = 0;              // the rank's local GPU
  uint64_t mainThread = 0;      // SyncJobModel::mainThreadOf(rank)
  SyncJobModel::Injected slow;  // slow-downs of (rank, step)
};

struct ComputeResult {
  uint64_t endNs = 0;  // true time the GPU finishes the step's compute (= all-reduce arrival)
  uint64_t computeNs = 0, memcpyNs = 0;
};

// The clocks of one rank's step while its operators are made: the host's
// (next operator start) and the GPU's (next kernel start), true ns.
struct StepClocks {
  uint64_t host = 0, gpu = 0;
};

// One operator at clocks.host: its CPU event, its kernel launch and kernel,
// sometimes a host-to-device copy with its pinned buffer and a GPU workspace;
// `firstOfStep` adds the step's gradient-bucket memset (1 MiB, on the comm
// stream, hidden under the operator's kernel: it changes no busy time).
// The random draws keep the order of the protobuf generator before the
// JSON writers existed, so its Profiles keep their bytes.
void makeOperator(SynthRandom& rng, const OperatorContext& cx, int phase, bool firstOfStep,
                  StepClocks& clocks, ComputeResult& r, SyncJobEvents& out) {
  static constexpr int64_t kStreams[] = {7, 13, 14};
  const char* op = kOps[rng.next() % (sizeof kOps / sizeof *kOps)];
  const uint64_t tid = cx.mainThread + rng.range(0, 2);
  const uint64_t opStart = clocks.host, opDur = rng.range(8'000, 30'000);
  const int64_t block = rng.chance(80) ? 0 : 1;
  const uint64_t api = opStart + rng.range(1'000, 3'000);
  const uint64_t apiEnd = api + rng.range(2'000, 5'000);
  clocks.gpu = std::max(clocks.gpu, api + 4'000);
  const auto kd =
      static_cast<uint64_t>(static_cast<double>(rng.range(15'000, 30'000)) * cx.slow.compute);
  const int64_t stream = kStreams[rng.next() % 3];
  const char* kernel = kComputeKernels[rng.next() % 5];
  const uint64_t kernelStart = clocks.gpu;
  out.op(op, phase == 1, opStart, opStart + opDur, tid, block);
  if (firstOfStep) {
    out.launch(SynthLaunch::Memset, opStart + 200, opStart + 700, tid);
    out.copy(SynthLaunch::Memset, kernelStart, kernelStart + std::min<uint64_t>(kd, 1'500), cx.gpu,
             kCommStream, kMemsetBytes);
  }
  out.launch(SynthLaunch::Kernel, api, apiEnd, tid);
  out.kernel(kernel, kernelStart, kernelStart + kd, cx.gpu, stream);
  r.computeNs += kd;
  clocks.gpu += kd + rng.range(500, 2'000);
  if (rng.chance(10)) {  // a host-to-device copy, with its pinned buffer
    const uint64_t bytes = rng.range(1, 256) << 12, a = api + 5'000;
    const auto copyNs = static_cast<uint64_t>(static_cast<double>(bytes / 40) * cx.slow.memcpy);
    out.launch(SynthLaunch::Memcpy, a, a + 3'000, tid);
    out.copy(SynthLaunch::Memcpy, clocks.gpu, clocks.gpu + copyNs, cx.gpu, kStreams[0], bytes);
    r.memcpyNs += copyNs;
    clocks.gpu += copyNs + 1'000;
    out.memory(SynthMemoryPlace::Pinned, static_cast<uint32_t>(cx.gpu), a, a + 50'000, bytes);
  }
  if (rng.chance(30)) {  // workspace
    const uint64_t bytes = rng.range(1, 1024) << 10;
    const uint64_t freeNs = opStart + opDur + rng.range(0, 50'000);
    out.memory(SynthMemoryPlace::Gpu, static_cast<uint32_t>(cx.gpu), opStart, freeNs, bytes);
  }
  clocks.host = opStart + opDur + rng.range(500, 3'000);
}

// One rank's step from forward_B (at `t`) to the end of its compute: both
// phases' markers, ops, kernels and copies. Depends only on (seed, rank,
// step, slow-downs), so the dry pass and the writing pass agree. An injected
// stall is one data-loader op on the main thread right after forward_B: the
// first kernel launch waits for it, so the GPU idles that long.
ComputeResult computePhases(const SynthOptions& o, int64_t rank, int64_t step, uint64_t t,
                            const SyncJobModel::Injected& slow, SyncJobEvents& out) {
  SynthRandom rng(o.seed * 1000003 + static_cast<uint64_t>(rank) * 7919 +
                  static_cast<uint64_t>(step) * 104729 + 23);
  const OperatorContext cx{rank % o.gpusPerTrainer, SyncJobModel::mainThreadOf(rank), slow};
  ComputeResult r;
  StepClocks clocks{t, t};
  bool first = true;
  for (int phase = 0; phase < 2; ++phase) {
    out.marker(phase == 0 ? "marker_forward_B" : "marker_backward_B", clocks.host);
    clocks.host += 2000;
    if (phase == 0 && slow.stallNs > 0) {
      out.op(kDataLoaderOp, false, clocks.host, clocks.host + slow.stallNs, cx.mainThread, 0);
      clocks.host += slow.stallNs;
    }
    int64_t ops = phase == 0 ? o.opsPerStep / 2 : o.opsPerStep - o.opsPerStep / 2;
    for (int64_t k = 0; k < ops; ++k, first = false)
      makeOperator(rng, cx, phase, first, clocks, r, out);
    if (phase == 0) {
      clocks.host = std::max(clocks.host, clocks.gpu);
      out.marker("marker_forward_E", clocks.host);
      clocks.host += rng.range(10'000, 100'000);
    }
  }
  r.endNs = std::max(clocks.host, clocks.gpu);
  return r;
}

uint64_t jitterOf(const SynthOptions& o, int64_t rank, int64_t step) {  // forward_B delay, ns
  SynthRandom rng(o.seed * 7777 + static_cast<uint64_t>(rank) * 31 +
                  static_cast<uint64_t>(step) * 131);
  return rng.range(0, 20'000);
}

}  // namespace

SyncJobModel::Injected SyncJobModel::injected(int64_t rank, int64_t step) const {
  return syncJobInjected(o_, rank, step);
}

double SyncJobModel::slowFactor(int64_t rank, int64_t step) const {
  return syncJobSlowFactor(o_, rank, step);
}

SyncJobModel::Injected syncJobInjected(const SynthOptions& o, int64_t rank, int64_t step) {
  using K = SynthOptions::Slowdown::Kind;
  SyncJobModel::Injected in;
  in.compute = syncJobSlowFactor(o, rank, step);
  double stallMs = 0;
  for (const auto& s : o.slowdowns) {
    bool who = s.rank >= 0 ? s.rank == rank : s.trainer == rank / o.gpusPerTrainer;
    if (!who || (s.step >= 0 && s.step != step)) continue;
    if (s.kind == K::Memcpy) in.memcpy *= s.factor;
    if (s.kind == K::Stall) stallMs += s.factor;
  }
  in.stallNs = static_cast<uint64_t>(stallMs * 1e6);
  return in;
}

double syncJobSlowFactor(const SynthOptions& o, int64_t rank, int64_t step) {
  double f = 1;
  for (const auto& s : o.slowdowns) {
    bool who = s.rank >= 0 ? s.rank == rank : s.trainer == rank / o.gpusPerTrainer;
    if (s.kind == SynthOptions::Slowdown::Kind::Compute && who && (s.step < 0 || s.step == step))
      f *= s.factor;
  }
  SynthRandom rng(o.seed * 99991 + static_cast<uint64_t>(rank) * 613 +
                  static_cast<uint64_t>(step) * 7 + 1);
  return f * (1 + (rng.unit() * 2 - 1) * o.noisePct / 100);
}

SyncJobModel::SyncJobModel(const SynthOptions& options) : o_(options) {
  const int64_t ranks = o_.trainers * o_.gpusPerTrainer;
  SynthRandom global(o_.seed * 5 + 3);
  uint64_t start = kEpochNs + 50'000'000;
  for (int64_t step = 0; step < o_.steps; ++step) {
    uint64_t lastArrival = start;
    for (int64_t rank = 0; rank < ranks; ++rank) {
      SyncJobEvents dry;
      uint64_t fb = start + jitterOf(o_, rank, step);
      lastArrival =
          std::max(lastArrival, computePhases(o_, rank, step, fb, injected(rank, step), dry).endNs);
    }
    uint64_t allReduceNs = 2'000'000 + global.range(0, 100'000);
    steps_.push_back({start, lastArrival + allReduceNs});
    start = lastArrival + allReduceNs + 3'000 + global.range(50'000, 100'000);
  }
}

uint64_t SyncJobModel::beginNs() const {
  return (steps_.empty() ? kEpochNs + 50'000'000 : steps_[0].startNs) - 1'000'000;
}

std::optional<std::pair<uint64_t, uint64_t>> SyncJobModel::writeRank(int64_t rank,
                                                                     SyncJobEvents& out) {
  const uint64_t mainThread = mainThreadOf(rank);
  const auto gpu = static_cast<uint32_t>(rank % o_.gpusPerTrainer);
  const uint64_t begin = beginNs();
  out.begin(begin);
  for (uint64_t i = 0; i < 4; ++i)  // parameters, never freed
    out.memory(SynthMemoryPlace::Gpu, gpu, begin + i * 100, 0, (16 + 8 * i) << 20);
  std::vector<StepTruth>& truth = truth_[rank];
  truth.clear();
  uint64_t end = begin + 1'000'000;
  for (int64_t step = 0; step < o_.steps; ++step) {
    const StepPlan& sp = steps_[static_cast<size_t>(step)];
    const uint64_t fb = sp.startNs + jitterOf(o_, rank, step);
    out.step(step, fb, sp.allReduceEndNs + 3'000);
    ComputeResult c = computePhases(o_, rank, step, fb, injected(rank, step), out);
    out.allReduce(c.endNs - 5'000, c.endNs - 1'000, mainThread, c.endNs, sp.allReduceEndNs, gpu,
                  kCommStream);
    out.marker("marker_backward_E", sp.allReduceEndNs + 3'000);
    end = sp.allReduceEndNs + 4'000;
    truth.push_back(
        {sp.allReduceEndNs + 3'000 - fb, c.computeNs, sp.allReduceEndNs - c.endNs, c.memcpyNs});
  }
  if (!out.finish(begin, end)) return std::nullopt;
  return std::pair{begin, end};
}

std::optional<std::pair<uint64_t, uint64_t>> SyncJobModel::writeProfile(
    int64_t rank, uint64_t skewNs, const std::filesystem::path& path) {
  ProtoProfileEvents profile(skewNs, mainThreadOf(rank), path);
  auto times = writeRank(rank, profile);
  if (!times) return std::nullopt;
  return std::pair{times->first + skewNs, times->second + skewNs};
}

bool SyncJobModel::writeTruth(const std::filesystem::path& path) const {
  std::ofstream f(path);
  f << "rank,step,step_ns,compute_ns,comm_ns,memcpy_ns,factor\n";
  char factor[32];
  for (const auto& [rank, steps] : truth_)
    for (size_t s = 0; s < steps.size(); ++s) {
      std::snprintf(factor, sizeof factor, "%.4f", slowFactor(rank, static_cast<int64_t>(s)));
      f << rank << "," << s << "," << steps[s].stepNs << "," << steps[s].computeNs << ","
        << steps[s].commNs << "," << steps[s].memcpyNs << "," << factor << "\n";
    }
  return static_cast<bool>(f);
}

}  // namespace xstack
