// Differential tests of the streaming analysis builders (StepTable.cpp,
// GpuActivity.cpp: external sorters and sweeps) against the pre-streaming
// in-memory code kept as an oracle (ReferenceAnalysis.h), on random inputs
// made to hit every tie-break: overlapping, nested and identical intervals,
// step windows that overlap or leave gaps, events before and after every
// window, slices that end before they start, correlations shared, missing,
// negative or first seen late, several streams, memory freed before it is
// allocated, names that tie. Each case's tables are compared as their
// encoded text (encodeRankTables, encodeKernelStats), with the default budget
// and with a 4 KiB one (runs of 1024 records, merged two at a time).
#include <gtest/gtest.h>

#include <algorithm>
#include <random>
#include <string>
#include <vector>

#include "../TempDirTest.h"
#include "ReferenceAnalysis.h"
#include "xstack/analysis/GpuActivity.h"
#include "xstack/analysis/StepTable.h"
#include "xstack/render/NameTable.h"

namespace xstack {
namespace {

constexpr std::string_view kGpuNames[] = {"gemm",
                                          "relu_kernel",
                                          "ncclKernel_AllReduce_RING_LL_Sum_float",
                                          "ncclDevKernel_Broadcast",
                                          "Memcpy HtoD (Pageable -> Device)",
                                          "Memset (Device)",
                                          "Event Sync",
                                          "Context Sync",
                                          "hipMemcpyAsync",
                                          "dma_copy",
                                          "Stream Wait Event",
                                          "cudaLaunchKernel_x",
                                          "rccl_allgather",
                                          "void at::native::vectorized_elementwise_kernel<4>"};
constexpr std::string_view kCpuNames[] = {"aten::mm",
                                          "aten::add",
                                          "cudaLaunchKernel",
                                          "enumerate(DataLoader)#_SingleProcessDataLoaderIter",
                                          "ProfilerStep#3",
                                          "b",
                                          "a",
                                          "cudaStreamSynchronize",
                                          "## optimizer ##",
                                          "aa"};

// One random rank: its events in input order and its spans.
struct RandomRank {
  std::vector<SliceEvent> slices;
  std::vector<MemoryEvent> memory;
  std::vector<Span> spans;
};

class Generator {
 public:
  explicit Generator(uint32_t seed) : rng_(seed) {}

  RandomRank rank(size_t events) {
    RandomRank r;
    // Time scale: dense (many ties and overlaps) or sparse; sometimes Unix ns.
    range_ = pick({200, 2000, 100000, 5000000});
    base_ = chance(4) ? uint64_t{1'700'000'000'000'000'000} : uint64_t{0};
    correlations_ = static_cast<int64_t>(pick({0, 3, 30, 1000}));
    lateCorrelation_ = chance(4) ? events / 2 : 0;  // first correlation half way through
    streams_ = static_cast<int64_t>(pick({1, 2, 4}));
    r.spans = spans();
    for (size_t i = 0; i < events; ++i) {
      if (chance(8)) r.memory.push_back(memoryEvent());
      r.slices.push_back(slice(i));
    }
    return r;
  }

 private:
  bool chance(uint32_t oneIn) { return rng_() % oneIn == 0; }
  uint64_t below(uint64_t n) { return n == 0 ? 0 : rng_() % n; }
  uint64_t pick(std::initializer_list<uint64_t> v) { return *(v.begin() + below(v.size())); }
  // A time in [0, 1.5 range): the windows start at range/4, so before and
  // after every window too.
  uint64_t time() { return base_ + below(range_ + range_ / 2); }
  uint64_t duration() {
    switch (below(6)) {
      case 0:
        return 0;
      case 1:
        return below(5);
      case 2:
        return below(range_ / 3 + 1);
      default:
        return below(range_ / 20 + 2);
    }
  }

  std::vector<Span> spans() {
    std::vector<Span> out;
    const size_t steps = below(8);
    uint64_t t = base_ + range_ / 4;
    for (size_t i = 0; i < steps; ++i) {
      uint64_t start = t + (chance(3) ? 0 : below(range_ / 10 + 1));
      if (chance(5) && start > base_ + range_ / 8) start -= below(range_ / 8);  // overlaps
      const uint64_t len = below(range_ / 6 + 1);
      out.push_back({Phase::Forward, static_cast<int64_t>(i), start, start + len});
      if (!chance(4)) {  // the step's backward span (sometimes none, sometimes two)
        const uint64_t b = start + below(len + 1);
        out.push_back({Phase::Backward, static_cast<int64_t>(i), b, b + below(range_ / 6 + 1)});
        if (chance(6)) out.push_back({Phase::Backward, static_cast<int64_t>(i), b, b + below(9)});
      }
      t = start + len;
    }
    if (chance(6) && !out.empty()) out.push_back(out.front());  // a repeated step
    if (chance(6)) std::shuffle(out.begin(), out.end(), rng_);
    return out;
  }

