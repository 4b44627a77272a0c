#include "xstack/cmd/synth/Synth.h"

#include <cerrno>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <optional>
#include <string>
#include <tuple>

#include "profiler.pb.h"
#include "xstack/cmd/common/ExitCode.h"
#include "xstack/cmd/synth/ChromeTraceSynth.h"
#include "xstack/cmd/synth/SyncJobModel.h"
#include "xstack/cmd/synth/SynthRandom.h"
#include "xstack/core/TerminalText.h"

namespace fs = std::filesystem;
namespace pb = paddle::platform::proto;

namespace xstack {
namespace {

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
  bool written = true;  // false: a write or the close failed (full disk)
};

// Closes `f`; true when every write to it reached the file (a full disk
// fails the final flush at the latest).
bool closedOk(std::ofstream& f) {
  f.close();
  return !f.fail();
}

int writeFailed(const fs::path& p) {
  std::fprintf(stderr, "xstack: synth: cannot write %s: %s; the data set is incomplete\n",
               terminalSafe(p.string()).c_str(), std::strerror(errno ? errno : EIO));
  return kExitFatal;
}

// One rank's synthetic profile, built event by event. The random draws
// happen in a fixed order: the same seed gives the same bytes.
class ProfileBuilder {
 public:
  ProfileBuilder(const SynthOptions& o, int64_t rank, uint64_t skew)
      : o_(o),
        rng_(o.seed * 1000003 + static_cast<uint64_t>(rank) * 7919 + 17),
        gpu_(rank % o.gpusPerTrainer),
        cpuThreads_{static_cast<uint64_t>(10000 + rank * 10),
                    static_cast<uint64_t>(10001 + rank * 10),
                    static_cast<uint64_t>(10002 + rank * 10)} {
    t_ = kEpochNs + skew + 50'000'000 + rng_.range(0, 2'000'000);
    start_ = t_;
  }

  RankTimes build(const fs::path& path) {
    // Parameters: allocated once, never freed (end_ns 0).
    for (int i = 0; i < 4; ++i)
      memEvent(pb::MemEvent::CUDAPlace, static_cast<uint32_t>(gpu_),
               t_ + static_cast<uint64_t>(i) * 100, 0, rng_.range(1, 64) << 20);
    gpuClock_ = t_;
    for (int64_t step = 0; step < o_.steps; ++step) {
      for (int phase = 0; phase < 2; ++phase) {
        marker(phase == 0 ? "marker_forward_B" : "marker_backward_B", t_);
        t_ += 2000;
        int64_t ops = phase == 0 ? o_.opsPerStep / 2 : o_.opsPerStep - o_.opsPerStep / 2;
        for (int64_t k = 0; k < ops; ++k) addOp(phase);
        t_ = std::max(t_, gpuClock_);
        marker(phase == 0 ? "marker_forward_E" : "marker_backward_E", t_);
        t_ += rng_.range(10'000, 100'000);
      }
    }
    prof_.set_start_ns(start_);
    prof_.set_end_ns(t_);
    std::ofstream f(path, std::ios::binary);
    const bool ok = prof_.SerializeToOstream(&f);
    return {start_, t_, closedOk(f) && ok};
  }

 private:
  pb::Event* addEvent(pb::Event::EventType type, const std::string& name, uint64_t s, uint64_t e,
                      int64_t dev, int64_t sub) {
    pb::Event* ev = prof_.add_events();
    ev->set_type(type);
    ev->set_name(name);
    ev->set_start_ns(s);
    ev->set_end_ns(e);
    ev->set_device_id(dev);
    ev->set_sub_device_id(sub);
    return ev;
  }
  void marker(const char* detail, uint64_t at) {
    addEvent(pb::Event::CPU, "marker/compute/MarkerCUDA", at, at + 1000, 0,
             static_cast<int64_t>(cpuThreads_[0]))
        ->set_detail_info(detail);
  }
  void memEvent(pb::MemEvent::Place place, uint32_t dev, uint64_t s, uint64_t e, uint64_t bytes) {
    pb::MemEvent* m = prof_.add_mem_events();
    m->set_start_ns(s);
    m->set_end_ns(e);
    m->set_bytes(bytes);
    m->set_place(place);
    m->set_thread_id(cpuThreads_[0]);
    m->set_device_id(dev);
  }

