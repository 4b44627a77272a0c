// Interval unions, the per-step table on hand-built events, and findings on
// synthetic step tables.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>

#include "xstack/analysis/Findings.h"
#include "xstack/analysis/Intervals.h"
#include "xstack/analysis/StepTable.h"
#include "xstack/report/AnalysisFiles.h"

namespace xstack {
namespace {

TEST(IntervalsTest, MergeSortsJoinsAndDropsEmpty) {
  std::vector<Interval> v{{50, 60}, {10, 20}, {15, 30}, {30, 35}, {40, 40}, {70, 65}};
  mergeIntervals(v);
  ASSERT_EQ(v.size(), 2u);
  EXPECT_EQ(v[0].start, 10u);
  EXPECT_EQ(v[0].end, 35u);
  EXPECT_EQ(v[1].start, 50u);
  EXPECT_EQ(v[1].end, 60u);
  EXPECT_EQ(unionLength({{0, 10}, {5, 15}, {20, 25}}), 20u);
  EXPECT_EQ(unionLength({}), 0u);
}

TEST(IntervalsTest, ClippedUnionAndIntersection) {
  std::vector<Interval> a{{10, 20}, {30, 40}, {50, 60}};
  EXPECT_EQ(unionLengthIn(a, 15, 55), 5u + 10u + 5u);
  EXPECT_EQ(unionLengthIn(a, 20, 30), 0u);
  EXPECT_EQ(unionLengthIn(a, 0, 100), 30u);
  std::vector<Interval> b{{18, 32}, {39, 51}};
  EXPECT_EQ(intersectionLengthIn(a, b, 0, 100), 2u + 2u + 1u + 1u);
  EXPECT_EQ(intersectionLengthIn(a, b, 19, 50), 1u + 2u + 1u);
}

TEST(StepTableTest, KernelCategories) {
  EXPECT_EQ(kernelCategoryOf("ncclKernel_AllReduce_RING_LL_Sum_float", 0), KernelCategory::Comm);
  EXPECT_EQ(kernelCategoryOf("NCCLDevKernel", 0), KernelCategory::Comm);
  EXPECT_EQ(kernelCategoryOf("rcclAllReduce", 0), KernelCategory::Comm);
  EXPECT_EQ(kernelCategoryOf("nvshmemi_barrier", 0), KernelCategory::Comm);
  EXPECT_EQ(kernelCategoryOf("GpuMemcpyAsync:CPU->GPU", 0), KernelCategory::Memcpy);
  EXPECT_EQ(kernelCategoryOf("MEMSET", 0), KernelCategory::Memcpy);
  EXPECT_EQ(kernelCategoryOf("copy", 4096), KernelCategory::Memcpy);
  EXPECT_EQ(kernelCategoryOf("volta_sgemm_128x64_nn", 0), KernelCategory::Compute);
}

SliceEvent kernel(std::string_view name, uint64_t s, uint64_t e, uint64_t bytes = 0) {
  SliceEvent k;
  k.name = name;
  k.startNs = s;
  k.endNs = e;
  k.row = {RowKind::Gpu, 0};
  k.bytes = bytes;
  return k;
}

TEST(StepTableTest, CategoriesClippingOverlapIdleArrival) {
  StepTableBuilder b;
  b.addSlice(kernel("gemm", 90, 150));   // clipped to [100, 150)
  b.addSlice(kernel("gemm", 140, 160));  // overlaps the first: union [100, 160)
  b.addSlice(kernel("ncclAllReduce", 150, 300));
  b.addSlice(kernel("copy", 300, 320, 64));  // memcpy by bytes
  b.addSlice(kernel("cudaMemsetAsync", 330, 340));
  b.addSlice(kernel("gemm", 500, 600));  // outside the window
  SliceEvent cpu = kernel("matmul", 100, 400);
  cpu.row = {RowKind::CpuBlock, 0};  // CPU events are not GPU time
  b.addSlice(cpu);
  std::vector<Span> spans{{Phase::Forward, 0, 100, 200}, {Phase::Backward, 0, 210, 400}};
  RankTable t = b.build(3, spans).value();
  ASSERT_EQ(t.steps.size(), 1u);
  const StepRow& r = t.steps[0];
  EXPECT_EQ(r.startNs, 100u);
  EXPECT_EQ(r.stepNs, 300u);
  EXPECT_EQ(r.forwardNs, 100u);
  EXPECT_EQ(r.backwardNs, 190u);
  EXPECT_EQ(r.computeNs, 60u);
  EXPECT_EQ(r.commNs, 150u);
  EXPECT_EQ(r.memcpyNs, 30u);
  EXPECT_EQ(r.overlapNs, 10u);
  EXPECT_EQ(r.idleNs, 300u - 230u);
  EXPECT_EQ(r.arrivalNs, 50);
  ASSERT_FALSE(t.kernels.empty());
  EXPECT_EQ(t.kernels[0].name, "gemm");  // 60 + 20 + 100 ns, the largest total
  EXPECT_EQ(t.kernels[0].count, 3u);
}

TEST(StepTableTest, MemoryPeakAndEncodingRoundTrip) {
  StepTableBuilder b;
  MemoryEvent m;
  m.place = MemPlace::Gpu;
  m.startNs = 10, m.endNs = 20, m.bytes = 100;
  b.addMemory(m);
  m.startNs = 15, m.endNs = 0, m.bytes = 50;  // never freed
  b.addMemory(m);
  m.startNs = 20, m.endNs = 30, m.bytes = 70;  // starts when the first ends: one sample
  b.addMemory(m);
  b.addSlice(kernel("name with space\nand newline", 0, 10));
  RankTable t = b.build(7, {{Phase::Forward, 0, 0, 50}}).value();
  EXPECT_EQ(t.gpuMemoryPeakBytes, 150u);
  const std::string whole = encodeRankTables({t, t});
  std::vector<RankTable> back = decodeRankTables(whole).value();
  ASSERT_EQ(back.size(), 2u);
  EXPECT_EQ(back[1].rank, 7);
  EXPECT_EQ(back[1].kernels[0].name, "name with space\nand newline");
  EXPECT_EQ(back[1].steps[0].stepNs, 50u);
  EXPECT_EQ(back[1].steps[0].arrivalNs, -1);
  EXPECT_EQ(back[1].gpuMemoryPeakBytes, 150u);
  // Every truncation is an Error naming the message, never a throw; so are
  // extra bytes and a gap op out of range.
  for (size_t n = 0; n < whole.size(); ++n) {
    Expected<std::vector<RankTable>> cut = decodeRankTables(whole.substr(0, n), "rank 7's tables");
    ASSERT_FALSE(cut.ok()) << n;
    EXPECT_NE(cut.error().message.find("rank 7's tables"), std::string::npos);
  }
  EXPECT_FALSE(decodeRankTables(whole + "x").ok());
  EXPECT_FALSE(decodeRankTables("1 2 x").ok());
  RankTable badGap = t;
  badGap.steps[0].gapOp = static_cast<int64_t>(badGap.gapOps.size());
  EXPECT_FALSE(decodeRankTables(encodeRankTables({badGap})).ok());
  EXPECT_EQ(kernelNameOf(whole.substr(0, whole.size() / 2), 7, 1), "");
}

// A synchronous job's tables: compute = 40 ms x factor x noise; every rank
// waits in the all-reduce until the slowest arrives (+2 ms).
std::vector<RankTable> syncJob(int ranks, int steps, double noise,
                               double (*factor)(int rank, int step)) {
  std::vector<RankTable> t(static_cast<size_t>(ranks));
  uint64_t state = 12345;
  auto uniform = [&] {
    state = state * 6364136223846793005ull + 1442695040888963407ull;
    return static_cast<double>(state >> 11) / 9007199254740992.0;
  };
  for (int s = 0; s < steps; ++s) {
    std::vector<uint64_t> compute(static_cast<size_t>(ranks));
    for (int r = 0; r < ranks; ++r)
      compute[static_cast<size_t>(r)] =
          static_cast<uint64_t>(40e6 * factor(r, s) * (1 + (2 * uniform() - 1) * noise));
    uint64_t last = *std::max_element(compute.begin(), compute.end());
    for (int r = 0; r < ranks; ++r) {
      StepRow row;
      row.step = s;
      row.computeNs = compute[static_cast<size_t>(r)];
      row.arrivalNs = static_cast<int64_t>(row.computeNs);
      row.commNs = last - row.computeNs + 2'000'000;
      row.lastCommNs = static_cast<int64_t>(row.commNs);  // one collective per step
      row.stepNs = last + 2'000'000;
      t[static_cast<size_t>(r)].rank = r;
      t[static_cast<size_t>(r)].steps.push_back(row);
    }
  }
  return t;
}

TEST(FindingsTest, HealthyJobWithNoiseHasNoFinding) {
  for (double noise : {0.0, 0.02, 0.03}) {
    JobAnalysis a = analyzeJob(syncJob(16, 20, noise, [](int, int) { return 1.0; }), {2, 4, 2});
    EXPECT_TRUE(a.findings.empty()) << noise << ": " << a.findings[0].evidence;
    EXPECT_EQ(a.steps, 20);
  }
}

TEST(FindingsTest, OneSlowRankOfSixteen) {
  auto tables = syncJob(16, 10, 0.02, [](int r, int) { return r == 7 ? 1.12 : 1.0; });
  JobAnalysis a = analyzeJob(tables, {2, 4, 2});
  ASSERT_EQ(a.findings.size(), 1u);
  const Finding& f = a.findings[0];
  EXPECT_EQ(f.kind, "straggler");
  EXPECT_EQ(f.ranks, std::vector<int64_t>{7});
  EXPECT_TRUE(f.allSteps);
  EXPECT_NEAR(f.computeRatio, 1.12, 0.03);
  EXPECT_GT(f.score, 0.0);
  EXPECT_GT(a.idealSavingNs, 0u);
  EXPECT_NE(f.evidence.find("rank 7 (trainer 3, gpu 1)"), std::string::npos) << f.evidence;
  std::string json = findingsJson(a, {2, 4, 2});
  EXPECT_EQ(
      json.rfind("{\"findings\":[\n{\"kind\":\"straggler\",\"ranks\":[7],\"steps\":\"all\"", 0), 0u)
      << json;
  EXPECT_LE(terminalSummary(a, {2, 4, 2}).size(), 10u);
}

TEST(FindingsTest, SlowStepIsTransient) {
  auto tables = syncJob(16, 10, 0.02, [](int r, int s) { return r == 3 && s == 6 ? 1.4 : 1.0; });
  JobAnalysis a = analyzeJob(tables, {2, 4, 2});
  ASSERT_EQ(a.findings.size(), 1u);
  EXPECT_EQ(a.findings[0].ranks, std::vector<int64_t>{3});
  EXPECT_FALSE(a.findings[0].allSteps);
  EXPECT_EQ(a.findings[0].steps, std::vector<int64_t>{6});
}

TEST(FindingsTest, SlowTrainerIsOneFinding) {
  auto tables = syncJob(16, 10, 0.02, [](int r, int) { return r / 2 == 5 ? 1.2 : 1.0; });
  JobAnalysis a = analyzeJob(tables, {2, 4, 2});
  ASSERT_EQ(a.findings.size(), 1u);
  EXPECT_EQ(a.findings[0].ranks, (std::vector<int64_t>{10, 11}));
  EXPECT_EQ(a.findings[0].trainer, 5);
  EXPECT_TRUE(a.findings[0].allSteps);
}

TEST(FindingsTest, StepsCsvOrderAndOrigin) {
  auto tables = syncJob(2, 2, 0, [](int, int) { return 1.0; });
  for (auto& t : tables)
    for (auto& r : t.steps) r.startNs = 1000 + static_cast<uint64_t>(r.step) * 100;
  std::string csv = stepsCsv(tables, {2, 4, 2}, 900);
  EXPECT_EQ(csv.substr(0, csv.find('\n')),
            "rank,trainer,gpu,step,start_ns,step_ns,forward_ns,backward_ns,compute_ns,comm_ns,"
            "memcpy_ns,idle_ns,overlap_ns,arrival_ns,last_comm_ns,host_idle_ns");
  EXPECT_NE(csv.find("\n0,0,0,0,100,"), std::string::npos);
  EXPECT_NE(csv.find("\n1,0,1,1,200,"), std::string::npos);
  EXPECT_LT(csv.find("\n0,0,0,1,"), csv.find("\n1,0,1,0,"));
}

}  // namespace
}  // namespace xstack

namespace xstack {
namespace {

TEST(ReportHtmlTest, LargeJobIsAggregatedAndStaysSmall) {
  auto tables = syncJob(1024, 1000, 0.02, [](int r, int) { return r == 700 ? 1.3 : 1.0; });
  Topology topo{8, 8, 2};
  JobAnalysis a = analyzeJob(tables, topo);
  ASSERT_EQ(a.findings.size(), 1u);
  EXPECT_EQ(a.findings[0].ranks, std::vector<int64_t>{700});
  std::string html = reportHtml(tables, a, topo);
  EXPECT_LT(html.size(), 4u << 20) << "heatmap not aggregated";
  EXPECT_NE(html.find("\"aggregated\":true"), std::string::npos);
  EXPECT_NE(html.find("\"700-703\""), std::string::npos);  // 1024 ranks in 256 bins of 4
  EXPECT_EQ(html.find("</script", html.find("id=\"data\">") + 10),
            html.find("</script>", html.find("id=\"data\">")));
}

}  // namespace
}  // namespace xstack