  int64_t correlation(size_t i) {
    if (correlations_ == 0 || i < lateCorrelation_ || chance(6)) return chance(3) ? -1 : -7;
    return static_cast<int64_t>(below(static_cast<uint64_t>(correlations_)));
  }

  SliceEvent slice(size_t i) {
    SliceEvent e;
    e.startNs = time();
    e.endNs =
        chance(12) ? e.startNs - std::min<uint64_t>(e.startNs, below(50)) : e.startNs + duration();
    e.correlation = correlation(i);
    switch (below(7)) {
      case 0:
      case 1:
      case 2:
        e.row = {RowKind::Gpu, static_cast<int64_t>(below(2))};
        e.name = kGpuNames[below(std::size(kGpuNames))];
        e.tid = chance(8) ? -1 : static_cast<int64_t>(below(static_cast<uint64_t>(streams_)));
        if (chance(10)) e.bytes = 1 + below(1000);
        break;
      case 3:
      case 4:
        e.row = {RowKind::CudaApi, -1};
        e.name = kCpuNames[below(std::size(kCpuNames))];
        break;
      case 5:
        e.row = {RowKind::CpuBlock, static_cast<int64_t>(below(3))};
        e.name = kCpuNames[below(std::size(kCpuNames))];
        if (chance(20)) {  // a step span covering a window
          e.startNs = base_;
          e.endNs = base_ + range_ * 2;
        }
        break;
      default:
        e.row = {chance(2) ? RowKind::MemGpu : RowKind::CpuBlock, 0};
        e.name = kCpuNames[below(std::size(kCpuNames))];
        break;
    }
    return e;
  }

  MemoryEvent memoryEvent() {
    MemoryEvent m;
    m.place = chance(4) ? MemPlace::Cpu : MemPlace::Gpu;
    m.startNs = time();
    switch (below(4)) {
      case 0:
        m.endNs = 0;
        break;  // never freed
      case 1:
        m.endNs = m.startNs - std::min<uint64_t>(m.startNs, below(30));
        break;  // before
      case 2:
        m.endNs = m.startNs;
        break;
      default:
        m.endNs = m.startNs + duration();
        break;
    }
    m.bytes = 1 + below(chance(2) ? 16 : 1 << 20);
    return m;
  }

