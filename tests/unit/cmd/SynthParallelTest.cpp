// `xstack synth --tp --pp --dp`: the rank mapping of both orders, the process
// groups, the 1F1B schedule, and written Kineto files: every collective
// instance (group, Seq) complete and consistent, ending together after its
// last member arrives, each rank's kernels in order, send/recv pairs matched,
// pg_config listing the rank's groups, the same bytes for the same seed, and
// the report pipeline reading the job.
#include <gtest/gtest.h>
#include <zlib.h>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <map>
#include <nlohmann/json.hpp>
#include <set>
#include <sstream>
#include <string>
#include <tuple>
#include <vector>

#include "../TempDirTest.h"
#include "xstack/cmd/cli/Cli.h"
#include "xstack/cmd/report/Report.h"
#include "xstack/cmd/synth/Synth.h"
#include "xstack/cmd/synth/SynthParallel.h"
#include "xstack/cmd/synth/SynthParallelModel.h"
#include "xstack/comm/Comm.h"

namespace xstack {
namespace {

namespace fs = std::filesystem;
using json = nlohmann::json;

using Ranks = std::vector<int64_t>;

TEST(SynthParallelLayout, TpDpPpOrderMapsAsMegatron) {
  const SynthParallelShape s{2, 4, 2, false};  // TP2 x PP4 x DP2, 16 ranks
  EXPECT_EQ(synthCoordsOf(s, 5), (SynthCoords{1, 1, 0}));
  EXPECT_EQ(synthCoordsOf(s, 15), (SynthCoords{1, 3, 1}));
  EXPECT_EQ(synthGroupRanks(s, SynthGroupKind::Tensor, 0), (Ranks{0, 1}));
  EXPECT_EQ(synthGroupRanks(s, SynthGroupKind::Tensor, 6), (Ranks{6, 7}));
  EXPECT_EQ(synthGroupRanks(s, SynthGroupKind::Pipeline, 0), (Ranks{0, 4, 8, 12}));
  EXPECT_EQ(synthGroupRanks(s, SynthGroupKind::Pipeline, 3), (Ranks{3, 7, 11, 15}));
  EXPECT_EQ(synthGroupRanks(s, SynthGroupKind::Data, 0), (Ranks{0, 2}));
  EXPECT_EQ(synthGroupRanks(s, SynthGroupKind::Data, 13), (Ranks{13, 15}));
  for (int64_t r = 0; r < s.world(); ++r) EXPECT_EQ(synthRankOf(s, synthCoordsOf(s, r)), r);
}

TEST(SynthParallelLayout, TpPpDpOrderPutsPipelineBeforeData) {
  const SynthParallelShape s{2, 4, 2, true};
  EXPECT_EQ(synthCoordsOf(s, 5), (SynthCoords{1, 2, 0}));
  EXPECT_EQ(synthGroupRanks(s, SynthGroupKind::Tensor, 8), (Ranks{8, 9}));
  EXPECT_EQ(synthGroupRanks(s, SynthGroupKind::Pipeline, 0), (Ranks{0, 2, 4, 6}));
  EXPECT_EQ(synthGroupRanks(s, SynthGroupKind::Pipeline, 9), (Ranks{9, 11, 13, 15}));
  EXPECT_EQ(synthGroupRanks(s, SynthGroupKind::Data, 0), (Ranks{0, 8}));
  EXPECT_EQ(synthGroupRanks(s, SynthGroupKind::Data, 7), (Ranks{7, 15}));
  for (int64_t r = 0; r < s.world(); ++r) EXPECT_EQ(synthRankOf(s, synthCoordsOf(s, r)), r);
}

TEST(SynthParallelLayout, ProcessGroupsCoverEveryRankOncePerKind) {
  const SynthParallelShape s{2, 4, 2, false};
  const auto groups = synthProcessGroups(s);
  ASSERT_EQ(groups.size(), 1u + 8 + 8 + 4);  // default, DP, TP, PP
  EXPECT_EQ(groups[0].name, "0");
  EXPECT_EQ(groups[0].desc, "default_pg");
  EXPECT_EQ(groups[1].desc, "DATA_PARALLEL_GROUP");
  EXPECT_EQ(groups[1].ranks, (Ranks{0, 2}));
  EXPECT_EQ(groups[9].desc, "TENSOR_MODEL_PARALLEL_GROUP");
  EXPECT_EQ(groups[9].ranks, (Ranks{0, 1}));
  EXPECT_EQ(groups[17].desc, "PIPELINE_MODEL_PARALLEL_GROUP");
  EXPECT_EQ(groups[17].ranks, (Ranks{0, 4, 8, 12}));
  std::map<std::pair<SynthGroupKind, int64_t>, int> seen;
  for (size_t g = 0; g < groups.size(); ++g) {
    EXPECT_EQ(groups[g].name, std::to_string(g));
    for (int64_t r : groups[g].ranks) ++seen[{groups[g].kind, r}];
  }
  for (const auto& [key, n] : seen) EXPECT_EQ(n, 1);
  EXPECT_EQ(seen.size(), 4u * 16);
}

std::string schedule(int64_t stage, int64_t stages, int64_t m) {
  std::string t;
  for (const SynthPipeStep& s : synth1F1B(stage, stages, m))
    t += (t.empty() ? "" : " ") + std::string(s.forward ? "F" : "B") + std::to_string(s.microbatch);
  return t;
}

TEST(SynthParallelLayout, OneFOneBWarmsUpSteadiesAndCoolsDown) {
  EXPECT_EQ(schedule(0, 4, 4), "F0 F1 F2 F3 B0 B1 B2 B3");
  EXPECT_EQ(schedule(1, 4, 4), "F0 F1 F2 B0 F3 B1 B2 B3");
  EXPECT_EQ(schedule(3, 4, 4), "F0 B0 F1 B1 F2 B2 F3 B3");
  EXPECT_EQ(schedule(0, 4, 6), "F0 F1 F2 F3 B0 F4 B1 F5 B2 B3 B4 B5");
  EXPECT_EQ(schedule(0, 4, 2), "F0 F1 B0 B1");  // warm-up capped at M
  EXPECT_EQ(schedule(0, 1, 2), "F0 B0 F1 B1");
}

SynthOptions parsed(const std::vector<std::string>& args) {
  Command c = parseCommandLine(args);
  EXPECT_TRUE(std::holds_alternative<SynthOptions>(c));
  return std::holds_alternative<SynthOptions>(c) ? std::get<SynthOptions>(c) : SynthOptions{};
}

bool isUsageError(const std::vector<std::string>& args) {
  return std::holds_alternative<Failure>(parseCommandLine(args));
}

TEST(SynthParallelOptions, ShapeSetsTheNodes) {
  SynthOptions o = parsed({"synth", "--out", "d", "--format", "kineto", "--tp", "2", "--pp", "4",
                           "--dp", "2", "--microbatches", "6", "--rank-order", "tp-pp-dp"});
  EXPECT_TRUE(o.parallel.on);
  EXPECT_EQ(o.jobRanks(), 16);
  EXPECT_EQ(o.trainers, 2);
  EXPECT_EQ(o.gpusPerTrainer, 8);
  EXPECT_EQ(o.parallel.microbatches, 6);
  EXPECT_TRUE(o.parallel.tpPpDp);
  o = parsed({"synth", "--out", "d", "--format", "kineto", "--tp", "2", "--pp", "2"});
  EXPECT_EQ(o.trainers, 1);
  EXPECT_EQ(o.gpusPerTrainer, 4);
  o = parsed({"synth", "--out", "d", "--format", "kineto", "--tp", "4", "--pp", "3", "--dp", "1"});
  EXPECT_EQ(o.trainers, 2);  // 12 ranks: 8 + 4
  o = parsed({"synth", "--out", "d", "--format", "kineto", "--tp", "2", "--pp", "2", "--slow-link",
              "0:3", "--stall-step", "1:0:5"});
  EXPECT_EQ(o.slowdowns.size(), 2u);
  EXPECT_TRUE(isUsageError({"synth", "--out", "d", "--tp", "2"}));  // paddle format
  EXPECT_TRUE(isUsageError(
      {"synth", "--out", "d", "--format", "kineto", "--tp", "2", "--slow-memcpy", "0:2"}));
  EXPECT_TRUE(isUsageError({"synth", "--out", "d", "--format", "kineto", "--slow-link", "0:2"}));
  EXPECT_TRUE(isUsageError(
      {"synth", "--out", "d", "--format", "kineto", "--tp", "2", "--rank-order", "pp-tp-dp"}));
  EXPECT_TRUE(isUsageError(
      {"synth", "--out", "d", "--format", "kineto", "--tp", "2", "--pp", "2", "--slow", "4:2"}));
  EXPECT_TRUE(isUsageError({"synth", "--out", "d", "--format", "kineto", "--tp", "2", "--trainers",
                            "3", "--gpus-per-trainer", "8"}));
  // --moe: the experts are spread over the DP group, so it needs one.
  EXPECT_TRUE(
      parsed({"synth", "--out", "d", "--format", "kineto", "--dp", "2", "--moe"}).parallel.moe);
  EXPECT_FALSE(parsed({"synth", "--out", "d", "--format", "kineto", "--dp", "2"}).parallel.moe);
  EXPECT_TRUE(isUsageError({"synth", "--out", "d", "--format", "kineto", "--tp", "2", "--moe"}));
  EXPECT_TRUE(isUsageError({"synth", "--out", "d", "--format", "kineto", "--moe"}));
}

json readGzipJson(const fs::path& p) {
  gzFile f = gzopen(p.string().c_str(), "rb");
  std::string text;
  char buf[1 << 16];
  for (int n; (n = gzread(f, buf, sizeof buf)) > 0;) text.append(buf, static_cast<size_t>(n));
  gzclose(f);
  return json::parse(text);
}

// One NCCL kernel as the checks need it (epoch ns).
struct Comm {
  int64_t rank = 0, startNs = 0, endNs = 0;
  std::string collective;
  int64_t in = 0, out = 0, groupSize = 0, seq = 0, peer = -1;
  std::string group, ranks;
};

int64_t ns(const json& us, int64_t baseNs) {  // ts/dur us with 3 decimals -> ns
  return baseNs + static_cast<int64_t>(std::llround(us.get<double>() * 1000.0));
}

struct JobFiles {
  std::vector<Comm> comms;
  std::map<int64_t, std::vector<std::pair<int64_t, int64_t>>> kernels;  // rank -> ordered spans
  std::map<int64_t, json> distributed;                                  // rank -> distributedInfo
  int64_t paramComms = 0;
};

void readKernel(const json& e, int64_t rank, int64_t base, JobFiles& job) {
  const int64_t s = ns(e["ts"], base), d = std::llround(e["dur"].get<double>() * 1000.0);
  job.kernels[rank].push_back({s, s + d});
  const json& a = e["args"];
  if (!a.contains("Collective name")) return;
  Comm c;
  c.rank = rank;
  c.startNs = s;
  c.endNs = s + d;
  c.collective = a["Collective name"].get<std::string>();
  c.in = a["In msg nelems"].get<int64_t>();
  c.out = a["Out msg nelems"].get<int64_t>();
  c.groupSize = a["Group size"].get<int64_t>();
  c.seq = a["Seq"].get<int64_t>();
  c.group = a["Process Group Name"].get<std::string>();
  c.ranks = a["Process Group Ranks"].get<std::string>();
  if (a.contains("Dst Rank")) c.peer = a["Dst Rank"].get<int64_t>();
  if (a.contains("Src Rank")) c.peer = a["Src Rank"].get<int64_t>();
  EXPECT_EQ(a["dtype"], "Float");
  EXPECT_EQ(a["In split size"], "[]");
  job.comms.push_back(c);
}

JobFiles readJob(const fs::path& dir) {
  JobFiles job;
  for (const auto& f : fs::directory_iterator(dir / "profile")) {
    const json t = readGzipJson(f.path());
    const auto rank = t["distributedInfo"]["rank"].get<int64_t>();
    const auto base = t["baseTimeNanoseconds"].get<int64_t>();
    job.distributed[rank] = t["distributedInfo"];
    for (const json& e : t["traceEvents"]) {
      if (e.value("cat", "") == "kernel") readKernel(e, rank, base, job);
      if (e.value("name", "") == "record_param_comms") ++job.paramComms;
    }
  }
  for (auto& [rank, spans] : job.kernels) std::sort(spans.begin(), spans.end());
  return job;
}

class SynthParallelJobTest : public TempDirTest {
 protected:
  fs::path synth(const std::string& name, std::vector<std::string> extra) {
    std::vector<std::string> args{"synth",    "--out",   (dir_ / name).string(),
                                  "--format", "kineto",  "--skew-ns",
                                  "0",        "--steps", "2"};
    args.insert(args.end(), extra.begin(), extra.end());
    EXPECT_EQ(runSynth(parsed(args)), kExitOk);
    return dir_ / name;
  }
};

// Every (group, Seq) of a collective has all its members, one name and size
// (but an all_to_allv: each member's share is its own), ends within 3 us on
// all and after every member's start. Returns the instances whose members'
// sizes differ.
int expectCollectivesConsistent(const JobFiles& job) {
  int uneven = 0;
  std::map<std::pair<std::string, int64_t>, std::vector<Comm>> inst;
  for (const Comm& c : job.comms)
    if (c.collective != "send" && c.collective != "recv") inst[{c.group, c.seq}].push_back(c);
  EXPECT_FALSE(inst.empty());
  for (const auto& [key, members] : inst) {
    SCOPED_TRACE("group " + key.first + " seq " + std::to_string(key.second));
    EXPECT_EQ(static_cast<int64_t>(members.size()), members[0].groupSize);
    std::set<int64_t> ranks;
    int64_t lastStart = 0, minEnd = INT64_MAX, maxEnd = 0;
    const bool ownShares = members[0].collective == "all_to_allv";
    bool differ = false;
    for (const Comm& c : members) {
      EXPECT_EQ(c.collective, members[0].collective);
      differ = differ || c.in != members[0].in;
      if (!ownShares) {
        EXPECT_EQ(c.in, members[0].in);
      }
      EXPECT_EQ(c.out, ownShares ? c.in : members[0].out);
      EXPECT_EQ(c.ranks, members[0].ranks);
      ranks.insert(c.rank);
      lastStart = std::max(lastStart, c.startNs);
      minEnd = std::min(minEnd, c.endNs);
      maxEnd = std::max(maxEnd, c.endNs);
    }
    EXPECT_EQ(ranks.size(), members.size());
    EXPECT_LE(maxEnd - minEnd, 3'000);
    EXPECT_GE(minEnd, lastStart);
    uneven += differ ? 1 : 0;
  }
  return uneven;
}

// The n-th send from src to dst pairs with the n-th recv of dst from src
// (same Seq), and the recv ends no earlier than the send starts.
void expectPointToPointMatched(const JobFiles& job) {
  std::map<std::tuple<int64_t, int64_t, int64_t>, std::vector<const Comm*>> sends, recvs;
  for (const Comm& c : job.comms) {
    if (c.collective == "send") sends[{c.rank, c.peer, c.seq}].push_back(&c);
    if (c.collective == "recv") recvs[{c.peer, c.rank, c.seq}].push_back(&c);
  }
  ASSERT_FALSE(sends.empty());
  ASSERT_EQ(sends.size(), recvs.size());
  for (const auto& [key, s] : sends) {
    ASSERT_EQ(s.size(), 1u);
    auto it = recvs.find(key);
    ASSERT_NE(it, recvs.end());
    ASSERT_EQ(it->second.size(), 1u);
    EXPECT_GE(it->second[0]->endNs, s[0]->startNs);
    EXPECT_EQ(it->second[0]->in, s[0]->in);
  }
}

void expectKernelsInOrder(const JobFiles& job) {
  for (const auto& [rank, spans] : job.kernels)
    for (size_t i = 1; i < spans.size(); ++i)
      EXPECT_GE(spans[i].first, spans[i - 1].second) << "rank " << rank << " kernel " << i;
}

TEST_F(SynthParallelJobTest, KinetoCollectivesArePlausibleAcrossRanks) {
  const fs::path d = synth("j", {"--tp", "2", "--pp", "4", "--dp", "2", "--microbatches", "4"});
  const JobFiles job = readJob(d);
  ASSERT_EQ(job.kernels.size(), 16u);
  EXPECT_EQ(job.paramComms, static_cast<int64_t>(job.comms.size()));
  EXPECT_EQ(expectCollectivesConsistent(job), 0);
  expectPointToPointMatched(job);
  expectKernelsInOrder(job);
  // Per rank and step: 4 microbatches x 2 passes x 2 layers TP all-reduces, one
  // reduce-scatter and one all-gather; stage 0 sends 4 activations per step.
  std::map<std::pair<int64_t, std::string>, int> count;
  for (const Comm& c : job.comms) ++count[{c.rank, c.collective}];
  EXPECT_EQ((count[{0, "allreduce"}]), 2 * 16);
  EXPECT_EQ((count[{0, "reduce_scatter"}]), 2);
  EXPECT_EQ((count[{0, "_allgather_base"}]), 2);
  EXPECT_EQ((count[{0, "send"}]), 2 * 4);
  EXPECT_EQ((count[{0, "recv"}]), 2 * 4);
  EXPECT_EQ((count[{5, "send"}]), 2 * 8);  // a middle stage sends both ways
}

// --moe: per layer and pass a dispatch and a combine all_to_allv of the DP
// group, with every member, each member's own share (uneven in some calls),
// ending at once; no peer args; the rest of the job as without it.
TEST_F(SynthParallelJobTest, MoeAllToAllsHaveEveryDpMemberAndTheirOwnShares) {
  const JobFiles job = readJob(synth("j", {"--tp", "2", "--pp", "2", "--dp", "4", "--moe"}));
  ASSERT_EQ(job.kernels.size(), 16u);
  EXPECT_GT(expectCollectivesConsistent(job), 0);
  expectPointToPointMatched(job);
  expectKernelsInOrder(job);
  std::map<std::pair<int64_t, std::string>, int> count;
  for (const Comm& c : job.comms) {
    ++count[{c.rank, c.collective}];
    if (c.collective == "all_to_allv") {
      EXPECT_EQ(c.peer, -1);
      EXPECT_EQ(c.groupSize, 4);
      EXPECT_GE(c.in, 2'097'152 / 2);
      EXPECT_LE(c.in, 2'097'152 / 2 * 3);
    }
  }
  // 2 steps x 4 microbatches x 2 passes x 2 layers x (dispatch, combine).
  EXPECT_EQ((count[{0, "all_to_allv"}]), 2 * 4 * 2 * 2 * 2);
  EXPECT_EQ((count[{0, "allreduce"}]), 2 * 4 * 2 * 2);
  EXPECT_EQ((count[{0, "reduce_scatter"}]), 2);
}

TEST_F(SynthParallelJobTest, PgConfigListsTheRanksGroups) {
  const JobFiles job = readJob(synth("j", {"--tp", "2", "--pp", "4", "--dp", "2"}));
  const json& info = job.distributed.at(5);
  EXPECT_EQ(info["world_size"], 16);
  EXPECT_EQ(info["backend"], "nccl");
  ASSERT_EQ(info["pg_count"], 4);
  std::map<std::string, json> byDesc;
  for (const json& g : info["pg_config"]) {
    EXPECT_EQ(g["backend_config"], "cuda:nccl");
    EXPECT_EQ(g["pg_size"], g["ranks"].size());
    byDesc[g["pg_desc"].get<std::string>()] = g;
  }
  EXPECT_EQ(byDesc["TENSOR_MODEL_PARALLEL_GROUP"]["ranks"], json({4, 5}));
  EXPECT_EQ(byDesc["PIPELINE_MODEL_PARALLEL_GROUP"]["ranks"], json({1, 5, 9, 13}));
  EXPECT_EQ(byDesc["DATA_PARALLEL_GROUP"]["ranks"], json({5, 7}));
  EXPECT_EQ(byDesc["default_pg"]["pg_size"], 16);
  for (const Comm& c : job.comms)  // a kernel's group is one of its rank's pg_config entries
    if (c.rank == 5) {
      bool listed = false;
      for (const json& g : info["pg_config"]) listed = listed || g["pg_name"] == c.group;
      EXPECT_TRUE(listed) << c.group;
    }
}

std::map<std::string, std::string> filesOf(const fs::path& d) {
  std::map<std::string, std::string> m;
  for (const auto& f : fs::recursive_directory_iterator(d)) {
    if (!f.is_regular_file()) continue;
    std::ifstream in(f.path(), std::ios::binary);
    std::stringstream s;
    s << in.rdbuf();
    m[fs::relative(f.path(), d).string()] = s.str();
  }
  return m;
}

TEST_F(SynthParallelJobTest, SameSeedSameBytes) {
  const std::vector<std::string> a{"--tp", "2", "--pp", "2", "--dp", "2", "--seed", "7"};
  const auto first = filesOf(synth("a", a)), second = filesOf(synth("b", a));
  EXPECT_EQ(first.size(), 8u + 2);  // traces, parallel_ranks.csv, parallel_truth.csv
  EXPECT_EQ(first, second);
}

// The job's last kernel end: a slowed, stalled or badly linked rank holds up
// the whole job, since its pipeline and DP peers wait for it.
TEST_F(SynthParallelJobTest, FaultsStretchTheJob) {
  const std::vector<std::string> shape{"--tp", "2", "--pp", "2", "--dp", "2", "--noise", "0"};
  auto lastEnd = [&](const std::string& name, std::vector<std::string> extra) {
    std::vector<std::string> args = shape;
    args.insert(args.end(), extra.begin(), extra.end());
    const JobFiles job = readJob(synth(name, args));
    expectCollectivesConsistent(job);
    expectPointToPointMatched(job);
    int64_t end = 0;
    for (const auto& [rank, spans] : job.kernels) end = std::max(end, spans.back().second);
    return end;
  };
  const int64_t healthy = lastEnd("h", {});
  {  // the truth table names the slowed rank
    lastEnd("slowTruth", {"--slow", "3:2", "--stall-step", "1:1:4"});
    std::ifstream truth(dir_ / "slowTruth" / "parallel_truth.csv");
    std::string line;
    std::getline(truth, line);
    EXPECT_EQ(line, "rank,step,stage,step_ns,compute_ns,comm_ns,factor,stall_ns");
    std::vector<std::string> rows;
    while (std::getline(truth, line)) rows.push_back(line);
    ASSERT_EQ(rows.size(), 8u * 2);
    EXPECT_NE(rows[3 * 2].find(",2.0000,0"), std::string::npos) << rows[3 * 2];
    EXPECT_NE(rows[1 * 2 + 1].find(",1.0000,4000000"), std::string::npos) << rows[3];
  }
  EXPECT_GT(lastEnd("slow", {"--slow", "3:2"}), healthy + 2'000'000);
  // A stall on stage 0 delays everything behind it; on the last stage it
  // first fills that stage's warm-up bubble (its wait for the first activation).
  EXPECT_GT(lastEnd("stall0", {"--stall-step", "2:1:5"}), healthy + 4'500'000);
  const int64_t lastStage = lastEnd("stall1", {"--stall-step", "6:1:5"});
  EXPECT_GT(lastStage, healthy + 1'000'000);
  EXPECT_LT(lastStage, healthy + 4'500'000);
  EXPECT_GT(lastEnd("link", {"--slow-link", "0:5"}), healthy + 1'000'000);
}

TEST_F(SynthParallelJobTest, ReportReadsThreeDimensionalJobs) {
  for (const std::vector<std::string>& shape :
       {std::vector<std::string>{"--tp", "2", "--pp", "4", "--dp", "2"},
        std::vector<std::string>{"--tp", "4", "--pp", "4", "--dp", "4", "--microbatches", "2",
                                 "--slow", "9:1.5", "--slow-link", "2:3"}}) {
    const std::string name = "job" + shape[5];
    const fs::path data = synth(name, shape);
    Command c = parseCommandLine({"report", "--data-dir", data.string(), "--out",
                                  (dir_ / (name + "-out")).string(), "--no-progress"});
    ASSERT_TRUE(std::holds_alternative<ReportOptions>(c));
    SerialComm comm;
    EXPECT_EQ(runReport(comm, std::get<ReportOptions>(c)), kExitOk) << name;
  }
}

}  // namespace
}  // namespace xstack
