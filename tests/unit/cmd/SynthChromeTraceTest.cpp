// `xstack synth --format kineto|paddle-json`: every synthesized file read back
// with the streaming tokenizer (source/chrome/TraceReader.h): it parses
// whole, the rank is where the format puts it, the step spans and kernel
// times are exact against sync_truth.csv, the counts per category follow
// from the options, launches and GPU events pair up by correlation, memory
// totals are running sums, clock skew and stragglers show, and the same
// options give the same bytes.
#include <gtest/gtest.h>

#include <algorithm>
#include <fstream>
#include <map>
#include <regex>
#include <set>
#include <sstream>
#include <string>
#include <vector>

#include "../TempDirTest.h"
#include "xstack/cmd/cli/Cli.h"
#include "xstack/cmd/synth/Synth.h"
#include "xstack/cmd/synth/SynthMemoryLedger.h"
#include "xstack/cmd/synth/SynthTraceOut.h"
#include "xstack/source/chrome/TraceReader.h"

namespace xstack {
namespace {

namespace fs = std::filesystem;
using chrome::ArgKey;
using chrome::TraceEvent;

SynthOptions synthOptions(const std::vector<std::string>& args) {
  Command c = parseCommandLine(args);
  EXPECT_TRUE(std::holds_alternative<SynthOptions>(c));
  return std::get<SynthOptions>(c);
}

struct Truth {
  int64_t stepNs = 0, computeNs = 0, commNs = 0, memcpyNs = 0;
};
// (rank, step) -> the model's values (sync_truth.csv).
std::map<std::pair<int64_t, int64_t>, Truth> readTruth(const fs::path& p) {
  std::map<std::pair<int64_t, int64_t>, Truth> t;
  std::ifstream f(p);
  std::string line;
  std::getline(f, line);  // header
  while (std::getline(f, line)) {
    std::vector<int64_t> v;
    std::stringstream s(line);
    std::string cell;
    while (std::getline(s, cell, ',') && v.size() < 6) v.push_back(std::stoll(cell));
    t[{v[0], v[1]}] = {v[2], v[3], v[4], v[5]};
  }
  return t;
}

std::optional<int64_t> argNamed(const TraceEvent& e, std::string_view key) {
  for (const chrome::Arg& a : e.args)
    if (a.key == key) return chrome::argRawToInt(a);
  return std::nullopt;
}

struct Span {
  int64_t startNs = 0, endNs = 0;
};

// What one file holds, as the tests need it (epoch ns: base added).
struct RankFile {
  std::string name;
  chrome::ReadResult read;
  int64_t rank = -1;  // from distributedInfo (Kineto) or the file name (Paddle)
  std::map<std::string, int64_t> cats;
  std::map<char, int64_t> phases;
  std::vector<std::pair<int64_t, Span>> steps;  // (N of ProfilerStep#N, span)
  std::vector<Span> allReduces, computeKernels, memcpys;
  std::set<int64_t> runtimeCorrelations;
  std::vector<int64_t> gpuCorrelations;
  int64_t memoryChecked = 0, memoryBad = 0;
  std::map<std::string, int64_t> finalAllocated;  // per device key
  int64_t memcpyBytesBad = 0;
};

bool isGpuCat(std::string_view cat) {
  return cat == "kernel" || cat == "gpu_memcpy" || cat == "gpu_memset" || cat == "Kernel" ||
         cat == "Memcpy" || cat == "Memset";
}

// The running-total check of one [memory] instant.
void checkMemory(const TraceEvent& e, bool kineto, std::map<std::string, int64_t>& totals,
                 RankFile& r) {
  std::string key;
  std::optional<int64_t> delta, total;
  if (kineto) {
    key = std::to_string(e.argInt(ArgKey::DeviceType).value_or(-9)) + ":" +
          std::to_string(e.argInt(ArgKey::DeviceId).value_or(-9));
    delta = e.argInt(ArgKey::MemoryBytes);
    total = e.argInt(ArgKey::TotalAllocated);
    if (e.argInt(ArgKey::TotalReserved).value_or(-1) < total.value_or(0)) ++r.memoryBad;
  } else {
    key = std::string(e.argText(ArgKey::Place));
    delta = argNamed(e, "increase_bytes");
    total = e.argInt(ArgKey::CurrentAllocated);
    if ((e.cat == "Allocate") != (delta.value_or(0) > 0)) ++r.memoryBad;
    if (argNamed(e, "peak_allocated").value_or(-1) < total.value_or(0)) ++r.memoryBad;
  }
  ++r.memoryChecked;
  if (!delta || !total || totals[key] + *delta != *total) ++r.memoryBad;
  totals[key] = total.value_or(0);
  r.finalAllocated[key] = totals[key];
}

void onEvent(const TraceEvent& e, bool kineto, std::map<std::string, int64_t>& totals,
             RankFile& r) {
  ++r.phases[e.ph];
  if (e.hasCat) ++r.cats[std::string(e.cat)];
  const int64_t start = e.ts.ns;
  const Span span{start, start + e.dur.ns};
  static const std::regex kStep(R"(Profiler?Step#(\d+))");
  std::cmatch m;
  const std::string name(e.name);
  if (e.ph == 'X' && std::regex_match(name.c_str(), m, kStep))
    r.steps.push_back({std::stoll(m[1].str()), span});
  if (e.cat == "cuda_runtime" || e.cat == "CudaRuntime")
    r.runtimeCorrelations.insert(e.argInt(ArgKey::Correlation).value_or(-1));
  if (isGpuCat(e.cat)) {
    r.gpuCorrelations.push_back(e.argInt(ArgKey::Correlation).value_or(-1));
    if (e.pid.value != e.argInt(ArgKey::Device).value_or(e.pid.value)) ++r.memoryBad;
  }
  if (e.cat == "kernel" || e.cat == "Kernel")
    (name.rfind("ncclKernel_AllReduce", 0) == 0 ? r.allReduces : r.computeKernels).push_back(span);
  if (e.cat == "gpu_memcpy" || e.cat == "Memcpy") {
    r.memcpys.push_back(span);
    // bytes / 40 ns per byte... the model's copy lasts bytes/40 ns.
    if (e.argInt(ArgKey::Bytes).value_or(0) / 40 != e.dur.ns) ++r.memcpyBytesBad;
  }
  if (e.ph == 'i' && e.name == "[memory]") checkMemory(e, kineto, totals, r);
}

std::vector<RankFile> readAll(const fs::path& dir, bool kineto) {
  std::vector<fs::path> paths;
  for (const auto& f : fs::directory_iterator(dir / "profile")) paths.push_back(f.path());
  std::sort(paths.begin(), paths.end());
  std::vector<RankFile> files;
  static const std::regex kRankInName(R"(rank(\d+))");
  for (const fs::path& p : paths) {
    RankFile r;
    r.name = p.filename().string();
    std::map<std::string, int64_t> totals;
    r.read =
        chrome::readTrace(p.string(), [&](const TraceEvent& e) { onEvent(e, kineto, totals, r); });
    std::smatch m;
    if (kineto && r.read.info.rank)
      r.rank = *r.read.info.rank;
    else if (!kineto && std::regex_search(r.name, m, kRankInName))
      r.rank = std::stoll(m[1].str());
    const int64_t base = r.read.info.baseTimeNs.value_or(0);
    for (auto& [n, s] : r.steps) s = {s.startNs + base, s.endNs + base};
    for (auto* v : {&r.allReduces, &r.computeKernels, &r.memcpys})
      for (Span& s : *v) s = {s.startNs + base, s.endNs + base};
    files.push_back(std::move(r));
  }
  return files;
}

int64_t durationInside(const std::vector<Span>& spans, const Span& window) {
  int64_t sum = 0;
  for (const Span& s : spans)
    if (s.startNs >= window.startNs && s.endNs <= window.endNs) sum += s.endNs - s.startNs;
  return sum;
}

class SynthChromeTraceTest : public TempDirTest {
 protected:
  // Synthesizes into dir_/<sub> with `extra` options; returns the folder.
  fs::path synth(const std::string& sub, const std::string& format,
                 std::vector<std::string> extra = {}) {
    std::vector<std::string> args = {"synth",
                                     "--out",
                                     (dir_ / sub).string(),
                                     "--format",
                                     format,
                                     "--trainers",
                                     "2",
                                     "--gpus-per-trainer",
                                     "2",
                                     "--steps",
                                     "3",
                                     "--ops-per-step",
                                     "10"};
    if (std::find(extra.begin(), extra.end(), "--seed") == extra.end())
      args.insert(args.end(), {"--seed", "11"});
    args.insert(args.end(), extra.begin(), extra.end());
    EXPECT_EQ(runSynth(synthOptions(args)), kExitOk);
    return dir_ / sub;
  }

