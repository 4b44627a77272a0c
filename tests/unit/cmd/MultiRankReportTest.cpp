// docs/FORMAT.md section 4: the outputs are byte-identical whatever the number of
// ranks and which rank read which file. MPI is not needed to prove it: a
// Comm whose ranks are threads of this process runs the real pipeline, with
// synchronous sends like MPI_Ssend, on 1 to 4 ranks.
#include <gtest/gtest.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <condition_variable>
#include <cstdio>
#include <cstdlib>
#include <deque>
#include <filesystem>
#include <fstream>
#include <map>
#include <mutex>
#include <random>
#include <set>
#include <sstream>
#include <thread>

#include "../TempDirTest.h"
#include "TraceChecks.h"
#include "profiler.pb.h"
#include "xstack/cmd/cli/Cli.h"
#include "xstack/cmd/report/Report.h"
#include "xstack/cmd/synth/Synth.h"
#include "xstack/comm/Comm.h"
#include "xstack/comm/ThreadComm.h"

namespace xstack {
namespace {

namespace fs = std::filesystem;
namespace pb = paddle::platform::proto;
using namespace testing_support;

// Runs the report on `ranks` thread ranks (two per host); every rank must
// return the same exit code. `renderThread`: whether the Comm allows rank 0 its
// render thread (as MPI_THREAD_FUNNELED does).
int runOnRanks(int ranks, const ReportOptions& o, bool renderThread = true) {
  ThreadWorld world(ranks);
  std::vector<int> codes(static_cast<size_t>(ranks), -1);
  std::vector<std::thread> threads;
  for (int r = 0; r < ranks; ++r)
    threads.emplace_back([&, r] {
      ThreadComm comm(world, r, "node" + std::to_string(r / 2), renderThread);
      codes[static_cast<size_t>(r)] = runReport(comm, o);
    });
  for (auto& t : threads) t.join();
  for (int c : codes) EXPECT_EQ(c, codes[0]);
  return codes[0];
}

class MultiRankReport : public TempDirTest {
 protected:
  ReportOptions options(const std::string& out) {
    ReportOptions o;
    o.dataDir = (root_ / "data").string();
    o.outDir = (root_ / out).string();
    o.topology = Topology{2, 2, 1};
    o.progress = false;
    return o;
  }
  const fs::path& root_ = dir_;
};

TEST_F(MultiRankReport, SameBytesOnOneToFourRanks) {
  SynthOptions so;
  so.outDir = (root_ / "data").string();
  so.trainers = 3;
  so.gpusPerTrainer = 2;
  so.steps = 2;
  so.opsPerStep = 10;
  ASSERT_EQ(runSynth(so), kExitOk);
  // A cut profile too: its problem must read the same whoever read it.
  fs::path cut = root_ / "data" / "profile" / "profile_rank.2";
  fs::resize_file(cut, fs::file_size(cut) - 7);

  ASSERT_EQ(runOnRanks(1, options("out1")), kExitPartial);
  auto want = filesIn(root_ / "out1");  // traces and analysis files
  ASSERT_EQ(traceFilesIn(root_ / "out1").size(), 4u);
  for (int ranks = 2; ranks <= 4; ++ranks) {
    SCOPED_TRACE(std::to_string(ranks) + " ranks");
    auto o = options("out" + std::to_string(ranks));
    // Small pieces and MPI chunks: many messages. Every displayed profile is
    // streamed again into row buckets, on whichever rank the render
    // assignment picks.
    o.pieceBytes = 512;
    o.mpiChunkBytes = 100;
    ASSERT_EQ(runOnRanks(ranks, o), kExitPartial);
    expectSameFiles(filesIn(root_ / o.outDir), want);
  }
  // Without threads (MPI_THREAD_SINGLE) rank 0 renders inline: the same bytes.
  auto single = options("out_single");
  single.pieceBytes = 512;
  ASSERT_EQ(runOnRanks(2, single, /*threads=*/false), kExitPartial);
  expectSameFiles(filesIn(root_ / single.outDir), want);
}

// Regression: otherData.problems once followed the order of the gathered
// summaries (MPI rank order), so the same job gave different bytes on 1 and
// 2 ranks.
TEST_F(MultiRankReport, ProblemsInTheSameOrderWhoeverReadTheFiles) {
  // Ranks 0 and 2 (GPU 0 of trainers 0 and 1) are both cut: two problems in traceFile_0_0.
  // On 2 ranks the larger one (rank 2) is read by MPI rank 0, the smaller by MPI rank 1.
  auto cutProfile = [](int events) {
    pb::Profile p;
    for (int i = 0; i < events; ++i) {
      pb::Event* e = p.add_events();
      e->set_name("op");
      e->set_start_ns(1000 + static_cast<uint64_t>(i));
      e->set_end_ns(2000);
    }
    std::string s;
    EXPECT_TRUE(p.SerializeToString(&s));
    return s.substr(0, s.size() - 2);
  };
  spit(root_ / "data" / "profile" / "p.0", cutProfile(3));
  spit(root_ / "data" / "profile" / "p.2", cutProfile(30));
  ASSERT_EQ(runOnRanks(1, options("one")), kExitPartial);
  ASSERT_EQ(runOnRanks(2, options("two")), kExitPartial);
  expectSameFiles(filesIn(root_ / "two"), filesIn(root_ / "one"));
}

TEST_F(MultiRankReport, ConflictIsFatalOnEveryRank) {
  SynthOptions so;
  so.outDir = (root_ / "data").string();
  so.trainers = 1;
  so.gpusPerTrainer = 2;
  so.steps = 1;
  so.opsPerStep = 2;
  ASSERT_EQ(runSynth(so), kExitOk);
  fs::copy_file(root_ / "data" / "profile" / "profile_rank.1",
                root_ / "data" / "profile" / "copy.1");
  fs::resize_file(root_ / "data" / "profile" / "copy.1", 10);
  EXPECT_EQ(runOnRanks(3, options("out")), kExitFatal);
  EXPECT_TRUE(!fs::exists(root_ / "out") || filesIn(root_ / "out").empty());
}

// A thread rank whose `cutGather`-th allgather (counting from 0, the same
// sequence on every rank) gives rank 1's message cut to half its bytes, as
// every rank receives it.
class CutGatherComm final : public Comm {
 public:
  CutGatherComm(ThreadWorld& w, int rank, int cutGather)
      : inner_(w, rank, "node" + std::to_string(rank)), cutGather_(cutGather) {}
  int rank() const override { return inner_.rank(); }
  int size() const override { return inner_.size(); }
  std::string host() const override { return inner_.host(); }
  std::vector<std::string> allgather(const std::string& mine) override {
    std::vector<std::string> all = inner_.allgather(mine);
    if (gathers_++ == cutGather_) all[1].resize(all[1].size() / 2);
    return all;
  }
  bool allTrue(bool ok) override { return inner_.allTrue(ok); }
  void barrier() override { inner_.barrier(); }
  void send(int dest, int tag, uint64_t kind, std::string_view data) override {
    inner_.send(dest, tag, kind, data);
  }
  Message recv(int source, int tag) override { return inner_.recv(source, tag); }

