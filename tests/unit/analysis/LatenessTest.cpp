// Stragglers by lateness (docs/ANALYSIS.md): a rank that reaches a
// step's last collective after the others, whatever the cause (compute, host,
// memcpy), on synthetic step tables; healthy jitter gives no finding and a
// cheap straggler goes to below_threshold.
#include <gtest/gtest.h>

#include <algorithm>
#include <functional>
#include <string>
#include <tuple>
#include <vector>

#include "xstack/analysis/Findings.h"
#include "xstack/analysis/StepTable.h"
#include "xstack/report/AnalysisFiles.h"

namespace xstack {
namespace {

constexpr const char* kLoader = "enumerate(DataLoader)#_SingleProcessDataLoaderIter.__next__";

// What is injected into (rank, step).
struct Inject {
  double compute = 1;    // compute factor (40 ms nominal)
  double memcpy = 1;     // copy factor (2 ms nominal)
  uint64_t stallNs = 0;  // host stall before the first kernel (GPU idle)
};

// A synchronous job's tables: rank r arrives at the step's all-reduce after
// its host idle (0.5 ms + stall), compute and copies, each with +-noise; all
// ranks' all-reduces end together 2 ms after the last arrival.
std::vector<RankTable> job(int ranks, int steps, double noise,
                           const std::function<Inject(int, int)>& inject,
                           uint64_t seed = 987654321) {
  std::vector<RankTable> t(static_cast<size_t>(ranks));
  uint64_t state = seed;
  auto jitter = [&] {
    state = state * 6364136223846793005ull + 1442695040888963407ull;
    return 1 + (2 * (static_cast<double>(state >> 11) / 9007199254740992.0) - 1) * noise;
  };
  for (int s = 0; s < steps; ++s) {
    std::vector<StepRow> rows(static_cast<size_t>(ranks));
    uint64_t last = 0;
    for (int r = 0; r < ranks; ++r) {
      Inject in = inject(r, s);
      StepRow& row = rows[static_cast<size_t>(r)];
      row.step = s;
      row.computeNs = static_cast<uint64_t>(40e6 * in.compute * jitter());
      row.memcpyNs = static_cast<uint64_t>(2e6 * in.memcpy * jitter());
      row.hostIdleNs = static_cast<uint64_t>(0.5e6 * jitter()) + in.stallNs;
      if (in.stallNs) row.gapOp = 0, row.gapOpNs = in.stallNs;
      row.arrivalNs = static_cast<int64_t>(row.computeNs + row.memcpyNs + row.hostIdleNs);
      last = std::max(last, static_cast<uint64_t>(row.arrivalNs));
    }
    for (int r = 0; r < ranks; ++r) {
      StepRow& row = rows[static_cast<size_t>(r)];
      row.commNs = last - static_cast<uint64_t>(row.arrivalNs) + 2'000'000;
      row.lastCommNs = static_cast<int64_t>(row.commNs);
      row.stepNs = last + 2'000'000;
      row.idleNs = row.hostIdleNs;
      RankTable& table = t[static_cast<size_t>(r)];
      table.rank = r;
      if (row.gapOp == 0 && table.gapOps.empty()) table.gapOps.push_back(kLoader);
      table.steps.push_back(row);
    }
  }
  return t;
}

const Topology kTopo{2, 4, 2};  // 16 ranks: 8 trainers x 2 GPUs

TEST(LatenessTest, HealthyJitterHasNoFindingAtAll) {
  for (double noise : {0.0, 0.01, 0.03, 0.05}) {
    JobAnalysis a = analyzeJob(job(16, 20, noise, [](int, int) { return Inject{}; }), kTopo);
    EXPECT_TRUE(a.findings.empty()) << noise << ": " << a.findings[0].evidence;
    EXPECT_TRUE(a.belowThreshold.empty()) << noise << ": " << a.belowThreshold[0].evidence;
  }
}

TEST(LatenessTest, SmallPersistentLatenessIsFoundOverSteps) {
  // 8 ranks: 1.06x compute is 2.4 ms late a step, under one step's 5 sigma
  // (+-0.8 ms jitter) but its median over the steps is over 3 sigma_job.
  const Topology topo{2, 4, 2};
  auto tables = job(8, 10, 0.02, [](int r, int) { return Inject{r == 6 ? 1.06 : 1.0}; });
  JobAnalysis a = analyzeJob(tables, topo);
  ASSERT_EQ(a.findings.size(), 1u);
  EXPECT_EQ(a.findings[0].ranks, std::vector<int64_t>{6});
  EXPECT_TRUE(a.findings[0].allSteps);
  EXPECT_EQ(a.findings[0].cause, "compute");
  for (double noise : {0.02, 0.05}) {  // and nothing on the healthy 8-rank job
    JobAnalysis h = analyzeJob(job(8, 10, noise, [](int, int) { return Inject{}; }), topo);
    EXPECT_TRUE(h.findings.empty()) << noise << ": " << h.findings[0].evidence;
  }
}

TEST(LatenessTest, HostStalledRankIsFoundWithItsDataLoader) {
  // Same kernels; its GPU idles 6 ms before them every step, the others wait.
  auto tables = job(16, 10, 0.02, [](int r, int) { return Inject{1, 1, r == 5 ? 6'000'000u : 0}; });
  JobAnalysis a = analyzeJob(tables, kTopo);
  ASSERT_EQ(a.findings.size(), 1u);
  const Finding& f = a.findings[0];
  EXPECT_EQ(f.ranks, std::vector<int64_t>{5});
  EXPECT_TRUE(f.allSteps);
  EXPECT_EQ(f.cause, "host");
  EXPECT_NEAR(static_cast<double>(f.lateNs), 6e6, 1e6);
  EXPECT_NEAR(f.computeRatio, 1.0, 0.03);
  EXPECT_GT(f.hostIdleNs, f.hostIdleMedianNs + 5'000'000);
  EXPECT_EQ(f.hostOp, kLoader);
  EXPECT_EQ(f.hostOpKind, "data-loader op");
  EXPECT_NE(f.evidence.find("rank 5 (trainer 2, gpu 1) reaches the last collective"),
            std::string::npos)
      << f.evidence;
  EXPECT_NE(f.evidence.find("cause host"), std::string::npos) << f.evidence;
  EXPECT_EQ(f.traceFiles, std::vector<std::string>{"traceFile_0_1.json"});
  // The trace named is the file the run writes (--format perfetto, --compress).
  const Finding p = analyzeJob(tables, kTopo, ".pftrace.gz").findings.at(0);
  EXPECT_EQ(p.traceFiles, std::vector<std::string>{"traceFile_0_1.pftrace.gz"});
  EXPECT_NE(p.evidence.find("see traceFile_0_1.pftrace.gz"), std::string::npos) << p.evidence;
  // What the traces' instants say does not depend on the formats written.
  EXPECT_EQ(p.evidenceInTrace, f.evidenceInTrace);
  EXPECT_EQ(f.evidenceInTrace.find("see "), std::string::npos) << f.evidenceInTrace;
  EXPECT_NE(f.evidence.find("data-loader op"), std::string::npos) << f.evidence;
  std::string json = findingsJson(a, kTopo);
  EXPECT_NE(json.find("\"cause\":\"host\""), std::string::npos) << json;
  EXPECT_NE(json.find("\"host_op\":{\"name\":\"enumerate(DataLoader)"), std::string::npos);
}

TEST(LatenessTest, HostOpKindIsASyncOrACpuOp) {
  for (auto [name, kind] : {std::pair<const char*, const char*>{"cudaStreamSynchronize", "sync"},
                            {"gc.collect", "CPU op"},
                            {"paddle.io.DataLoader", "data-loader op"}}) {
    auto tables = job(16, 10, 0.02, [](int r, int) {
      return Inject{1, 1, r == 5 ? 6'000'000u : 0};
    });
    tables[5].gapOps[0] = name;
    JobAnalysis a = analyzeJob(tables, kTopo);
    ASSERT_EQ(a.findings.size(), 1u);
    EXPECT_EQ(a.findings[0].hostOp, name);
    EXPECT_EQ(a.findings[0].hostOpKind, kind) << name;
    EXPECT_NE(a.findings[0].evidence.find(std::string(kind) + " '" + name + "'"), std::string::npos)
        << a.findings[0].evidence;
  }
  // An op that covers little of the idle time is not named.
  auto tables = job(16, 10, 0.02, [](int r, int) { return Inject{1, 1, r == 5 ? 6'000'000u : 0}; });
  for (StepRow& row : tables[5].steps) row.gapOpNs = 500'000;
  JobAnalysis a = analyzeJob(tables, kTopo);
  ASSERT_EQ(a.findings.size(), 1u);
  EXPECT_EQ(a.findings[0].cause, "host");
  EXPECT_TRUE(a.findings[0].hostOp.empty()) << a.findings[0].hostOp;
}

TEST(LatenessTest, SlowComputeRankHasCauseCompute) {
  auto tables = job(16, 10, 0.02, [](int r, int) { return Inject{r == 9 ? 1.12 : 1.0}; });
  JobAnalysis a = analyzeJob(tables, kTopo);
  ASSERT_EQ(a.findings.size(), 1u);
  EXPECT_EQ(a.findings[0].ranks, std::vector<int64_t>{9});
  EXPECT_EQ(a.findings[0].cause, "compute");
  EXPECT_TRUE(a.findings[0].hostOp.empty());
  EXPECT_NEAR(a.findings[0].computeRatio, 1.12, 0.03);
}

TEST(LatenessTest, SlowCopiesHaveCauseMemcpy) {
  auto tables = job(16, 10, 0.02, [](int r, int) { return Inject{1, r == 2 ? 3.0 : 1.0}; });
  JobAnalysis a = analyzeJob(tables, kTopo);
  ASSERT_EQ(a.findings.size(), 1u);
  EXPECT_EQ(a.findings[0].ranks, std::vector<int64_t>{2});
  EXPECT_EQ(a.findings[0].cause, "memcpy");
  EXPECT_GT(a.findings[0].memcpyNs, a.findings[0].memcpyMedianNs + 3'000'000);
}

TEST(LatenessTest, OneStepStallIsTransient) {
  auto tables = job(16, 10, 0.02, [](int r, int s) {
    return Inject{1, 1, r == 12 && s == 4 ? 20'000'000u : 0};
  });
  JobAnalysis a = analyzeJob(tables, kTopo);
  ASSERT_EQ(a.findings.size(), 1u);
  EXPECT_EQ(a.findings[0].ranks, std::vector<int64_t>{12});
  EXPECT_FALSE(a.findings[0].allSteps);
  EXPECT_EQ(a.findings[0].steps, std::vector<int64_t>{4});
  EXPECT_EQ(a.findings[0].cause, "host");
  EXPECT_NE(a.findings[0].evidence.find("in step 4"), std::string::npos);
}

TEST(LatenessTest, StalledNodeIsOneFinding) {
  auto tables = job(16, 10, 0.02, [](int r, int) {
    return Inject{1, 1, r / 2 == 6 ? 5'000'000u : 0};
  });
  JobAnalysis a = analyzeJob(tables, kTopo);
  ASSERT_EQ(a.findings.size(), 1u);
  EXPECT_EQ(a.findings[0].ranks, (std::vector<int64_t>{12, 13}));
  EXPECT_EQ(a.findings[0].trainer, 6);
  EXPECT_EQ(a.findings[0].cause, "host");
  EXPECT_NE(a.findings[0].evidence.find("trainer 6 (ranks 12, 13, all its 2 GPUs) reach"),
            std::string::npos)
      << a.findings[0].evidence;
}

TEST(LatenessTest, CheapStragglerIsBelowThresholdAndNotShown) {
  // 3 ms late in one of 20 steps of ~45 ms: 0.3 % of the job's step time.
  auto tables = job(16, 20, 0.01, [](int r, int s) {
    return Inject{1, 1, r == 3 && s == 7 ? 3'000'000u : 0};
  });
  JobAnalysis a = analyzeJob(tables, kTopo);
  EXPECT_TRUE(a.findings.empty()) << a.findings[0].evidence;
  ASSERT_EQ(a.belowThreshold.size(), 1u);
  EXPECT_EQ(a.belowThreshold[0].ranks, std::vector<int64_t>{3});
  EXPECT_LT(a.belowThreshold[0].score, kMinScore);
  std::string json = findingsJson(a, kTopo);
  EXPECT_EQ(
      json.rfind("{\"findings\":[],\n\"below_threshold\":[\n{\"kind\":\"straggler\",\"ranks\":[3]",
                 0),
      0u)
      << json;
  for (const std::string& line : terminalSummary(a, kTopo))
    EXPECT_EQ(line.find("rank 3"), std::string::npos) << line;
}

TEST(LatenessTest, CostsArePrintedInMs) {
  auto tables = job(16, 10, 0.02, [](int r, int) { return Inject{1, 1, r == 5 ? 5'000'000u : 0}; });
  JobAnalysis a = analyzeJob(tables, kTopo);
  ASSERT_EQ(a.findings.size(), 1u);
  const std::string& e = a.findings[0].evidence;
  EXPECT_NE(e.find("costs "), std::string::npos);
  EXPECT_NE(e.find(" ms ("), std::string::npos) << e;
  EXPECT_EQ(e.find(" s ("), std::string::npos) << e;
  for (const std::string& line : terminalSummary(a, kTopo))
    EXPECT_EQ(line.find("0.000 s"), std::string::npos) << line;
}

TEST(LatenessTest, StepTableMeasuresHostIdleLastCommAndGapOp) {
  StepTableBuilder b;
  auto slice = [](std::string_view name, uint64_t s, uint64_t e, RowKind k) {
    SliceEvent x;
    x.name = name;
    x.startNs = s;
    x.endNs = e;
    x.row = {k, 0};
    return x;
  };
  // Step 0 [100, 1000): loader 110..400 (the GPU idles), kernels 400..700,
  // all-reduce 700..900; a step span covering it all is not the gap op.
  b.addSlice(slice("ProfilerStep#0", 100, 1000, RowKind::CpuBlock));
  b.addSlice(slice(kLoader, 110, 400, RowKind::CpuBlock));
  b.addSlice(slice("cudaLaunchKernel", 400, 405, RowKind::CudaApi));
  b.addSlice(slice("gemm", 400, 700, RowKind::Gpu));
  b.addSlice(slice("ncclKernel_AllReduce", 700, 900, RowKind::Gpu));
  RankTable t = b.build(0, {{Phase::Forward, 0, 100, 1000}}).value();
  ASSERT_EQ(t.steps.size(), 1u);
  const StepRow& r = t.steps[0];
  EXPECT_EQ(r.arrivalNs, 600);
  EXPECT_EQ(r.lastCommNs, 200);
  EXPECT_EQ(r.hostIdleNs, 300u);  // [100, 400)
  ASSERT_EQ(r.gapOp, 0);
  EXPECT_EQ(t.gapOps[0], kLoader);
  EXPECT_EQ(r.gapOpNs, 290u);
  std::vector<RankTable> back = decodeRankTables(encodeRankTables({t})).value();
  ASSERT_EQ(back.size(), 1u);
  EXPECT_EQ(back[0].gapOps, t.gapOps);
  EXPECT_EQ(back[0].steps[0].lastCommNs, 200);
  EXPECT_EQ(back[0].steps[0].hostIdleNs, 300u);
  EXPECT_EQ(back[0].steps[0].gapOpNs, 290u);
  EXPECT_EQ(back[0].steps[0].gapOp, 0);
}

// The findings as (ranks, persistent, cause), most costly first.
std::vector<std::tuple<std::vector<int64_t>, bool, std::string>> summary(
    const std::vector<Finding>& list) {
  std::vector<std::tuple<std::vector<int64_t>, bool, std::string>> out;
  for (const Finding& f : list) out.emplace_back(f.ranks, f.allSteps, f.cause);
  return out;
}

TEST(LatenessTest, ThreeStragglersOfEightAreAllFound) {
  // 8 ranks (4 trainers x 2), three late in every step with three causes:
  // rank 2's host stalls 8 ms, rank 5 computes 1.10x (4 ms late), rank 7's
  // copies take 3x (4 ms late), against +-2 % jitter (+-0.8 ms). With
  // the spread estimated over every rank, three outliers of eight inflate it
  // so that 5 sigma is beyond ranks 5 and 7; estimated over the ranks that
  // are not late (find, exclude, re-estimate), all three are found.
  const Topology topo{2, 4, 2};
  for (uint64_t seed : {1u, 2u, 3u, 4u, 5u, 6u}) {
    auto tables = job(
        8, 10, 0.02,
        [](int r, int) {
          return Inject{r == 5 ? 1.10 : 1.0, r == 7 ? 3.0 : 1.0, r == 2 ? 8'000'000u : 0};
        },
        seed);
    JobAnalysis a = analyzeJob(tables, topo);
    using S = std::tuple<std::vector<int64_t>, bool, std::string>;
    auto got = summary(a.findings);
    std::sort(got.begin(), got.end());
    EXPECT_EQ(got,
              (std::vector<S>{{{2}, true, "host"}, {{5}, true, "compute"}, {{7}, true, "memcpy"}}))
        << "seed " << seed;
    // Below threshold (not shown) a noise entry may remain: seed 4 has rank 3
    // at 0.0 % in one step (not yet fixed).
    // Each is late by what was injected, against the ranks that are not late.
    for (const Finding& f : a.findings) {
      const double want = f.ranks[0] == 2 ? 8e6 : 4e6;
      EXPECT_NEAR(static_cast<double>(f.lateNs), want, 0.8e6) << f.evidence;
    }
    // The job saves rank 2's lateness, not only what it has over ranks 5 and 7
    // (within its own jitter and the latest healthy rank's: 2 x 0.8 ms a step).
    EXPECT_NEAR(static_cast<double>(a.idealSavingNs), 10 * 8e6, 10 * 1.6e6) << "seed " << seed;
  }
}

TEST(LatenessTest, ThreeOfSixteenAndTwoOfEightAreFoundAsBefore) {
  for (int ranks : {8, 16}) {
    auto tables = job(ranks, 10, 0.02, [](int r, int) {
      return Inject{r == 5 ? 1.07 : 1.0, r == 7 ? 2.4 : 1.0, 0};
    });
    JobAnalysis a = analyzeJob(tables, Topology{2, 4, 2});
    auto got = summary(a.findings);
    std::sort(got.begin(), got.end());
    using S = std::tuple<std::vector<int64_t>, bool, std::string>;
    EXPECT_EQ(got, (std::vector<S>{{{5}, true, "compute"}, {{7}, true, "memcpy"}})) << ranks;
  }
}

TEST(LatenessTest, TwoRanksSlowByTheSameCauseAreTwoFindings) {
  // Ranks 3 and 6 (trainers 1 and 3: no whole node) both compute 1.07x in
  // every step, against +-2 % jitter: each is its own finding with cause
  // compute, and no other rank is named, not even below threshold.
  for (uint64_t seed : {1u, 2u, 3u, 4u, 5u, 6u}) {
    auto tables = job(
        8, 10, 0.02,
        [](int r, int) {
          return Inject{r == 3 || r == 6 ? 1.07 : 1.0, 1, 0};
        },
        seed);
    JobAnalysis a = analyzeJob(tables, Topology{2, 4, 2});
    auto got = summary(a.findings);
    std::sort(got.begin(), got.end());
    using S = std::tuple<std::vector<int64_t>, bool, std::string>;
    EXPECT_EQ(got, (std::vector<S>{{{3}, true, "compute"}, {{6}, true, "compute"}}))
        << "seed " << seed;
    for (const Finding& f : a.belowThreshold)
      EXPECT_TRUE(f.ranks == std::vector<int64_t>{3} || f.ranks == std::vector<int64_t>{6})
          << "seed " << seed << ": " << f.evidence;
  }
}

TEST(LatenessTest, HealthyJobsOverSeedsHaveNoEntryAtAll) {
  // Re-estimating without the late cells must not find noise: none is late.
  for (int ranks : {4, 8, 16})
    for (double noise : {0.01, 0.03, 0.05})
      for (uint64_t seed = 1; seed <= 20; ++seed) {
        JobAnalysis a = analyzeJob(job(
                                       ranks, 10, noise, [](int, int) { return Inject{}; }, seed),
                                   Topology{2, 4, 2});
        EXPECT_TRUE(a.findings.empty()) << ranks << " ranks, noise " << noise << ", seed " << seed
                                        << ": " << a.findings[0].evidence;
        EXPECT_TRUE(a.belowThreshold.empty()) << ranks << " ranks, noise " << noise << ", seed "
                                              << seed << ": " << a.belowThreshold[0].evidence;
      }
}

TEST(LatenessTest, MostlyLateStepKeepsAMajorityReference) {
  // 5 of 8 ranks stall 6 ms in one step: the reference stays a majority of
  // the step's ranks (at most (8 - 1) / 2 = 3 left out), so the step's
  // median is a late rank and the rule compares against it; nothing healthy
  // is called late, and the job still has a reference in every step.
  auto tables = job(8, 10, 0.02, [](int r, int s) {
    return Inject{1, 1, s == 4 && r < 5 ? 6'000'000u : 0};
  });
  JobAnalysis a = analyzeJob(tables, Topology{2, 4, 2});
  for (const auto* list : {&a.findings, &a.belowThreshold})
    for (const Finding& f : *list)
      for (int64_t r : f.ranks) EXPECT_LT(r, 5) << f.evidence;
}

// Every rank's GPU longest idle gap is in the same CPU op for ~30 ms a step.
void sameOpEverywhere(std::vector<RankTable>& tables, const char* op) {
  for (RankTable& t : tables) {
    t.gapOps = {op};
    for (StepRow& r : t.steps) r.gapOp = 0, r.gapOpNs = 30'000'000 + r.hostIdleNs % 1'000'000;
  }
}

TEST(LatenessTest, HostOpEveryRankRunsAlikeIsNotNamed) {
  // Rank 5 is 6 ms late with its GPU idle (cause host), and the op in its
  // longest gap is the optimizer, in which every rank's gap is as long: it
  // does not explain the lateness, so no op is named.
  auto tables = job(16, 10, 0.02, [](int r, int) { return Inject{1, 1, r == 5 ? 6'000'000u : 0}; });
  sameOpEverywhere(tables, "## optimizer ##");
  JobAnalysis a = analyzeJob(tables, kTopo);
  ASSERT_EQ(a.findings.size(), 1u);
  const Finding& f = a.findings[0];
  EXPECT_EQ(f.ranks, std::vector<int64_t>{5});
  EXPECT_EQ(f.cause, "host");
  EXPECT_TRUE(f.hostOp.empty()) << f.hostOp;
  EXPECT_EQ(f.evidence.find("optimizer"), std::string::npos) << f.evidence;
  EXPECT_NE(f.evidence.find("; no single host op explains it;"), std::string::npos) << f.evidence;
  EXPECT_EQ(findingsJson(a, kTopo).find("\"host_op\""), std::string::npos);
}

TEST(LatenessTest, HostOpLongerOnTheLateRankIsNamedAgainstTheMedianRank) {
  // The same op everywhere, but on rank 5 it holds the GPU's gap 6 ms longer:
  // it explains the extra idle time, named with the median rank's time.
  auto tables = job(16, 10, 0.02, [](int r, int) { return Inject{1, 1, r == 5 ? 6'000'000u : 0}; });
  sameOpEverywhere(tables, "gc.collect");
  for (StepRow& r : tables[5].steps) r.gapOpNs += 6'000'000;
  JobAnalysis a = analyzeJob(tables, kTopo);
  ASSERT_EQ(a.findings.size(), 1u);
  const Finding& f = a.findings[0];
  EXPECT_EQ(f.hostOp, "gc.collect");
  EXPECT_EQ(f.hostOpKind, "CPU op");
  EXPECT_NEAR(static_cast<double>(f.hostOpNs), 36.5e6, 0.6e6);
  EXPECT_NEAR(static_cast<double>(f.hostOpMedianNs), 30.5e6, 0.6e6);
  EXPECT_NE(f.evidence.find("the host is in CPU op 'gc.collect' for 3"), std::string::npos)
      << f.evidence;
  EXPECT_NE(f.evidence.find(" per step (30."), std::string::npos) << f.evidence;
  EXPECT_NE(f.evidence.find(" ms on the median rank); the other"), std::string::npos) << f.evidence;
  EXPECT_NE(findingsJson(a, kTopo).find("\"ms_per_step\":36."), std::string::npos);
}

TEST(LatenessTest, HostOpAbsentOnTheOthersIsNamedWithZero) {
  // Only rank 5 runs the data loader (the others' gaps are in another op).
  auto tables = job(16, 10, 0.02, [](int r, int) { return Inject{1, 1, r == 5 ? 6'000'000u : 0}; });
  for (RankTable& t : tables)
    if (t.rank != 5) {
      t.gapOps = {"aten::copy_"};
      for (StepRow& r : t.steps) r.gapOp = 0, r.gapOpNs = 400'000;
    }
  JobAnalysis a = analyzeJob(tables, kTopo);
  ASSERT_EQ(a.findings.size(), 1u);
  EXPECT_EQ(a.findings[0].hostOp, kLoader);
  EXPECT_EQ(a.findings[0].hostOpMedianNs, 0u);
  EXPECT_NE(a.findings[0].evidence.find("for 6.000 ms per step (0.000 ms on the median rank)"),
            std::string::npos)
      << a.findings[0].evidence;
  EXPECT_NE(findingsJson(a, kTopo).find("\"ms_per_step\":6.000,\"median_ms_per_step\":0.000}"),
            std::string::npos);
}

TEST(LatenessTest, SameComputeOnlyWithinTwoPercent) {
  // A host-late rank with the median rank's compute says "same compute"; one
  // that computes 10 % less (and idles 10 ms more) gives both numbers
  // neutrally.
  auto same = job(16, 10, 0.01, [](int r, int) { return Inject{1, 1, r == 5 ? 6'000'000u : 0}; });
  const Finding f = analyzeJob(same, kTopo).findings.at(0);
  EXPECT_NE(f.evidence.find("launches come late (same compute: "), std::string::npos) << f.evidence;
  auto less = job(16, 10, 0.01, [](int r, int) {
    return Inject{r == 5 ? 0.9 : 1.0, 1, r == 5 ? 10'000'000u : 0};
  });
  const Finding g = analyzeJob(less, kTopo).findings.at(0);
  EXPECT_EQ(g.cause, "host");
  EXPECT_EQ(g.evidence.find("same compute"), std::string::npos) << g.evidence;
  EXPECT_NE(g.evidence.find("launches come late (compute 36."), std::string::npos) << g.evidence;
  EXPECT_NE(g.evidence.find(" against 40."), std::string::npos) << g.evidence;
  // Slow copies with 10 % more compute: no "same" either.
  auto copies = job(16, 10, 0.01, [](int r, int) {
    return Inject{r == 2 ? 1.1 : 1.0, r == 2 ? 4.0 : 1.0, 0};
  });
  const Finding m = analyzeJob(copies, kTopo).findings.at(0);
  EXPECT_EQ(m.cause, "memcpy") << m.evidence;
  EXPECT_EQ(m.evidence.find("same compute"), std::string::npos) << m.evidence;
}

}  // namespace
}  // namespace xstack
