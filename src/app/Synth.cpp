#include "xstack/app/Synth.h"

#include <cstdio>
#include <filesystem>
#include <fstream>
#include <optional>
#include <string>
#include <tuple>

#include "profiler.pb.h"
#include "xstack/app/Report.h"
#include "xstack/app/SyncJobModel.h"

namespace fs = std::filesystem;
namespace pb = paddle::platform::proto;

namespace xstack {
namespace {

// splitmix64: small, fast, and the same sequence on every platform (the
// standard library's distributions are not).
class Rng {
 public:
  explicit Rng(uint64_t seed) : s_(seed) {}
  uint64_t next() {
    uint64_t z = (s_ += 0x9e3779b97f4a7c15ull);
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
    return z ^ (z >> 31);
  }
  uint64_t range(uint64_t lo, uint64_t hi) {  // [lo, hi]
    uint64_t span = hi - lo + 1;
    return span == 0 ? next() : lo + next() % span;
  }
  bool chance(unsigned percent) { return next() % 100 < percent; }

 private:
  uint64_t s_;
};

constexpr uint64_t kEpochNs = 1700000000ull * 1000000000ull;

const char* kOps[] = {
    "matmul_v2", "elementwise_add", "relu",     "layer_norm", "softmax",         "dropout",
    "conv2d",    "batch_norm",      "reshape2", "transpose2", "c_allreduce_sum", "fused_attention"};
const char* kKernels[] = {"volta_sgemm_128x64_nn",    "VectorizedElementwiseKernel",
                          "cutlass_80_tensorop_gemm", "LayerNormForward",
                          "ncclAllReduceRingLL",      "SoftmaxKernel"};

std::string decimal(uint64_t ns, int digits) {  // ns as decimal seconds with `digits` decimals
  char buf[64];
  uint64_t unit = 1;
  for (int i = 0; i < 9 - digits; ++i) unit *= 10;
  uint64_t frac = (ns % 1000000000ull) / unit;
  std::snprintf(buf, sizeof buf, "%llu.%0*llu", static_cast<unsigned long long>(ns / 1000000000ull),
                digits, static_cast<unsigned long long>(frac));
  return buf;
}

struct RankTimes {
  uint64_t start = 0, end = 0;
};

RankTimes writeProfile(const SynthOptions& o, int64_t rank, uint64_t skew, const fs::path& path) {
  Rng rng(o.seed * 1000003 + static_cast<uint64_t>(rank) * 7919 + 17);
  const int64_t gpu = rank % o.gpusPerTrainer;
  pb::Profile prof;
  uint64_t t = kEpochNs + skew + 50'000'000 + rng.range(0, 2'000'000);
  const uint64_t start = t;
  const uint64_t cpuThreads[] = {static_cast<uint64_t>(10000 + rank * 10),
                                 static_cast<uint64_t>(10001 + rank * 10),
                                 static_cast<uint64_t>(10002 + rank * 10)};
  const int64_t streams[] = {7, 13, 14};
  auto addEvent = [&](pb::Event::EventType type, const std::string& name, uint64_t s, uint64_t e,
                      int64_t dev, int64_t sub) -> pb::Event* {
    pb::Event* ev = prof.add_events();
    ev->set_type(type);
    ev->set_name(name);
    ev->set_start_ns(s);
    ev->set_end_ns(e);
    ev->set_device_id(dev);
    ev->set_sub_device_id(sub);
    return ev;
  };
  auto marker = [&](const char* detail, uint64_t at) {
    addEvent(pb::Event::CPU, "marker/compute/MarkerCUDA", at, at + 1000, 0,
             static_cast<int64_t>(cpuThreads[0]))
        ->set_detail_info(detail);
  };
  auto memEvent = [&](pb::MemEvent::Place place, uint32_t dev, uint64_t s, uint64_t e,
                      uint64_t bytes) {
    pb::MemEvent* m = prof.add_mem_events();
    m->set_start_ns(s);
    m->set_end_ns(e);
    m->set_bytes(bytes);
    m->set_place(place);
    m->set_thread_id(cpuThreads[0]);
    m->set_device_id(dev);
  };
  // Parameters: allocated once, never freed (end_ns 0).
  for (int i = 0; i < 4; ++i)
    memEvent(pb::MemEvent::CUDAPlace, static_cast<uint32_t>(gpu),
             t + static_cast<uint64_t>(i) * 100, 0, rng.range(1, 64) << 20);
  uint64_t gpuClock = t;
  for (int64_t step = 0; step < o.steps; ++step) {
    for (int phase = 0; phase < 2; ++phase) {
      marker(phase == 0 ? "marker_forward_B" : "marker_backward_B", t);
      t += 2000;
      int64_t ops = phase == 0 ? o.opsPerStep / 2 : o.opsPerStep - o.opsPerStep / 2;
      for (int64_t k = 0; k < ops; ++k) {
        std::string op = kOps[rng.next() % (sizeof kOps / sizeof *kOps)];
        if (phase == 1) op += "_grad";
        uint64_t tid = cpuThreads[rng.next() % 3];
        int64_t block = rng.chance(80) ? 0 : 1;
        uint64_t opStart = t, opDur = rng.range(8'000, 30'000);
        pb::Event* cpu = addEvent(pb::Event::CPU, op, opStart, opStart + opDur, block,
                                  static_cast<int64_t>(tid));
        if (rng.chance(20)) cpu->set_detail_info("op_type=" + op);
        uint64_t api = opStart + rng.range(1'000, 3'000);
        addEvent(pb::Event::CPU, "cudaLaunchKernel", api, api + rng.range(2'000, 5'000), -1,
                 static_cast<int64_t>(tid));
        int nk = rng.chance(30) ? 2 : 1;
        for (int j = 0; j < nk; ++j) {
          gpuClock = std::max(gpuClock, api + 4'000);
          uint64_t kd = rng.range(5'000, 40'000);
          int64_t dev =
              rng.chance(1) ? (gpu + 1) % o.gpusPerTrainer : gpu;  // a peer-to-peer kernel
          addEvent(pb::Event::GPUKernel,
                   kKernels[rng.next() % (sizeof kKernels / sizeof *kKernels)], gpuClock,
                   gpuClock + kd, dev, streams[rng.next() % 3]);
          gpuClock += kd + rng.range(500, 2'000);
        }
        if (rng.chance(10)) {  // a host-to-device copy
          uint64_t bytes = rng.range(1, 256) << 12;
          uint64_t a = api + 5'000;
          addEvent(pb::Event::CPU, "cudaMemcpyAsync", a, a + 3'000, -1, static_cast<int64_t>(tid));
          pb::Event* cp = addEvent(pb::Event::GPUKernel, "GpuMemcpyAsync:CPU->GPU", gpuClock,
                                   gpuClock + bytes / 10, gpu, streams[0]);
          cp->mutable_memcopy()->set_bytes(bytes);
          gpuClock += bytes / 10 + 1'000;
          memEvent(pb::MemEvent::CUDAPinnedPlace, static_cast<uint32_t>(gpu), a, a + 50'000, bytes);
        }
        // Workspace on the GPU, and host buffers now and then.
        if (rng.chance(30))
          memEvent(pb::MemEvent::CUDAPlace, static_cast<uint32_t>(gpu), opStart,
                   opStart + opDur + rng.range(0, 50'000), rng.range(1, 1024) << 10);
        if (rng.chance(5))
          memEvent(pb::MemEvent::CPUPlace, 0, opStart, opStart + rng.range(10'000, 500'000),
                   rng.range(1, 64) << 10);
        t = opStart + opDur + rng.range(500, 3'000);
      }
      t = std::max(t, gpuClock);
      marker(phase == 0 ? "marker_forward_E" : "marker_backward_E", t);
      t += rng.range(10'000, 100'000);
    }
  }
  prof.set_start_ns(start);
  prof.set_end_ns(t);
  std::ofstream f(path, std::ios::binary);
  prof.SerializeToOstream(&f);
  return {start, t};
}

}  // namespace

int runSynth(const SynthOptions& o) {
  std::error_code ec;
  for (const char* sub : {"profile", "dcgm", "net", "time"})
    fs::create_directories(fs::path(o.outDir) / sub, ec);
  if (ec) {
    std::fprintf(stderr, "xstack: synth: cannot create %s: %s\n", o.outDir.c_str(),
                 ec.message().c_str());
    return kExitFatal;
  }
  const fs::path out(o.outDir);
  uint64_t events = 0, bytes = 0;
  std::optional<SyncJobModel> sync;  // --sync: a synchronous job (SyncJobModel.h)
  if (o.sync) sync.emplace(o);
  for (int64_t tr = 0; tr < o.trainers; ++tr) {
    Rng trng(o.seed * 31 + static_cast<uint64_t>(tr) + 5);
    uint64_t skew = tr == 0 ? 0 : trng.range(0, o.skewNs);
    uint64_t jobStart = UINT64_MAX, jobEnd = 0;
    for (int64_t g = 0; g < o.gpusPerTrainer; ++g) {
      int64_t rank = tr * o.gpusPerTrainer + g;
      fs::path p = out / "profile" / ("profile_rank." + std::to_string(rank));
      RankTimes rt;
      if (sync)
        std::tie(rt.start, rt.end) = sync->writeProfile(rank, skew, p);
      else
        rt = writeProfile(o, rank, skew, p);
      jobStart = std::min(jobStart, rt.start);
      jobEnd = std::max(jobEnd, rt.end);
      bytes += fs::file_size(p, ec);
      // The time file starts before the profile (the launcher starts first).
      std::ofstream tf(out / "time" / ("time.txt." + std::to_string(g) + "." + std::to_string(tr)));
      tf << "start time: " << decimal(rt.start - 40'000'000 - trng.range(0, 1'000'000), 9) << "\n"
         << "end time: " << decimal(rt.end + 1'000'000, 9) << "\n";
    }
    // DCGM every 50 ms over the run, one row per GPU.
    std::ofstream dcgm(out / "dcgm" / ("dcgm." + std::to_string(tr)));
    dcgm << "# Entity GPUTL GRACT SMACT SMOCC FBTTL FBUSD DRAMA NVLTX NVLRX PCITX PCIRX FP32A "
            "FP16A TENSO TIMESTAMP\n"
         << "ID\n";
    std::ofstream net(out / "net" / ("net." + std::to_string(tr)));
    for (uint64_t ts = jobStart - 30'000'000; ts <= jobEnd + 50'000'000; ts += 50'000'000) {
      for (int64_t g = 0; g < o.gpusPerTrainer; ++g) {
        auto ratio = [&] { return decimal(trng.range(0, 1000) * 1'000'000, 3); };
        uint64_t fbTotal = 40960;
        dcgm << "GPU " << g << " " << trng.range(0, 100) << " " << ratio() << " " << ratio() << " "
             << ratio() << " " << fbTotal << " " << trng.range(1000, fbTotal) << " " << ratio()
             << " " << trng.range(0, 50000) << " " << trng.range(0, 50000) << " "
             << (trng.chance(10) ? std::string("N/A") : std::to_string(trng.range(0, 16000))) << " "
             << trng.range(0, 16000) << " " << ratio() << " " << ratio() << " " << ratio() << " "
             << decimal(ts, 6) << "\n";
        ++events;
      }
      for (const char* dir : {"tx", "rx"}) {
        char ms[40];
        std::snprintf(ms, sizeof ms, "%llu.%03llu", static_cast<unsigned long long>(ts / 1'000'000),
                      static_cast<unsigned long long>(ts / 1000 % 1000));
        net << "{\"name\":\"" << dir << "\",\"ts\":" << ms
            << ",\"args\":{\"eth0\":" << trng.range(0, 1'000'000) << "." << trng.range(0, 9)
            << ",\"ib0\":" << trng.range(0, 100'000'000) << "}}\n";
        ++events;
      }
    }
  }
  if (sync && !sync->writeTruth(out / "sync_truth.csv")) return kExitFatal;
  std::fprintf(stderr,
               "xstack: synth: wrote %lld trainers x %lld GPUs (%llu MiB of profiles) to %s\n",
               static_cast<long long>(o.trainers), static_cast<long long>(o.gpusPerTrainer),
               static_cast<unsigned long long>(bytes >> 20), o.outDir.c_str());
  return kExitOk;
}

}  // namespace xstack