 private:
  ThreadComm inner_;
  int cutGather_;
  int gathers_ = 0;
};

// The gathers before the read (the options, the inputs' source, the listings'
// digests, the listings, the DCGM ids or the summaries): a message that does
// not decode fails the run
// on every rank alike, with nothing written, never a throw or a hang.
TEST_F(MultiRankReport, AGatheredMessageThatDoesNotDecodeFailsEveryRankAlike) {
  SynthOptions so;
  so.outDir = (root_ / "data").string();
  so.trainers = 1;
  so.gpusPerTrainer = 2;
  so.steps = 1;
  so.opsPerStep = 2;
  ASSERT_EQ(runSynth(so), kExitOk);
  for (int cut = 0; cut < 5; ++cut) {
    const std::string out = "out" + std::to_string(cut);
    ThreadWorld world(2);
    std::vector<int> codes(2, -1);
    std::vector<std::thread> threads;
    for (int r = 0; r < 2; ++r)
      threads.emplace_back([&, r] {
        CutGatherComm comm(world, r, cut);
        codes[static_cast<size_t>(r)] = runReport(comm, options(out));
      });
    for (auto& t : threads) t.join();
    EXPECT_NE(codes[0], kExitOk) << cut;
    EXPECT_EQ(codes[0], codes[1]) << cut;
    EXPECT_TRUE(!fs::exists(root_ / out) || filesIn(root_ / out).empty()) << cut;
  }
}

// ---- random jobs: odd values everywhere, the invariants must hold

constexpr uint64_t kT0 = 1700000000ull * 1000000000ull;

struct RandomJob {
  std::mt19937_64 rng;
  explicit RandomJob(uint64_t seed) : rng(seed) {}
  uint64_t below(uint64_t n) { return n ? rng() % n : 0; }
  bool chance(unsigned pct) { return below(100) < pct; }

