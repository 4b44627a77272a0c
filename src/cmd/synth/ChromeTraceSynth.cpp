#include "xstack/cmd/synth/ChromeTraceSynth.h"

#include <algorithm>
#include <cerrno>
#include <cstdio>
#include <cstring>
#include <ctime>

#include "xstack/cmd/common/ExitCode.h"
#include "xstack/cmd/synth/SyncJobModel.h"
#include "xstack/cmd/synth/Synth.h"
#include "xstack/cmd/synth/SynthParallelModel.h"
#include "xstack/cmd/synth/SynthRandom.h"
#include "xstack/core/TerminalText.h"

namespace fs = std::filesystem;

namespace xstack {

std::pair<uint64_t, uint64_t> HostCallNesting::call(uint64_t startNs, uint64_t endNs) {
  const uint64_t room = opEndNs > lastCallEndNs ? opEndNs - lastCallEndNs : 0;
  const uint64_t dur = std::min(endNs - startNs, room);
  uint64_t start = std::max(std::min(startNs, opEndNs - dur), lastCallEndNs);
  if (opEndNs < lastCallEndNs) start = lastCallEndNs;  // no room at all: a 0 ns call
  lastCallEndNs = start + dur;
  return {start, start + dur};
}

ChromeRank chromeRankOf(const SynthOptions& o, int64_t rank, uint64_t skewNs) {
  ChromeRank r;
  r.rank = rank;
  r.worldSize = o.trainers * o.gpusPerTrainer;
  r.trainer = rank / o.gpusPerTrainer;
  r.gpu = rank % o.gpusPerTrainer;
  r.gpusPerNode = o.gpusPerTrainer;
  r.pid = SyncJobModel::mainThreadOf(rank);
  r.skewNs = skewNs;
  return r;
}

std::string chromeTraceFileName(SynthFormat format, const ChromeRank& r, uint64_t beginEpochNs) {
  const std::string rank = std::to_string(r.rank), node = std::to_string(r.trainer),
                    pid = std::to_string(r.pid);
  if (format == SynthFormat::Kineto)  // torch's tensorboard_trace_handler: <worker>.<time_ns>
    return "rank" + rank + ".node" + node + "_" + pid + "." + std::to_string(beginEpochNs) +
           ".pt.trace.json.gz";
  // Paddle: <worker>_time_<%Y_%m_%d_%H_%M_%S_%f> (UTC here), worker = host_<name>pid_<pid>.
  const auto seconds = static_cast<std::time_t>(beginEpochNs / 1'000'000'000);
  std::tm utc{};
  gmtime_r(&seconds, &utc);
  char stamp[64];
  std::snprintf(stamp, sizeof stamp, "%04d_%02d_%02d_%02d_%02d_%02d_%06llu", utc.tm_year + 1900,
                utc.tm_mon + 1, utc.tm_mday, utc.tm_hour, utc.tm_min, utc.tm_sec,
                static_cast<unsigned long long>(beginEpochNs / 1000 % 1'000'000));
  return "host_node" + node + "pid_" + pid + "_time_" + stamp + ".rank" + rank +
         ".paddle_trace.json";
}

int runChromeTraceSynth(const SynthOptions& o) {
  if (o.parallel.on) return runParallelSynth(o);
  const fs::path out(o.outDir), profile = out / "profile";
  std::error_code ec;
  fs::create_directories(profile, ec);
  if (ec) {
    std::fprintf(stderr, "xstack: synth: cannot create %s: %s\n",
                 terminalSafe(profile.string()).c_str(), ec.message().c_str());
    return kExitFatal;
  }
  SyncJobModel model(o);
  uint64_t bytes = 0;
  for (int64_t tr = 0; tr < o.trainers; ++tr) {
    // The trainer's clock skew: the same draw as for the Paddle dumps.
    SynthRandom trng(o.seed * 31 + static_cast<uint64_t>(tr) + 5);
    const uint64_t skew = tr == 0 ? 0 : trng.range(0, o.skewNs);
    for (int64_t g = 0; g < o.gpusPerTrainer; ++g) {
      const ChromeRank r = chromeRankOf(o, tr * o.gpusPerTrainer + g, skew);
      const fs::path p = profile / chromeTraceFileName(o.format, r, model.beginNs() + skew);
      auto writer = o.format == SynthFormat::Kineto ? makeKinetoTraceWriter(r, p)
                                                    : makePaddleTraceWriter(r, p);
      errno = 0;
      if (!model.writeRank(r.rank, *writer)) {
        std::fprintf(stderr, "xstack: synth: cannot write %s: %s; the data set is incomplete\n",
                     terminalSafe(p.string()).c_str(), std::strerror(errno ? errno : EIO));
        return kExitFatal;
      }
      bytes += fs::file_size(p, ec);
    }
  }
  if (!model.writeTruth(out / "sync_truth.csv")) return kExitFatal;
  std::fprintf(
      stderr, "xstack: synth: wrote %lld trainers x %lld GPUs (%llu MiB of %s traces) to %s\n",
      static_cast<long long>(o.trainers), static_cast<long long>(o.gpusPerTrainer),
      static_cast<unsigned long long>(bytes >> 20),
      o.format == SynthFormat::Kineto ? "Kineto" : "Paddle JSON", terminalSafe(o.outDir).c_str());
  std::fprintf(stderr, "xstack: synth: to make its traces: %s\n",
               terminalSafe(reportCommandFor(o)).c_str());
  return kExitOk;
}

}  // namespace xstack
