#include "xstack/app/SyncJobModel.h"

#include <algorithm>
#include <cstdio>
#include <fstream>

#include "profiler.pb.h"
#include "xstack/app/SynthRandom.h"

namespace pb = paddle::platform::proto;

namespace xstack {
namespace {

constexpr uint64_t kEpochNs = 1700000000ull * 1000000000ull;
constexpr const char* kAllReduce = "ncclKernel_AllReduce_RING_LL_Sum_float";
constexpr int64_t kCommStream = 20;
const char* kOps[] = {"matmul_v2", "elementwise_add", "relu",           "layer_norm",
                      "softmax",   "dropout",         "conv2d",         "batch_norm",
                      "reshape2",  "transpose2",      "fused_attention"};
const char* kComputeKernels[] = {"volta_sgemm_128x64_nn", "VectorizedElementwiseKernel",
                                 "cutlass_80_tensorop_gemm", "LayerNormForward", "SoftmaxKernel"};

// Appends events to a profile, or only counts time (dry run: prof null).
struct Emitter {
  pb::Profile* prof = nullptr;
  uint64_t skew = 0;
  uint64_t cpuThread = 0;
  pb::Event* event(pb::Event::EventType type, const std::string& name, uint64_t s, uint64_t e,
                   int64_t dev, int64_t sub) {
    if (!prof) return nullptr;
    pb::Event* ev = prof->add_events();
    ev->set_type(type);
    ev->set_name(name);
    ev->set_start_ns(s + skew);
    ev->set_end_ns(e + skew);
    ev->set_device_id(dev);
    ev->set_sub_device_id(sub);
    return ev;
  }
  void marker(const char* detail, uint64_t at) {
    if (pb::Event* ev = event(pb::Event::CPU, "marker/compute/MarkerCUDA", at, at + 1000, 0,
                              static_cast<int64_t>(cpuThread)))
      ev->set_detail_info(detail);
  }
  void mem(pb::MemEvent::Place place, uint32_t dev, uint64_t s, uint64_t e, uint64_t bytes) {
    if (!prof) return;
    pb::MemEvent* m = prof->add_mem_events();
    m->set_start_ns(s + skew);
    m->set_end_ns(e == 0 ? 0 : e + skew);
    m->set_bytes(bytes);
    m->set_place(place);
    m->set_thread_id(cpuThread);
    m->set_device_id(dev);
  }
};

struct ComputeResult {
  uint64_t endNs = 0;  // true time the GPU finishes the step's compute (= all-reduce arrival)
  uint64_t computeNs = 0, memcpyNs = 0;
};

// One rank's step from forward_B (at `t`) to the end of its compute: both
// phases' markers, ops, kernels and copies. Depends only on (seed, rank,
// step, factor), so the dry pass and the writing pass agree.
ComputeResult computePhases(const SynthOptions& o, int64_t rank, int64_t step, uint64_t t,
                            double factor, Emitter& em) {
  SynthRandom rng(o.seed * 1000003 + static_cast<uint64_t>(rank) * 7919 +
                  static_cast<uint64_t>(step) * 104729 + 23);
  const int64_t gpu = rank % o.gpusPerTrainer;
  const int64_t streams[] = {7, 13, 14};
  ComputeResult r;
  uint64_t gpuClock = t;
  for (int phase = 0; phase < 2; ++phase) {
    em.marker(phase == 0 ? "marker_forward_B" : "marker_backward_B", t);
    t += 2000;
    int64_t ops = phase == 0 ? o.opsPerStep / 2 : o.opsPerStep - o.opsPerStep / 2;
    for (int64_t k = 0; k < ops; ++k) {
      std::string op = kOps[rng.next() % (sizeof kOps / sizeof *kOps)];
      if (phase == 1) op += "_grad";
      uint64_t tid = em.cpuThread + rng.range(0, 2);
      uint64_t opStart = t, opDur = rng.range(8'000, 30'000);
      em.event(pb::Event::CPU, op, opStart, opStart + opDur, rng.chance(80) ? 0 : 1,
               static_cast<int64_t>(tid));
      uint64_t api = opStart + rng.range(1'000, 3'000);
      em.event(pb::Event::CPU, "cudaLaunchKernel", api, api + rng.range(2'000, 5'000), -1,
               static_cast<int64_t>(tid));
      gpuClock = std::max(gpuClock, api + 4'000);
      auto kd = static_cast<uint64_t>(static_cast<double>(rng.range(15'000, 30'000)) * factor);
      em.event(pb::Event::GPUKernel, kComputeKernels[rng.next() % 5], gpuClock, gpuClock + kd, gpu,
               streams[rng.next() % 3]);
      r.computeNs += kd;
      gpuClock += kd + rng.range(500, 2'000);
      if (rng.chance(10)) {  // a host-to-device copy, with its pinned buffer
        uint64_t bytes = rng.range(1, 256) << 12, a = api + 5'000;
        em.event(pb::Event::CPU, "cudaMemcpyAsync", a, a + 3'000, -1, static_cast<int64_t>(tid));
        if (pb::Event* cp = em.event(pb::Event::GPUKernel, "GpuMemcpyAsync:CPU->GPU", gpuClock,
                                     gpuClock + bytes / 40, gpu, streams[0]))
          cp->mutable_memcopy()->set_bytes(bytes);
        r.memcpyNs += bytes / 40;
        gpuClock += bytes / 40 + 1'000;
        em.mem(pb::MemEvent::CUDAPinnedPlace, static_cast<uint32_t>(gpu), a, a + 50'000, bytes);
      }
      if (rng.chance(30))  // workspace
        em.mem(pb::MemEvent::CUDAPlace, static_cast<uint32_t>(gpu), opStart,
               opStart + opDur + rng.range(0, 50'000), rng.range(1, 1024) << 10);
      t = opStart + opDur + rng.range(500, 3'000);
    }
    if (phase == 0) {
      t = std::max(t, gpuClock);
      em.marker("marker_forward_E", t);
      t += rng.range(10'000, 100'000);
    }
  }
  r.endNs = std::max(t, gpuClock);
  return r;
}

uint64_t jitterOf(const SynthOptions& o, int64_t rank, int64_t step) {  // forward_B delay, ns
  SynthRandom rng(o.seed * 7777 + static_cast<uint64_t>(rank) * 31 +
                  static_cast<uint64_t>(step) * 131);
  return rng.range(0, 20'000);
}

}  // namespace

double SyncJobModel::slowFactor(int64_t rank, int64_t step) const {
  double f = 1;
  for (const auto& s : o_.slowdowns) {
    bool who = s.rank >= 0 ? s.rank == rank : s.trainer == rank / o_.gpusPerTrainer;
    if (who && (s.step < 0 || s.step == step)) f *= s.factor;
  }
  SynthRandom rng(o_.seed * 99991 + static_cast<uint64_t>(rank) * 613 +
                  static_cast<uint64_t>(step) * 7 + 1);
  return f * (1 + (rng.unit() * 2 - 1) * o_.noisePct / 100);
}

SyncJobModel::SyncJobModel(const SynthOptions& options) : o_(options) {
  const int64_t ranks = o_.trainers * o_.gpusPerTrainer;
  SynthRandom global(o_.seed * 5 + 3);
  uint64_t start = kEpochNs + 50'000'000;
  for (int64_t step = 0; step < o_.steps; ++step) {
    uint64_t lastArrival = start;
    for (int64_t rank = 0; rank < ranks; ++rank) {
      Emitter dry;
      uint64_t fb = start + jitterOf(o_, rank, step);
      lastArrival = std::max(lastArrival,
                             computePhases(o_, rank, step, fb, slowFactor(rank, step), dry).endNs);
    }
    uint64_t allReduceNs = 2'000'000 + global.range(0, 100'000);
    steps_.push_back({start, lastArrival + allReduceNs});
    start = lastArrival + allReduceNs + 3'000 + global.range(50'000, 100'000);
  }
}

std::optional<std::pair<uint64_t, uint64_t>> SyncJobModel::writeProfile(
    int64_t rank, uint64_t skewNs, const std::filesystem::path& path) {
  pb::Profile prof;
  Emitter em{&prof, skewNs, static_cast<uint64_t>(10000 + rank * 10)};
  const auto gpu = static_cast<uint32_t>(rank % o_.gpusPerTrainer);
  const uint64_t begin = (steps_.empty() ? kEpochNs + 50'000'000 : steps_[0].startNs) - 1'000'000;
  for (uint64_t i = 0; i < 4; ++i)  // parameters, never freed
    em.mem(pb::MemEvent::CUDAPlace, gpu, begin + i * 100, 0, (16 + 8 * i) << 20);
  std::vector<StepTruth>& truth = truth_[rank];
  truth.clear();
  uint64_t end = begin + 1'000'000;
  for (int64_t step = 0; step < o_.steps; ++step) {
    const StepPlan& sp = steps_[static_cast<size_t>(step)];
    uint64_t fb = sp.startNs + jitterOf(o_, rank, step);
    ComputeResult c = computePhases(o_, rank, step, fb, slowFactor(rank, step), em);
    em.event(pb::Event::CPU, "c_allreduce_sum", c.endNs - 5'000, c.endNs - 1'000, 0,
             static_cast<int64_t>(em.cpuThread));
    em.event(pb::Event::GPUKernel, kAllReduce, c.endNs, sp.allReduceEndNs, gpu, kCommStream);
    em.marker("marker_backward_E", sp.allReduceEndNs + 3'000);
    end = sp.allReduceEndNs + 4'000;
    truth.push_back(
        {sp.allReduceEndNs + 3'000 - fb, c.computeNs, sp.allReduceEndNs - c.endNs, c.memcpyNs});
  }
  prof.set_start_ns(begin + skewNs);
  prof.set_end_ns(end + skewNs);
  std::ofstream f(path, std::ios::binary);
  const bool serialized = prof.SerializeToOstream(&f);
  f.close();
  if (!serialized || f.fail()) return std::nullopt;
  return std::pair{begin + skewNs, end + skewNs};
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