  // The checks every file of either format passes.
  static void checkFile(const RankFile& r, bool kineto,
                        const std::map<std::pair<int64_t, int64_t>, Truth>& truth) {
    SCOPED_TRACE(r.name);
    ASSERT_TRUE(r.read.ok()) << r.read.error->message;
    ASSERT_GE(r.rank, 0);
    const int64_t steps = 3, ops = 10;
    ASSERT_EQ(static_cast<int64_t>(r.steps.size()), steps);
    EXPECT_EQ(static_cast<int64_t>(r.allReduces.size()), steps);
    EXPECT_EQ(static_cast<int64_t>(r.computeKernels.size()), steps * ops);
    const int64_t memsets = r.cats.count(kineto ? "gpu_memset" : "Memset")
                                ? r.cats.at(kineto ? "gpu_memset" : "Memset")
                                : 0;
    EXPECT_EQ(memsets, steps);
    const int64_t gpuEvents = static_cast<int64_t>(r.gpuCorrelations.size());
    EXPECT_EQ(gpuEvents, steps * (ops + 1) + memsets + static_cast<int64_t>(r.memcpys.size()));
    EXPECT_EQ(static_cast<int64_t>(r.runtimeCorrelations.size()), gpuEvents);
    for (int64_t c : r.gpuCorrelations) EXPECT_TRUE(r.runtimeCorrelations.count(c)) << c;
    EXPECT_EQ(r.phases.at('s'), gpuEvents);
    EXPECT_EQ(r.phases.at('f'), gpuEvents);
    EXPECT_EQ(r.memcpyBytesBad, 0);
    EXPECT_GT(r.memoryChecked, 4);
    EXPECT_EQ(r.memoryBad, 0);
    for (const auto& [key, allocated] : r.finalAllocated)  // parameters stay, the rest is freed
      EXPECT_EQ(allocated, key == "1:" + std::to_string(r.rank % 2) ||
                                   key == "Place(gpu:" + std::to_string(r.rank % 2) + ")"
                               ? (16 + 24 + 32 + 40) << 20
                               : 0)
          << key;
    for (const auto& [n, span] : r.steps) {
      SCOPED_TRACE("step " + std::to_string(n));
      const Truth& t = truth.at({r.rank, n});
      EXPECT_EQ(span.endNs - span.startNs, t.stepNs);
      EXPECT_EQ(durationInside(r.computeKernels, span), t.computeNs);
      EXPECT_EQ(durationInside(r.allReduces, span), t.commNs);
      EXPECT_EQ(durationInside(r.memcpys, span), t.memcpyNs);
    }
  }
};

TEST_F(SynthChromeTraceTest, KinetoFilesReadBackExactly) {
  const fs::path d = synth("k", "kineto");
  EXPECT_FALSE(fs::exists(d / "dcgm") || fs::exists(d / "net") || fs::exists(d / "time"));
  const auto truth = readTruth(d / "sync_truth.csv");
  const auto files = readAll(d, /*kineto=*/true);
  ASSERT_EQ(files.size(), 4u);
  std::set<int64_t> ranks;
  for (const RankFile& r : files) {
    checkFile(r, true, truth);
    const chrome::TraceInfo& info = r.read.info;
    EXPECT_TRUE(info.gzip);
    EXPECT_EQ(info.schemaVersion, "1");
    EXPECT_EQ(info.worldSize, 4);
    ASSERT_TRUE(info.baseTimeNs);
    EXPECT_EQ(*info.baseTimeNs % (7'889'238LL * 1'000'000'000LL), 0);
    EXPECT_FALSE(info.headerAfterEvents);  // the base before traceEvents, as Kineto writes it
    EXPECT_EQ(r.name.rfind("rank" + std::to_string(r.rank) + ".", 0), 0u) << r.name;
    EXPECT_EQ(r.cats.at("cpu_op"), 3 * 10 + 3);  // the ops and record_param_comms
    EXPECT_EQ(r.cats.at("cuda_runtime"), static_cast<int64_t>(r.gpuCorrelations.size()));
    ranks.insert(r.rank);
  }
  EXPECT_EQ(ranks, (std::set<int64_t>{0, 1, 2, 3}));
}

TEST_F(SynthChromeTraceTest, PaddleJsonFilesReadBackExactly) {
  const fs::path d = synth("p", "paddle-json");
  const auto truth = readTruth(d / "sync_truth.csv");
  const auto files = readAll(d, /*kineto=*/false);
  ASSERT_EQ(files.size(), 4u);
  for (const RankFile& r : files) {
    checkFile(r, false, truth);
    const chrome::TraceInfo& info = r.read.info;
    EXPECT_FALSE(info.gzip);
    EXPECT_FALSE(info.rank);  // Paddle writes no rank: the file name has it
    EXPECT_EQ(info.schemaVersion, "1.0.1");
    EXPECT_EQ(info.emptyObjects, 1u);  // the trailing {}
    EXPECT_NE(r.name.find(".rank" + std::to_string(r.rank) + ".paddle_trace.json"),
              std::string::npos);
    EXPECT_EQ(r.cats.at("Operator"), 3 * 10);
    EXPECT_EQ(r.cats.at("Communication"), 3);
    EXPECT_EQ(r.cats.at("ProfileStep"), 3);
    for (const auto& [n, span] : r.steps) EXPECT_EQ(span.startNs % 1000, 0);  // whole us
  }
}

TEST_F(SynthChromeTraceTest, BothFormatsTellTheSameTimes) {
  const auto kineto = readAll(synth("k", "kineto"), true);
  const auto paddle = readAll(synth("p", "paddle-json"), false);
  ASSERT_EQ(kineto.size(), paddle.size());
  std::map<int64_t, const RankFile*> byRank;
  for (const RankFile& r : paddle) byRank[r.rank] = &r;
  for (const RankFile& k : kineto) {
    const RankFile& p = *byRank.at(k.rank);
    ASSERT_EQ(k.steps.size(), p.steps.size());
    for (size_t i = 0; i < k.steps.size(); ++i) {  // Paddle's ts is Kineto's, truncated to us
      EXPECT_EQ(k.steps[i].second.startNs / 1000 * 1000, p.steps[i].second.startNs);
      EXPECT_EQ(k.steps[i].second.endNs - k.steps[i].second.startNs,
                p.steps[i].second.endNs - p.steps[i].second.startNs);
    }
  }
}

// A synchronous job: the all-reduce ends at one true time on every rank, so
// ranks of one trainer agree to the ns and the trainers differ by the skew.
TEST_F(SynthChromeTraceTest, AllReducesEndTogetherUpToTheTrainersSkew) {
  const auto files = readAll(synth("k", "kineto", {"--skew-ns", "3000000"}), true);
  ASSERT_EQ(files.size(), 4u);
  std::map<int64_t, const RankFile*> byRank;
  for (const RankFile& r : files) byRank[r.rank] = &r;
  for (size_t s = 0; s < 3; ++s) {
    const int64_t end0 = byRank.at(0)->allReduces.at(s).endNs;
    const int64_t end2 = byRank.at(2)->allReduces.at(s).endNs;
    EXPECT_EQ(byRank.at(1)->allReduces.at(s).endNs, end0);
    EXPECT_EQ(byRank.at(3)->allReduces.at(s).endNs, end2);
    EXPECT_GE(end2 - end0, 0);
    EXPECT_LE(end2 - end0, 3'000'000);
    EXPECT_EQ(end2 - end0,
              byRank.at(2)->allReduces.at(0).endNs - byRank.at(0)->allReduces.at(0).endNs);
  }
}

TEST_F(SynthChromeTraceTest, AStragglerHasTheShortestAllReduce) {
  for (const std::string& format : std::vector<std::string>{"kineto", "paddle-json"}) {
    const auto files =
        readAll(synth(format, format, {"--slow", "1:3", "--skew-ns", "0"}), format == "kineto");
    ASSERT_EQ(files.size(), 4u);
    std::map<int64_t, const RankFile*> byRank;
    for (const RankFile& r : files) byRank[r.rank] = &r;
    for (size_t s = 0; s < 3; ++s) {
      auto dur = [&](int64_t rank) {
        const Span& a = byRank.at(rank)->allReduces.at(s);
        return a.endNs - a.startNs;
      };
      for (int64_t other : {0, 2, 3}) EXPECT_LT(dur(1), dur(other)) << format << " step " << s;
    }
  }
}

std::map<std::string, std::string> filesOf(const fs::path& dir) {
  std::map<std::string, std::string> bytes;
  for (const auto& f : fs::recursive_directory_iterator(dir))
    if (f.is_regular_file()) {
      std::ifstream in(f.path(), std::ios::binary);
      bytes[fs::relative(f.path(), dir).string()] =
          std::string(std::istreambuf_iterator<char>(in), {});
    }
  return bytes;
}

TEST_F(SynthChromeTraceTest, SameOptionsSameBytes) {
  for (const std::string& format : std::vector<std::string>{"kineto", "paddle-json"}) {
    const auto a = filesOf(synth(format + "1", format));
    const auto b = filesOf(synth(format + "2", format));
    EXPECT_EQ(a.size(), 5u);  // 4 ranks and sync_truth.csv
    EXPECT_TRUE(a == b) << format;
    EXPECT_FALSE(a == filesOf(synth(format + "3", format, {"--seed", "12"}))) << format;
  }
}

TEST_F(SynthChromeTraceTest, FormatOption) {
  EXPECT_EQ(synthOptions({"synth", "--out", "d"}).format, SynthFormat::PaddleProfile);
  EXPECT_FALSE(synthOptions({"synth", "--out", "d"}).sync);
  const SynthOptions k = synthOptions({"synth", "--out", "d", "--format", "kineto"});
  EXPECT_EQ(k.format, SynthFormat::Kineto);
  EXPECT_TRUE(k.sync);  // the JSON formats write the synchronous job
  EXPECT_EQ(synthOptions({"synth", "--out", "d", "--format", "paddle-json"}).format,
            SynthFormat::PaddleJson);
  EXPECT_EQ(synthOptions({"synth", "--out", "d", "--format", "paddle"}).format,
            SynthFormat::PaddleProfile);
  Command bad = parseCommandLine({"synth", "--out", "d", "--format", "json"});
  ASSERT_TRUE(std::holds_alternative<Failure>(bad));
  EXPECT_NE(std::get<Failure>(bad).message.find("kineto"), std::string::npos);
  EXPECT_EQ(reportCommandFor(k), "xstack report --data-dir d --out d-traces --gpus-per-trainer 8");
}

TEST(SynthTraceOutTest, MicrosWithThreeDecimals) {
  EXPECT_EQ(micros3Text(0), "0.000");
  EXPECT_EQ(micros3Text(5), "0.005");
  EXPECT_EQ(micros3Text(1234567), "1234.567");
  EXPECT_EQ(micros3Text(-1500), "-1.500");
  EXPECT_EQ(micros3Text(INT64_MAX), "9223372036854775.807");
}

TEST(SynthMemoryLedgerTest, ChangesInTimeOrderWithRunningTotals) {
  SynthMemoryLedger ledger;
  ledger.add(SynthMemoryPlace::Gpu, 0, 100, 0, 3 << 20);  // never freed
  ledger.add(SynthMemoryPlace::Gpu, 0, 200, 500, 1 << 10);
  ledger.add(SynthMemoryPlace::Pinned, 0, 150, 300, 4096);
  std::vector<SynthMemoryLedger::Change> got;
  auto keep = [&](const SynthMemoryLedger::Change& c) { got.push_back(c); };
  ledger.release(200, keep);
  ASSERT_EQ(got.size(), 3u);
  EXPECT_EQ(got[0].atNs, 100u);
  EXPECT_EQ(got[1].atNs, 150u);
  EXPECT_EQ(got[2].atNs, 200u);
  EXPECT_EQ(got[2].allocated, (3 << 20) + (1 << 10));
  EXPECT_EQ(got[2].reserved, 4 << 20);  // 2 MiB segments
  ledger.add(SynthMemoryPlace::Gpu, 0, 250, 260, 1 << 20);
  ledger.releaseAll(keep);
  ASSERT_EQ(got.size(), 7u);
  std::vector<uint64_t> times;
  for (const auto& c : got) times.push_back(c.atNs);
  EXPECT_TRUE(std::is_sorted(times.begin(), times.end()));
  EXPECT_EQ(got.back().allocated, 3 << 20);  // GPU, at 500
  EXPECT_EQ(got.back().peakAllocated, (4 << 20) + (1 << 10));
  EXPECT_EQ(got.back().reserved, 6 << 20);
  EXPECT_EQ(got[4].place, SynthMemoryPlace::Gpu);  // 260 (the pinned free at 300 is [5])
  EXPECT_EQ(got[5].bytes, -4096);
  EXPECT_EQ(got[5].allocated, 0);
  EXPECT_NE(got[1].addr, got[0].addr);
}

}  // namespace
}  // namespace xstack
