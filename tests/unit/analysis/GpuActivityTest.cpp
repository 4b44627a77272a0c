// ranks.csv's HTA rules (which slices are GPU activities, the filter on
// steps, the correlation-less fallback, sync events) and kernels.csv's
// per-name stats and CSV quoting, on hand-built slices.
#include <gtest/gtest.h>

#include <stdexcept>

#include "xstack/analysis/GpuActivity.h"
#include "xstack/report/AnalysisFiles.h"

namespace xstack {
namespace {

SliceEvent gpu(std::string_view name, uint64_t start, uint64_t end, int64_t correlation,
               int64_t stream = 7) {
  SliceEvent e;
  e.name = name;
  e.startNs = start;
  e.endNs = end;
  e.row = {RowKind::Gpu, 0};
  e.tid = stream;
  e.correlation = correlation;
  return e;
}

SliceEvent launch(uint64_t start, int64_t correlation) {
  SliceEvent e;
  e.name = "cudaLaunchKernel";
  e.startNs = start;
  e.endNs = start + 2;
  e.row = {RowKind::CudaApi, -1};
  e.correlation = correlation;
  return e;
}

// kernels.csv's part as the kernels analysis feeds it: GPU-row slices only.
struct KernelStatsPart {
  KernelStatsBuilder stats;
  void addSlice(const SliceEvent& e) {
    if (e.row.kind == RowKind::Gpu) stats.add(e);
  }
};

std::vector<Span> forwardSpans(std::initializer_list<uint64_t> starts) {
  std::vector<Span> spans;
  int64_t step = 0;
  for (uint64_t s : starts) spans.push_back({Phase::Forward, step++, s, s + 40});
  spans.push_back({Phase::Backward, 0, 50, 60});  // not a step
  return spans;
}

// Launches at 10 (corr 1), 50 (corr 3), 110 (corr 2, after the last step's
// start 100); their kernels, plus slices that are not activities.
template <class Part>
void addCorrelatedRank(Part& b) {
  b.addSlice(launch(10, 1));
  b.addSlice(gpu("gemm", 20, 40, 1));
  b.addSlice(launch(50, 3));
  b.addSlice(gpu("ncclKernel_AllReduce(ncclDevComm*, unsigned long, ncclWork*)", 60, 80, 3));
  b.addSlice(launch(110, 2));
  b.addSlice(gpu("gemm", 120, 150, 2));
  b.addSlice(gpu("no_stream", 0, 500, 4, -1));  // stream < 0: not an activity
  b.addSlice(gpu("no_correlation", 0, 600, -1));
}

TEST(GpuActivityTest, FilterWithTwoStepsKeepsKernelsLaunchedBeforeTheLastStep) {
  GpuActivityBuilder b;
  addCorrelatedRank(b);
  RankGpuActivity a = b.build(forwardSpans({0, 100})).value();
  EXPECT_EQ(a.steps, 2u);
  const RankBreakdown& r = a.breakdown;
  EXPECT_EQ(r.spanNs, 60u);  // [20, 80): the kernel launched at 110 is filtered out
  EXPECT_EQ(r.idleNs, 20u);
  EXPECT_EQ(r.computeNs, 20u);
  EXPECT_EQ(r.nonComputeNs, 20u);
  EXPECT_TRUE(r.hasComm);
  EXPECT_EQ(r.commNs, 20u);
  EXPECT_EQ(r.overlapNs, 0u);
  // kernels.csv counts every GPU-row slice, filtered or not.
  KernelStatsPart part;
  addCorrelatedRank(part);
  const std::vector<KernelStat> kernels = part.stats.take();
  ASSERT_EQ(kernels.size(), 4u);
  EXPECT_EQ(kernels[0].name, "gemm");
  EXPECT_EQ(kernels[0].count, 2u);
  EXPECT_EQ(kernels[0].totalNs, 50u);
  EXPECT_EQ(kernels[3].name, "no_stream");
}

TEST(GpuActivityTest, NoFilterWithFewerThanTwoSteps) {
  for (std::vector<Span> spans : {forwardSpans({0}), std::vector<Span>{}}) {
    GpuActivityBuilder b;
    addCorrelatedRank(b);
    RankGpuActivity a = b.build(spans).value();
    EXPECT_EQ(a.steps, spans.empty() ? 0u : 1u);
    EXPECT_EQ(a.breakdown.spanNs, 130u);  // [20, 150)
    EXPECT_EQ(a.breakdown.computeNs, 50u);
    EXPECT_EQ(a.breakdown.idleNs, 130u - 70u);
  }
}

TEST(GpuActivityTest, WithoutAnyCorrelationEveryGpuSliceCountsAndStartsBeforeTheLastStep) {
  auto fill = [](GpuActivityBuilder& b) {
    b.addSlice(gpu("k", 10, 20, -1));
    b.addSlice(gpu("k", 30, 40, -1, -1));  // any stream
    b.addSlice(gpu("k", 120, 130, -1));    // starts after the last step's start
    SliceEvent cpu = launch(0, -1);
    cpu.row = {RowKind::CpuBlock, 0};
    b.addSlice(cpu);
  };
  GpuActivityBuilder twoSteps;
  fill(twoSteps);
  RankBreakdown r = twoSteps.build(forwardSpans({0, 100})).value().breakdown;
  EXPECT_EQ(r.spanNs, 30u);
  EXPECT_EQ(r.idleNs, 10u);
  EXPECT_EQ(r.computeNs, 20u);
  EXPECT_FALSE(r.hasComm);
  GpuActivityBuilder oneStep;
  fill(oneStep);
  EXPECT_EQ(oneStep.build(forwardSpans({0})).value().breakdown.spanNs, 120u);
}

TEST(GpuActivityTest, OneCorrelationAnywhereEndsTheFallback) {
  GpuActivityBuilder b;
  b.addSlice(gpu("early_uncorrelated", 0, 10, -1));
  b.addSlice(launch(20, 5));
  b.addSlice(gpu("k", 30, 40, 5));
  b.addSlice(gpu("late_uncorrelated", 50, 90, -1));
  RankBreakdown r = b.build({}).value().breakdown;
  EXPECT_EQ(r.spanNs, 10u);  // only the correlated kernel is an activity
}

TEST(GpuActivityTest, SyncEventsAreActivitiesAndStayWithoutCorrelation) {
  GpuActivityBuilder b;
  addCorrelatedRank(b);
  b.addSlice(gpu("Event Sync", 85, 95, -1, -1));   // no stream, no correlation: kept
  b.addSlice(gpu("Context Sync", 10, 15, 9, -1));  // launched after the last step: dropped
  b.addSlice(launch(130, 9));
  b.addSlice(gpu("Stream Sync", 0, 5, -1));  // not one of the two names
  RankBreakdown r = b.build(forwardSpans({0, 100})).value().breakdown;
  EXPECT_EQ(r.spanNs, 75u);  // [20, 95)
  EXPECT_EQ(r.idleNs, 75u - 50u);
  EXPECT_EQ(r.nonComputeNs, 75u - 25u - 20u);  // comm 20 + the sync's 10 (OTHER)
}

TEST(GpuActivityTest, RankWithoutGpuActivity) {
  GpuActivityBuilder b;
  b.addSlice(launch(10, 1));
  RankGpuActivity a = b.build(forwardSpans({0, 100, 200})).value();
  EXPECT_EQ(a.steps, 3u);
  EXPECT_EQ(a.breakdown.spanNs, 0u);
  EXPECT_FALSE(a.breakdown.hasComm);
  RankTable t;
  t.rank = 5;
  t.steps.resize(3);
  t.gpuBreakdown = a.breakdown;
  Topology topo;
  topo.gpusPerTrainer = 2;
  EXPECT_EQ(ranksCsv({t}, topo),
            "rank,trainer,gpu,steps,span_ns,idle_ns,compute_ns,non_compute_ns,idle_pct,"
            "compute_pct,non_compute_pct,comm_comp_overlap_pct\n"
            "5,2,1,3,0,0,0,0,0.00,0.00,0.00,\n");
}

TEST(GpuActivityTest, RanksCsvPercentagesAndOverlap) {
  RankTable t;
  t.rank = 0;
  t.steps.resize(2);
  t.gpuBreakdown = {1000, 125, 600, 275, true, 300, 100, false, {}};
  Topology topo;
  EXPECT_EQ(ranksCsv({t}, topo).substr(ranksCsv({}, topo).size()),
            "0,0,0,2,1000,125,600,275,12.50,60.00,27.50,33.33\n");
  // HTA's idle split is report.html's (the ranks table), not a ranks.csv column: the
  // columns are exactly HTA's temporal breakdown and overlap.
  t.gpuBreakdown.hasIdleSplit = true;
  t.gpuBreakdown.idle = {30, 10, 60};
  EXPECT_EQ(ranksCsv({t}, topo).substr(ranksCsv({}, topo).size()),
            "0,0,0,2,1000,125,600,275,12.50,60.00,27.50,33.33\n");
}

// HTA's idle split: per stream, each gap is host wait (launched after the
// previous kernel ended), kernel wait (short) or other.
TEST(GpuActivityTest, IdleSplitPerStream) {
  std::vector<StreamActivity> a{
      {1, 0, 100'000, 0},  // first on stream 1: no gap
      {1, 100'020'000, 100'030'000,
       100'010'000},                      // launched after the previous end: host wait 99.92 ms
      {1, 100'040'000, 100'050'000, 50},  // launched early, 10 us gap: kernel wait
      {1, 100'100'000, 100'110'000, 60},  // launched early, 50 us gap: other
      {1, 100'105'000, 100'120'000, 70},  // overlaps the previous: no idle
      {2, 100'000, 200'000, -1},          // other stream, its own first
      {2, 200'000 + kKernelWaitBelowNs, 400'000, -1},  // no launch known, gap = threshold: other
  };
  std::swap(a[0], a[6]);  // any order
  IdleSplit s = idleSplit(a);
  EXPECT_EQ(s.hostWaitNs, 99'920'000u);
  EXPECT_EQ(s.kernelWaitNs, 10'000u);
  EXPECT_EQ(s.otherNs, 50'000u + kKernelWaitBelowNs);
}

TEST(GpuActivityTest, IdleSplitFromLaunchCorrelations) {
  GpuActivityBuilder b;
  b.addSlice(launch(0, 1));
  b.addSlice(gpu("gemm", 10, 20, 1));
  b.addSlice(launch(5, 2));  // launched before kernel 1 ended: a 5 ns gap is kernel wait
  b.addSlice(gpu("gemm", 25, 40, 2));
  b.addSlice(launch(60, 3));  // launched after kernel 2 ended: host wait
  b.addSlice(gpu("gemm", 70, 80, 3));
  b.addSlice(gpu("Event Sync", 85, 90, -1, -1));  // no stream: not in the split
  RankBreakdown r = b.build({}).value().breakdown;
  ASSERT_TRUE(r.hasIdleSplit);
  EXPECT_EQ(r.idle.kernelWaitNs, 5u);
  EXPECT_EQ(r.idle.hostWaitNs, 30u);
  EXPECT_EQ(r.idle.otherNs, 0u);
  GpuActivityBuilder none;  // no correlations (Paddle dumps): no split
  none.addSlice(gpu("gemm", 10, 20, -1));
  none.addSlice(gpu("gemm", 90, 100, -1));
  EXPECT_FALSE(none.build({}).value().breakdown.hasIdleSplit);
}

TEST(GpuActivityTest, KernelStatsMinMaxMeanAndOrder) {
  KernelStatsPart b;
  b.addSlice(gpu("b", 0, 10, -1));
  b.addSlice(gpu("b", 0, 25, -1));
  b.addSlice(gpu("b", 50, 40, -1));  // end before start: 0 ns
  b.addSlice(gpu("Memcpy HtoD", 0, 7, -1));
  b.addSlice(gpu("a", 0, 4, -1));
  SliceEvent cpu = launch(0, -1);  // CPU rows are not kernels
  b.addSlice(cpu);
  std::vector<KernelStat> k = b.stats.take();
  ASSERT_EQ(k.size(), 3u);
  EXPECT_EQ(k[0].name, "Memcpy HtoD");  // bytewise: upper case first
  EXPECT_EQ(k[0].type, HtaKernelType::Memory);
  EXPECT_EQ(k[1].name, "a");
  EXPECT_EQ(k[2].name, "b");
  EXPECT_EQ(k[2].count, 3u);
  EXPECT_EQ(k[2].totalNs, 35u);
  EXPECT_EQ(k[2].minNs, 0u);
  EXPECT_EQ(k[2].maxNs, 25u);
  std::string rows;
  appendKernelsCsvRows(rows, 4, k);
  EXPECT_EQ(rows,
            "4,Memcpy HtoD,MEMORY,1,7,7,7,7\n"
            "4,a,COMPUTATION,1,4,4,4,4\n"
            "4,b,COMPUTATION,3,35,11,0,25\n");  // mean 35 / 3 truncated
  EXPECT_EQ(kernelsCsvHeader(), "rank,name,category,count,total_ns,mean_ns,min_ns,max_ns\n");
}

TEST(GpuActivityTest, KernelStatsEncodeRoundTripAndRejectBadInput) {
  std::vector<KernelStat> k{{"ncclKernel(a, b)\nx", HtaKernelType::Communication, 2, 30, 10, 20},
                            {"", HtaKernelType::Computation, 1, 0, 0, 0}};
  int64_t rank = -1;
  std::vector<KernelStat> back = decodeKernelStats(encodeKernelStats(12, k), rank).value();
  EXPECT_EQ(rank, 12);
  ASSERT_EQ(back.size(), 2u);
  EXPECT_EQ(back[0].name, k[0].name);
  EXPECT_EQ(back[0].type, HtaKernelType::Communication);
  EXPECT_EQ(back[0].maxNs, 20u);
  EXPECT_EQ(back[1].name, "");
  EXPECT_TRUE(decodeKernelStats(encodeKernelStats(3, {}), rank).value().empty());
  EXPECT_EQ(rank, 3);
  // Every truncation of a message is an Error, never a throw; so are extra
  // bytes and a kernel type out of range.
  const std::string whole = encodeKernelStats(12, k);
  for (size_t n = 0; n < whole.size(); ++n)
    EXPECT_FALSE(decodeKernelStats(whole.substr(0, n), rank).ok()) << n;
  EXPECT_FALSE(decodeKernelStats(whole + "x", rank).ok());
  std::vector<KernelStat> badType{{"a", static_cast<HtaKernelType>(9), 1, 1, 1, 1}};
  EXPECT_FALSE(decodeKernelStats(encodeKernelStats(1, badType), rank).ok());
}

TEST(GpuActivityTest, CsvFieldsQuotedPerRfc4180) {
  auto field = [](std::string_view s) {
    std::string out;
    appendCsvField(out, s);
    return out;
  };
  EXPECT_EQ(field("plain name<4>"), "plain name<4>");
  EXPECT_EQ(field("ncclKernel_AllReduce(ncclDevComm*, unsigned long, ncclWork*)"),
            "\"ncclKernel_AllReduce(ncclDevComm*, unsigned long, ncclWork*)\"");
  EXPECT_EQ(field("say \"hi\""), "\"say \"\"hi\"\"\"");
  EXPECT_EQ(field("a\nb"), "\"a\nb\"");
  EXPECT_EQ(field("a\rb"), "\"a\rb\"");
  EXPECT_EQ(field(""), "");
  // The text outputs' rule first: TAB stays (no quotes for it), other controls become
  // \u00XX text, invalid UTF-8 U+FFFD; the quoting then sees the result.
  EXPECT_EQ(field("a\tb"), "a\tb");
  EXPECT_EQ(field(std::string("k\x1b[31m\0,\xff", 9)), "\"k\\u001b[31m\\u0000,\xEF\xBF\xBD\"");
}

TEST(GpuActivityTest, StepTablesCarryTheBreakdown) {
  RankTable t;
  t.rank = 2;
  t.gpuBreakdown = {100, 10, 50, 40, true, 30, 20, true, {7, 8, 9}};
  std::vector<RankTable> back = decodeRankTables(encodeRankTables({t})).value();
  ASSERT_EQ(back.size(), 1u);
  EXPECT_EQ(back[0].gpuBreakdown.spanNs, 100u);
  EXPECT_EQ(back[0].gpuBreakdown.nonComputeNs, 40u);
  EXPECT_TRUE(back[0].gpuBreakdown.hasComm);
  EXPECT_EQ(back[0].gpuBreakdown.overlapNs, 20u);
  EXPECT_TRUE(back[0].gpuBreakdown.hasIdleSplit);
  EXPECT_EQ(back[0].gpuBreakdown.idle.hostWaitNs, 7u);
  EXPECT_EQ(back[0].gpuBreakdown.idle.kernelWaitNs, 8u);
  EXPECT_EQ(back[0].gpuBreakdown.idle.otherNs, 9u);
}

}  // namespace
}  // namespace xstack