  std::mt19937 rng_;
  uint64_t range_ = 1000, base_ = 0;
  int64_t correlations_ = 0;
  size_t lateCorrelation_ = 0;
  int64_t streams_ = 1;
};

struct Encoded {
  std::string tables, kernels;
  uint64_t steps = 0;
};

// The reference's builders get the slices as made (no nameId); the
// streaming ones get each its name's id, as the read stage's walk gives them
// (`names`), and the kernels part's builder its GPU-row slices.
template <class Steps, class Gpu>
void feed(const RandomRank& r, Steps& steps, Gpu& gpu, NameTable* names = nullptr,
          KernelStatsBuilder* kernels = nullptr) {
  size_t m = 0;
  for (size_t i = 0; i < r.slices.size(); ++i) {
    if (m < r.memory.size() && i % 8 == 0) steps.addMemory(r.memory[m++]);
    SliceEvent e = r.slices[i];
    if (names) e.nameId = names->intern(e.name);
    steps.addSlice(e);
    gpu.addSlice(e);
    if (kernels && e.row.kind == RowKind::Gpu) kernels->add(e);
  }
  for (; m < r.memory.size(); ++m) steps.addMemory(r.memory[m]);
}

Encoded viaReference(const RandomRank& r) {
  reference::StepTableBuilder steps;
  reference::GpuActivityBuilder gpu;
  feed(r, steps, gpu);
  RankTable t = steps.build(5, r.spans);
  reference::GpuResult a = gpu.build(r.spans);
  t.gpuBreakdown = a.activity.breakdown;
  return {encodeRankTables({t}), encodeKernelStats(5, a.kernels), a.activity.steps};
}

Encoded viaStreaming(const RandomRank& r, const SpillOptions& spill) {
  StepTableBuilder steps(spill);
  GpuActivityBuilder gpu(spill);
  NameTable names;
  KernelStatsBuilder kernels;
  feed(r, steps, gpu, &names, &kernels);
  Expected<RankTable> t = steps.build(5, r.spans);
  Expected<RankGpuActivity> a = gpu.build(r.spans);
  EXPECT_TRUE(t.ok() && a.ok());
  if (!t.ok() || !a.ok()) return {};
  t->gpuBreakdown = a->breakdown;
  return {encodeRankTables({*t}), encodeKernelStats(5, kernels.take()), a->steps};
}

class StreamingAnalysisTest : public TempDirTest {
 protected:
  // What `xstack report` gives each builder at the default --memory-mb.
  static uint64_t defaultBudget() {
    return analysisBuilderBudget({"", SpillOptions{}.memoryBytes}).memoryBytes;
  }
  // `cases` random ranks of `minEvents`..`maxEvents` events from `seed`;
  // returns how many slices they held in all.
  size_t compare(uint32_t seed, size_t cases, size_t minEvents, size_t maxEvents, uint64_t budget) {
    Generator g(seed);
    std::mt19937 sizes(seed + 1);
    size_t slices = 0;
    const SpillOptions spill{dir_.string(), budget};
    for (size_t c = 0; c < cases; ++c) {
      const size_t n = minEvents + sizes() % (maxEvents - minEvents + 1);
      const RandomRank r = g.rank(n);
      slices += r.slices.size();
      const Encoded want = viaReference(r);
      const Encoded got = viaStreaming(r, spill);
      EXPECT_EQ(got.tables, want.tables) << "seed " << seed << " case " << c;
      EXPECT_EQ(got.kernels, want.kernels) << "seed " << seed << " case " << c;
      EXPECT_EQ(got.steps, want.steps) << "seed " << seed << " case " << c;
      if (::testing::Test::HasFailure()) return slices;
    }
    return slices;
  }
};

TEST_F(StreamingAnalysisTest, SmallRandomRanksMatchTheInMemoryCodeWithTheDefaultBudget) {
  for (uint32_t seed : {1u, 2u, 3u}) compare(seed, 1000, 0, 300, defaultBudget());
}

TEST_F(StreamingAnalysisTest, SmallRandomRanksMatchWithATinyBudget) {
  for (uint32_t seed : {11u, 12u}) compare(seed, 1000, 0, 300, 4096);
}

// 3,000-12,000 slices a rank: every sorter of a 4 KiB budget holds 1024
// records a run, so the CPU-side slices and kernels make several runs, merged
// two at a time (ExternalSorter's fan-in at this budget) before the passes.
TEST_F(StreamingAnalysisTest, LargeRandomRanksMatchWithATinyBudgetSpilling) {
  compare(21, 120, 3000, 12000, 4096);
}

TEST_F(StreamingAnalysisTest, LargeRandomRanksMatchWithTheDefaultBudget) {
  compare(22, 40, 3000, 12000, defaultBudget());
}

TEST_F(StreamingAnalysisTest, EmptyRankAndSpansWithoutEvents) {
  RandomRank r;
  EXPECT_EQ(viaStreaming(r, {dir_.string(), 4096}).tables, viaReference(r).tables);
  r.spans = {
      {Phase::Forward, 0, 10, 20}, {Phase::Backward, 0, 15, 40}, {Phase::Forward, 1, 50, 60}};
  EXPECT_EQ(viaStreaming(r, {dir_.string(), 4096}).tables, viaReference(r).tables);
}

// A sorter that must spill into a folder that does not exist: build() is an
// Error naming the folder, never a table from part of the records.
TEST_F(StreamingAnalysisTest, ASpillErrorIsAnErrorNamingTheFolder) {
  const std::string missing = (dir_ / "no-such-folder").string();
  Generator g(5);
  RandomRank r = g.rank(10000);
  StepTableBuilder steps({missing, 4096});
  GpuActivityBuilder gpu({missing, 4096});
  feed(r, steps, gpu);
  Expected<RankTable> t = steps.build(0, r.spans);
  ASSERT_FALSE(t.ok());
  EXPECT_NE(t.error().message.find(missing), std::string::npos) << t.error().message;
  Expected<RankGpuActivity> a = gpu.build(r.spans);
  ASSERT_FALSE(a.ok());
  EXPECT_NE(a.error().message.find(missing), std::string::npos) << a.error().message;
  // The builders are left empty and usable.
  StepTableBuilder again({dir_.string(), 4096});
  EXPECT_TRUE(again.build(0, r.spans).ok());
}

}  // namespace
}  // namespace xstack