  // One operator: its CPU event, its launch, its kernels, maybe a copy and memory.
  void addOp(int phase) {
    std::string op = kOps[rng_.next() % (sizeof kOps / sizeof *kOps)];
    if (phase == 1) op += "_grad";
    uint64_t tid = cpuThreads_[rng_.next() % 3];
    int64_t block = rng_.chance(80) ? 0 : 1;
    uint64_t opStart = t_, opDur = rng_.range(8'000, 30'000);
    pb::Event* cpu =
        addEvent(pb::Event::CPU, op, opStart, opStart + opDur, block, static_cast<int64_t>(tid));
    if (rng_.chance(20)) cpu->set_detail_info("op_type=" + op);
    uint64_t api = opStart + rng_.range(1'000, 3'000);
    addEvent(pb::Event::CPU, "cudaLaunchKernel", api, api + rng_.range(2'000, 5'000), -1,
             static_cast<int64_t>(tid));
    addKernels(api);
    if (rng_.chance(10)) addCopy(api, tid);
    // Workspace on the GPU, and host buffers now and then.
    if (rng_.chance(30))
      memEvent(pb::MemEvent::CUDAPlace, static_cast<uint32_t>(gpu_), opStart,
               opStart + opDur + rng_.range(0, 50'000), rng_.range(1, 1024) << 10);
    if (rng_.chance(5))
      memEvent(pb::MemEvent::CPUPlace, 0, opStart, opStart + rng_.range(10'000, 500'000),
               rng_.range(1, 64) << 10);
    t_ = opStart + opDur + rng_.range(500, 3'000);
  }
  void addKernels(uint64_t api) {
    int nk = rng_.chance(30) ? 2 : 1;
    for (int j = 0; j < nk; ++j) {
      gpuClock_ = std::max(gpuClock_, api + 4'000);
      uint64_t kd = rng_.range(5'000, 40'000);
      int64_t dev =
          rng_.chance(1) ? (gpu_ + 1) % o_.gpusPerTrainer : gpu_;  // a peer-to-peer kernel
      addEvent(pb::Event::GPUKernel, kKernels[rng_.next() % (sizeof kKernels / sizeof *kKernels)],
               gpuClock_, gpuClock_ + kd, dev, kStreams[rng_.next() % 3]);
      gpuClock_ += kd + rng_.range(500, 2'000);
    }
  }
  void addCopy(uint64_t api, uint64_t tid) {  // a host-to-device copy
    uint64_t bytes = rng_.range(1, 256) << 12;
    uint64_t a = api + 5'000;
    addEvent(pb::Event::CPU, "cudaMemcpyAsync", a, a + 3'000, -1, static_cast<int64_t>(tid));
    pb::Event* cp = addEvent(pb::Event::GPUKernel, "GpuMemcpyAsync:CPU->GPU", gpuClock_,
                             gpuClock_ + bytes / 10, gpu_, kStreams[0]);
    cp->mutable_memcopy()->set_bytes(bytes);
    gpuClock_ += bytes / 10 + 1'000;
    memEvent(pb::MemEvent::CUDAPinnedPlace, static_cast<uint32_t>(gpu_), a, a + 50'000, bytes);
  }

  static constexpr int64_t kStreams[] = {7, 13, 14};
  const SynthOptions& o_;
  SynthRandom rng_;
  const int64_t gpu_;
  const uint64_t cpuThreads_[3];
  pb::Profile prof_;
  uint64_t t_ = 0, start_ = 0, gpuClock_ = 0;
};

RankTimes writeProfile(const SynthOptions& o, int64_t rank, uint64_t skew, const fs::path& path) {
  return ProfileBuilder(o, rank, skew).build(path);
}

// 'text' for a shell, unless it is made of safe characters only.
std::string shellQuoted(const std::string& s) {
  const bool safe = !s.empty() && s.find_first_not_of(
                                      "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ"
                                      "0123456789/._-+=:,@%") == std::string::npos;
  if (safe) return s;
  std::string q = "'";
  for (char c : s) q += c == '\'' ? std::string("'\\''") : std::string(1, c);
  return q + "'";
}

}  // namespace

std::string reportCommandFor(const SynthOptions& o) {
  std::string data = o.outDir;
  while (data.size() > 1 && data.back() == '/') data.pop_back();
  return "xstack report --data-dir " + shellQuoted(data) + " --out " +
         shellQuoted(data + "-traces") + " --gpus-per-trainer " + std::to_string(o.gpusPerTrainer);
}

// DCGM every 50 ms over [jobStart - 30 ms, jobEnd + 50 ms] (ns), one row per GPU,
// and net tx/rx lines, of trainer `tr`. Returns kExitOk or kExitFatal (named).
static int writeTelemetry(const SynthOptions& o, const fs::path& out, int64_t tr, SynthRandom& trng,
                          uint64_t jobStart, uint64_t jobEnd, uint64_t& events) {
  // DCGM every 50 ms over the run, one row per GPU.
  const fs::path dp = out / "dcgm" / ("dcgm." + std::to_string(tr));
  const fs::path np = out / "net" / ("net." + std::to_string(tr));
  std::ofstream dcgm(dp);
  dcgm << "# Entity GPUTL GRACT SMACT SMOCC FBTTL FBUSD DRAMA NVLTX NVLRX PCITX PCIRX FP32A "
          "FP16A TENSO TIMESTAMP\n"
       << "ID\n";
  std::ofstream net(np);
  for (uint64_t ts = jobStart - 30'000'000; ts <= jobEnd + 50'000'000; ts += 50'000'000) {
    for (int64_t g = 0; g < o.gpusPerTrainer; ++g) {
      auto ratio = [&] { return decimal(trng.range(0, 1000) * 1'000'000, 3); };
      uint64_t fbTotal = 40960;
      dcgm << "GPU " << g << " " << trng.range(0, 100) << " " << ratio() << " " << ratio() << " "
           << ratio() << " " << fbTotal << " " << trng.range(1000, fbTotal) << " " << ratio() << " "
           << trng.range(0, 50000) << " " << trng.range(0, 50000) << " "
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
  if (!closedOk(dcgm)) return writeFailed(dp);
  if (!closedOk(net)) return writeFailed(np);
  return kExitOk;
}

int runSynth(const SynthOptions& o) {
  if (o.format != SynthFormat::PaddleProfile) return runChromeTraceSynth(o);
  std::error_code ec;
  for (const char* sub : {"profile", "dcgm", "net", "time"})
    if (fs::create_directories(fs::path(o.outDir) / sub, ec); ec) break;  // the first error
  if (ec) {
    std::fprintf(stderr, "xstack: synth: cannot create %s: %s\n", terminalSafe(o.outDir).c_str(),
                 ec.message().c_str());
    return kExitFatal;
  }
  const fs::path out(o.outDir);
  uint64_t events = 0, bytes = 0;
  std::optional<SyncJobModel> sync;  // --sync: a synchronous job (SyncJobModel.h)
  if (o.sync) sync.emplace(o);
  for (int64_t tr = 0; tr < o.trainers; ++tr) {
    SynthRandom trng(o.seed * 31 + static_cast<uint64_t>(tr) + 5);
    uint64_t skew = tr == 0 ? 0 : trng.range(0, o.skewNs);
    uint64_t jobStart = UINT64_MAX, jobEnd = 0;
    for (int64_t g = 0; g < o.gpusPerTrainer; ++g) {
      int64_t rank = tr * o.gpusPerTrainer + g;
      fs::path p = out / "profile" / ("profile_rank." + std::to_string(rank));
      RankTimes rt;
      if (sync) {
        auto times = sync->writeProfile(rank, skew, p);
        if (!times) return writeFailed(p);
        std::tie(rt.start, rt.end) = *times;
      } else {
        rt = writeProfile(o, rank, skew, p);
        if (!rt.written) return writeFailed(p);
      }
      jobStart = std::min(jobStart, rt.start);
      jobEnd = std::max(jobEnd, rt.end);
      bytes += fs::file_size(p, ec);
      // The time file starts before the profile (the launcher starts first).
      const fs::path tp =
          out / "time" / ("time.txt." + std::to_string(g) + "." + std::to_string(tr));
      std::ofstream tf(tp);
      tf << "start time: " << decimal(rt.start - 40'000'000 - trng.range(0, 1'000'000), 9) << "\n"
         << "end time: " << decimal(rt.end + 1'000'000, 9) << "\n";
      if (!closedOk(tf)) return writeFailed(tp);
    }
    if (int rc = writeTelemetry(o, out, tr, trng, jobStart, jobEnd, events); rc != kExitOk)
      return rc;
  }
  if (sync && !sync->writeTruth(out / "sync_truth.csv")) return kExitFatal;
  std::fprintf(stderr,
               "xstack: synth: wrote %lld trainers x %lld GPUs (%llu MiB of profiles) to %s\n",
               static_cast<long long>(o.trainers), static_cast<long long>(o.gpusPerTrainer),
               static_cast<unsigned long long>(bytes >> 20), terminalSafe(o.outDir).c_str());
  std::fprintf(stderr, "xstack: synth: to make its traces: %s\n",
               terminalSafe(reportCommandFor(o)).c_str());
  return kExitOk;
}

}  // namespace xstack