  uint64_t ts() {
    if (chance(3)) return 0;
    if (chance(2)) return UINT64_MAX - below(1000);
    return kT0 + below(50'000'000);
  }
  std::string name() {
    static const char* pool[] = {"matmul",
                                 "relu_grad",
                                 "say \"hi\"",
                                 "back\\slash",
                                 "tab\there",
                                 "nul\0inside",
                                 "\xC3\xA9t\xC3\xA9",
                                 "bad\xC0\x80",
                                 "cut\xE2\x82",
                                 "\xFF",
                                 "",
                                 "marker/compute/MarkerCUDA"};
    std::string n = pool[below(sizeof pool / sizeof *pool)];
    if (n == "nul") n = std::string("nul\0inside", 10);  // the literal stops at its NUL
    return n;
  }
  std::string profile() {
    pb::Profile p;
    const int n = static_cast<int>(below(60));
    static const char* details[] = {
        "marker_forward_B", "marker_forward_E", "marker_backward_B", "marker_backward_E", "",
        "op_type=x"};
    for (int i = 0; i < n; ++i) {
      pb::Event* e = p.add_events();
      e->set_type(chance(40) ? pb::Event::GPUKernel : pb::Event::CPU);
      e->set_name(chance(25) ? "marker/compute/MarkerCUDA" : name());
      e->set_start_ns(ts());
      e->set_end_ns(chance(10) ? ts() : e->start_ns() + below(100000));
      e->set_device_id(chance(5) ? -5 : static_cast<int64_t>(below(5)) - 1);
      e->set_sub_device_id(static_cast<int64_t>(below(4)) - 1);
      if (chance(30)) e->set_detail_info(details[below(6)]);
      if (chance(10)) e->mutable_memcopy()->set_bytes(below(3) * 4096);
      if (chance(3)) e->mutable_unknown_fields()->AddVarint(8, 2 + below(5));  // unknown type
    }
    const int m = static_cast<int>(below(20));
    for (int i = 0; i < m; ++i) {
      pb::MemEvent* x = p.add_mem_events();
      x->set_start_ns(ts());
      x->set_end_ns(chance(20) ? 0 : x->start_ns() + below(1000000));
      x->set_bytes(chance(2) ? UINT64_MAX : below(1 << 20));
      x->set_place(static_cast<pb::MemEvent::Place>(below(3)));
      if (chance(5)) x->mutable_unknown_fields()->AddVarint(4, 3);  // unknown place
      x->set_device_id(static_cast<uint32_t>(below(3)));
    }
    if (chance(90)) p.set_start_ns(ts());
    if (chance(90)) p.set_end_ns(ts());
    std::string s;
    EXPECT_TRUE(p.SerializeToString(&s));
    if (chance(10) && !s.empty()) s.resize(below(s.size()));  // cut (maybe to nothing)
    return s;
  }
  std::string seconds() {
    uint64_t t = kT0 + below(60'000'000);
    return std::to_string(t / 1000000000) + "." +
           std::to_string(1000000000 + t % 1000000000).substr(1);
  }
  std::string dcgm() {
    std::string s = chance(80) ? "# Entity GPUTL GRACT SMACT SMOCC FBTTL FBUSD NVLTX TIMESTAMP\n"
                               : "#Entity TIMESTAMP FBUSD GPUTL\n";
    const int n = static_cast<int>(below(10));
    for (int i = 0; i < n; ++i) {
      if (chance(10)) {
        s += "noise line\n";
        continue;
      }
      s += "GPU " + std::to_string(below(3));
      const int cols = s.find("#Entity TIMESTAMP") != std::string::npos ? 3 : 8;
      for (int c = 0; c < cols - 1; ++c)
        s += chance(15) ? " N/A" : " " + std::to_string(below(101));
      s += " " + seconds() + "\n";
    }
    return s;
  }
  std::string net() {
    std::string s;
    const int n = static_cast<int>(below(8));
    for (int i = 0; i < n; ++i) {
      if (chance(10)) {
        s += "{not json\n";
        continue;
      }
      uint64_t ms = (kT0 + below(60'000'000)) / 1000;
      s += std::string("{\"name\":\"") + (chance(50) ? "tx" : "rx") +
           "\",\"ts\":" + std::to_string(ms / 1000) + "." +
           std::to_string(1000 + ms % 1000).substr(1) +
           ",\"args\":{\"eth0\":" + std::to_string(below(1000)) +
           ".5,\"odd\\\"k\":1e2,\"s\":\"str\"}}\n";
    }
    return s;
  }
};

TEST_F(MultiRankReport, RandomJobsKeepEveryInvariant) {
  for (uint64_t seed = 1; seed <= 12; ++seed) {
    SCOPED_TRACE("seed " + std::to_string(seed));
    RandomJob job(seed);
    const fs::path data = root_ / ("data" + std::to_string(seed));
    Topology topo{1 + static_cast<int64_t>(job.below(3)), 1 + static_cast<int64_t>(job.below(3)),
                  0};
    topo.displaySize = static_cast<int64_t>(job.below(static_cast<uint64_t>(topo.groupSize) + 1));
    const int64_t trainers = 1 + static_cast<int64_t>(job.below(4));
    bool any = false;
    for (int64_t t = 0; t < trainers; ++t) {
      for (int64_t g = 0; g < topo.gpusPerTrainer; ++g) {
        if (job.chance(85) || (!any && t == trainers - 1 && g == topo.gpusPerTrainer - 1)) {
          spit(data / "profile" / ("prof." + std::to_string(topo.rankOf(t, g))), job.profile());
          any = true;
        }
        if (job.chance(70))
          spit(data / "time" / ("time.txt." + std::to_string(g) + "." + std::to_string(t)),
               "start time: " + job.seconds() + "\nend time: " + job.seconds() + "\n");
      }
      if (job.chance(80)) spit(data / "dcgm" / ("dcgm." + std::to_string(t)), job.dcgm());
      if (job.chance(80)) spit(data / "net" / ("net." + std::to_string(t)), job.net());
    }
    ReportOptions o;
    o.dataDir = data.string();
    o.outDir = (root_ / ("out" + std::to_string(seed))).string();
    o.topology = topo;
    o.progress = false;
    if (job.chance(30)) o.timeOriginNs = kT0 + job.below(30'000'000);
    const int code = runOnRanks(1, o);
    ASSERT_TRUE(code == kExitOk || code == kExitPartial) << code;
    auto want = filesIn(o.outDir);
    ASSERT_FALSE(want.empty());
    for (const auto& [name, text] : traceFilesIn(o.outDir)) {
      ojson j = checkTrace(fs::path(o.outDir) / name);
      if (o.timeOriginNs) {
        EXPECT_EQ(j["otherData"]["time_origin_ns"].get<uint64_t>(), *o.timeOriginNs);
      }
    }
    // The same bytes on 3 ranks, in tiny pieces, re-reading every profile.
    ReportOptions o3 = o;
    o3.outDir += "_3";
    o3.pieceBytes = 64;
    o3.mpiChunkBytes = 50;
    EXPECT_EQ(runOnRanks(3, o3), code);
    expectSameFiles(filesIn(o3.outDir), want);
  }
}

// A single-GPU job's trace: no distributedInfo, no rank in its name (the name
// tensorboard_trace_handler writes), its GPU work on device `device` of the `visible` its
// process saw.
std::string ranklessTrace(int device, int visible) {
  std::string props;
  for (int d = 0; d < visible; ++d)
    props += (d ? "," : "") + ("{\"id\":" + std::to_string(d) + "}");
  const std::string dev = std::to_string(device);
  return R"({"schemaVersion":1,"deviceProperties":[)" + props + R"(],"traceEvents":[)" +
         R"({"ph":"X","cat":"user_annotation","name":"ProfilerStep#1","pid":9,"tid":9,"ts":100,"dur":50},)" +
         R"({"ph":"X","cat":"cuda_runtime","name":"cudaLaunchKernel","pid":9,"tid":9,"ts":101,"dur":2,"args":{"correlation":1}},)" +
         R"({"ph":"X","cat":"kernel","name":"k","pid":)" + dev +
         R"(,"tid":7,"ts":104,"dur":10,"args":{"device":)" + dev +
         R"(,"stream":7,"correlation":1}}]})";
}

// The rule is decided on every rank's listing, so it holds for any np: the job's only
// trace without a rank is rank 0 (a note), the same bytes on 1 to 3 ranks; its GPU, any,
// is no topology problem.
TEST_F(MultiRankReport, TheOnlyTraceWithoutARankIsRankZeroOnAnyNumberOfRanks) {
  const fs::path trace = root_ / "data" / "worker0.1623143089861.pt.trace.json";
  for (int visible : {0, 1, 8}) {
    spit(trace, ranklessTrace(2, visible));
    std::map<std::string, std::string> want;
    for (int ranks : {1, 2, 3}) {
      ReportOptions o = options("out" + std::to_string(visible) + "_" + std::to_string(ranks));
      o.inferGpusPerTrainer = true;
      testing::internal::CaptureStderr();
      const int code = runOnRanks(ranks, o);
      const std::string log = testing::internal::GetCapturedStderr();
      ASSERT_EQ(code, kExitOk) << log;
      EXPECT_NE(log.find("note: one trace without a rank (" + trace.string() + "): read as rank 0"),
                std::string::npos)
          << log;
      EXPECT_EQ(log.find("warning:"), std::string::npos) << log;
      EXPECT_EQ(log.find("error:"), std::string::npos) << log;
      if (want.empty())
        want = filesIn(o.outDir);
      else
        expectSameFiles(filesIn(o.outDir), want);
    }
    const std::string ranks = want.at("ranks.csv");
    EXPECT_NE(ranks.find("\n0,"), std::string::npos) << ranks;
  }
}

// Two traces without a rank, or one beside a trace with a rank: the usage error naming
// each one without a rank and how to give it one, on every rank, nothing written.
TEST_F(MultiRankReport, SeveralTracesWithoutARankAreAUsageErrorNamingThem) {
  const fs::path a = root_ / "data" / "worker0.1.pt.trace.json";
  const fs::path b = root_ / "data" / "worker1.2.pt.trace.json";
  spit(a, ranklessTrace(0, 1));
  spit(b, ranklessTrace(1, 1));
  for (int ranks : {1, 3}) {
    testing::internal::CaptureStderr();
    EXPECT_EQ(runOnRanks(ranks, options("two")), kExitUsage);
    const std::string log = testing::internal::GetCapturedStderr();
    for (const fs::path& p : {a, b})
      EXPECT_NE(log.find("error: " + p.string() + ": a trace without a rank"), std::string::npos)
          << log;
    EXPECT_NE(log.find("e.g. worker0.1_rank<N>.pt.trace.json"), std::string::npos) << log;
    EXPECT_EQ(log.find("note: one trace without a rank"), std::string::npos) << log;
    EXPECT_TRUE(!fs::exists(root_ / "two") || filesIn(root_ / "two").empty());
  }
  fs::remove(b);
  spit(root_ / "data" / "rank3.json", ranklessTrace(0, 1));  // rank 3, from its name
  testing::internal::CaptureStderr();
  EXPECT_EQ(runOnRanks(2, options("mixed")), kExitUsage);
  const std::string log = testing::internal::GetCapturedStderr();
  EXPECT_NE(log.find("error: " + a.string() + ": a trace without a rank"), std::string::npos)
      << log;
  EXPECT_EQ(log.find("rank3.json: a trace without a rank"), std::string::npos) << log;
}

}  // namespace
}  // namespace xstack
