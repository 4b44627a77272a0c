// The analysis registry (analysis/AnalysisRegistry.h) and one analysis' two
// parts end to end on one rank (SerialComm): per-rank part fed events, its
// bytes merged by the job part, the file it declares written.
#include <gtest/gtest.h>

#include <fstream>
#include <sstream>

#include "../TempDirTest.h"
#include "xstack/analysis/AnalysisRegistry.h"
#include "xstack/analysis/GpuActivity.h"
#include "xstack/report/AnalysisFiles.h"

namespace xstack {
namespace {

SliceEvent gpuSlice(std::string_view name, uint64_t start, uint64_t end) {
  SliceEvent e;
  e.name = name;
  e.startNs = start;
  e.endNs = end;
  e.row = {RowKind::Gpu, 0};
  e.tid = 7;
  return e;
}

TEST(AnalysisRegistryTest, ListsTheAnalysesAndTheirFiles) {
  std::vector<std::string> names;
  for (const Analysis* a : registeredAnalyses()) names.emplace_back(a->name());
  EXPECT_EQ(names, (std::vector<std::string>{"steps", "kernels", "collectives"}));
  EXPECT_EQ(findAnalysis("kernels"), registeredAnalyses()[1]);
  EXPECT_EQ(findAnalysis("nope"), nullptr);
  EXPECT_EQ(analysisOutputFiles(),
            (std::vector<std::string>{"steps.csv", "ranks.csv", "findings.json", "report.html",
                                      "kernels.csv", "collectives.csv", "waits.csv",
                                      "critical_path.csv"}));
}

class AnalysisPartsTest : public TempDirTest {};

TEST_F(AnalysisPartsTest, KernelsAnalysisWritesWhatItsPartsSaw) {
  const Analysis& kernels = *findAnalysis("kernels");
  std::vector<SliceEvent> slices{gpuSlice("b", 0, 10), gpuSlice("a", 5, 9), gpuSlice("b", 20, 45)};
  std::vector<std::string> bytes;
  for (int64_t rank : {1, 0}) {
    std::unique_ptr<RankAnalysis> part = kernels.rankPart({dir_.string(), 1 << 20});
    for (const SliceEvent& e : slices) part->onSlice(e);
    bytes.push_back(part->finish(rank, {}).value());
  }
  const std::vector<RankPart> local{{1, bytes[0]}, {0, bytes[1]}};
  SerialComm comm;
  std::unique_ptr<AnalysisJob> job = kernels.jobPart({});
  job->merge(comm, local);
  ASSERT_TRUE(job->status().ok());
  std::vector<AtomicFile> files;
  std::vector<std::string> lines;
  AnalysisOutput out;
  out.dir = Folder{AT_FDCWD, dir_.string()};
  out.files = &files;
  out.lines = &lines;
  ASSERT_TRUE(job->write(comm, local, out).ok());
  ASSERT_EQ(files.size(), 1u);
  ASSERT_TRUE(files[0].commit().ok());
  std::stringstream csv;
  csv << std::ifstream(dir_ / "kernels.csv").rdbuf();
  KernelStatsBuilder expected;
  for (const SliceEvent& e : slices) expected.add(e);
  const std::vector<KernelStat> stats = expected.take();
  std::string want = kernelsCsvHeader();
  appendKernelsCsvRows(want, 0, stats);  // ranks in increasing order
  appendKernelsCsvRows(want, 1, stats);
  EXPECT_EQ(csv.str(), want);
  EXPECT_TRUE(lines.empty());
}

TEST_F(AnalysisPartsTest, AMalformedPartFailsTheJobNotTheProcess) {
  const Analysis& kernels = *findAnalysis("kernels");
  const std::string whole = kernels.rankPart({})->finish(3, {}).value();
  const std::vector<RankPart> local{{3, std::string_view(whole).substr(0, whole.size() - 1)}};
  SerialComm comm;
  std::unique_ptr<AnalysisJob> job = kernels.jobPart({});
  job->merge(comm, local);
  std::vector<AtomicFile> files;
  std::vector<std::string> lines;
  AnalysisOutput out;
  out.dir = Folder{AT_FDCWD, dir_.string()};
  out.files = &files;
  out.lines = &lines;
  EXPECT_FALSE(job->write(comm, local, out).ok());
  EXPECT_TRUE(files.empty());
}

}  // namespace
}  // namespace xstack
