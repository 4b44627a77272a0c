// Which trace files exist and the order of their chunks (docs/FORMAT.md sections 3-4).
#include <gtest/gtest.h>

#include <algorithm>
#include <random>
#include <sstream>

#include "xstack/event/CounterSamples.h"
#include "xstack/model/TraceLayout.h"
#include "xstack/plan/OutputPlan.h"

namespace xstack {
namespace {

InputSummary summary(InputKind kind, int64_t id, int reader, int64_t gpu = 0) {
  InputSummary s;
  s.file.kind = kind;
  s.file.id = id;
  s.file.gpu = gpu;
  s.file.path =
      std::string("/d/") + kindName(kind) + "." + std::to_string(gpu) + "." + std::to_string(id);
  s.reader = reader;
  return s;
}

// A job: P GPUs x T trainers, every rank with spans, displayed ranks with
// `rowsPerRank` rows; DCGM (all 5 pids, every GPU) and net (tx and rx) files
// per trainer; time files per rank. Readers: rank R's files by MPI rank R % 3.
std::vector<InputSummary> job(const Topology& topo, int64_t trainers, size_t rowsPerRank = 3) {
  std::vector<InputSummary> all;
  for (int64_t t = 0; t < trainers; ++t) {
    for (int64_t g = 0; g < topo.gpusPerTrainer; ++g) {
      int64_t R = topo.rankOf(t, g);
      InputSummary p = summary(InputKind::Profile, R, static_cast<int>(R % 3));
      p.spanCount = 4;
      if (topo.rankDisplayed(R))
        for (size_t k = 0; k < rowsPerRank; ++k)
          p.rows.push_back({RowKind::CpuBlock, static_cast<int64_t>(k)});
      all.push_back(p);
      all.push_back(summary(InputKind::Time, t, static_cast<int>(R % 3), g));
    }
    InputSummary d = summary(InputKind::Dcgm, t, static_cast<int>(t % 3));
    for (int64_t g = 0; g < topo.gpusPerTrainer; ++g)
      for (CounterGroup c : kCounterGroups)
        if (!isNetGroup(c)) d.counterEvents[{c, g}] = 10;
    all.push_back(d);
    InputSummary n = summary(InputKind::Net, t, static_cast<int>((t + 1) % 3));
    n.counterEvents[{CounterGroup::NetTx, 0}] = 5;
    n.counterEvents[{CounterGroup::NetRx, 0}] = 5;
    all.push_back(n);
  }
  return all;
}

// A chunk as readable text: "<kind> pid=<pid> subj=<subject> owner=<owner>".
std::string str(const Chunk& c) {
  const char* k[] = {"meta", "thread", "spans", "dcgm", "net", "rows"};
  std::ostringstream s;
  s << k[static_cast<int>(c.kind)] << " pid=" << c.pid << " subj=" << c.subject
    << " owner=" << c.owner;
  return s.str();
}
std::vector<std::string> chunks(const OutputFile& o) {
  std::vector<std::string> v;
  for (const auto& c : o.chunks) v.push_back(str(c));
  return v;
}

TEST(OutputPlan, FileNames) {
  OutputFile o;
  o.group = 12;
  o.gpu = 3;
  EXPECT_EQ(o.fileName(), "traceFile_12_3.json");
  o.format = TraceFormat::Perfetto;
  EXPECT_EQ(o.fileName(), "traceFile_12_3.pftrace");
}

TEST(OutputPlan, WithFormatsGivesOneFilePerFormatWithTheSameChunks) {
  OutputFile a, b;
  a.gpu = 0;
  b.gpu = 1;
  a.chunks.resize(3);
  b.chunks.resize(2);
  auto outs = withFormats({a, b}, {TraceFormat::Json, TraceFormat::Perfetto});
  ASSERT_EQ(outs.size(), 4u);
  std::vector<std::string> names;
  for (const auto& o : outs) names.push_back(o.fileName());
  EXPECT_EQ(names, (std::vector<std::string>{"traceFile_0_0.json", "traceFile_0_0.pftrace",
                                             "traceFile_0_1.json", "traceFile_0_1.pftrace"}));
  EXPECT_EQ(outs[1].chunks.size(), 3u);
  EXPECT_TRUE(outs[0].countsWarnings);
  EXPECT_FALSE(outs[1].countsWarnings);  // the run's totals count the first format only
}

TEST(OutputPlan, FixedProcessNames) {
  const char* names[] = {"00_pipeline",  "01_gpuUtility", "02_smUtility", "03_memUtility",
                         "04_txUtility", "05_calUtility", "06_net_tx",    "07_net_rx"};
  // pid 0 is Perfetto's swapper: the pipeline is pid 1, each name's NN_ its place.
  for (int64_t pid = 1; pid < 9; ++pid) EXPECT_STREQ(fixedProcessName(pid), names[pid - 1]);
  EXPECT_EQ(fixedProcessName(9), nullptr);
  EXPECT_EQ(fixedProcessName(0), nullptr);
  EXPECT_EQ(fixedProcessName(-1), nullptr);
  EXPECT_EQ(kPipelinePid, 1);
  EXPECT_EQ(kFirstRankPid, 9);
}

TEST(OutputPlan, JobShape) {
  Topology topo{2, 3, 2};
  auto all = job(topo, 5);
  JobShape s = jobShape(all, topo);
  EXPECT_EQ(s.trainers, 5);
  EXPECT_EQ(s.groups, 2);
  EXPECT_EQ(s.ranks, 10);
  // Trainers come from the highest rank present, even with gaps below it.
  std::vector<InputSummary> sparse = {summary(InputKind::Profile, 13, 0),
                                      summary(InputKind::Dcgm, 40, 0)};
  s = jobShape(sparse, topo);
  EXPECT_EQ(s.trainers, 7);
  EXPECT_EQ(s.groups, 3);
  EXPECT_EQ(s.ranks, 1);
  EXPECT_EQ(jobShape({}, topo).trainers, 0);
}

TEST(OutputPlan, ChunkOrderOfAFullGroup) {
  // P = 2, S = 3, D = 2; trainers 0..4: group 0 full (trainers 0, 1, 2), group 1 partial (3, 4).
  Topology topo{2, 3, 2};
  auto all = job(topo, 5, 2);
  auto outs = planOutputs(all, topo);
  ASSERT_EQ(outs.size(), 4u);
  std::vector<std::string> files;
  for (const auto& o : outs) files.push_back(o.fileName());
  EXPECT_EQ(files, (std::vector<std::string>{"traceFile_0_0.json", "traceFile_0_1.json",
                                             "traceFile_1_0.json", "traceFile_1_1.json"}));
  const OutputFile& o = outs[1];  // group 0, GPU 1: ranks 1, 3, 5
  EXPECT_EQ(o.ranks, (std::vector<int64_t>{1, 3, 5}));
  EXPECT_EQ(o.trainers, (std::vector<int64_t>{0, 1, 2}));
  EXPECT_EQ(o.trainersInGroup, 3);
  EXPECT_EQ(
      chunks(o),
      (std::vector<std::string>{
          "meta pid=1 subj=0 owner=0",
          // pid 0: every rank, displayed or not (rank 5 is trainer 2, not displayed)
          "thread pid=1 subj=1 owner=0", "spans pid=1 subj=1 owner=1",
          "thread pid=1 subj=3 owner=0", "spans pid=1 subj=3 owner=0",
          "thread pid=1 subj=5 owner=0", "spans pid=1 subj=5 owner=2",
          // DCGM and net: displayed trainers 0 and 1 only, id = i
          "meta pid=2 subj=0 owner=0", "dcgm pid=2 subj=0 owner=0", "dcgm pid=2 subj=1 owner=1",
          "meta pid=3 subj=0 owner=0", "dcgm pid=3 subj=0 owner=0", "dcgm pid=3 subj=1 owner=1",
          "meta pid=4 subj=0 owner=0", "dcgm pid=4 subj=0 owner=0", "dcgm pid=4 subj=1 owner=1",
          "meta pid=5 subj=0 owner=0", "dcgm pid=5 subj=0 owner=0", "dcgm pid=5 subj=1 owner=1",
          "meta pid=6 subj=0 owner=0", "dcgm pid=6 subj=0 owner=0", "dcgm pid=6 subj=1 owner=1",
          "meta pid=7 subj=0 owner=0", "net pid=7 subj=0 owner=1", "net pid=7 subj=1 owner=2",
          "meta pid=8 subj=0 owner=0", "net pid=8 subj=0 owner=1", "net pid=8 subj=1 owner=2",
          // displayed ranks' rows: pids consecutive from 8, 2 rows each
          "rows pid=9 subj=1 owner=1", "rows pid=11 subj=3 owner=0"}));
  for (const Chunk& c : o.chunks) {
    if (c.kind == ChunkKind::Dcgm) {
      EXPECT_EQ(c.gpu, 1);
    }
    if (c.kind == ChunkKind::Spans || c.kind == ChunkKind::RankRows ||
        c.kind == ChunkKind::ThreadMeta) {
      EXPECT_EQ(all[c.input].file.kind, InputKind::Profile);
      EXPECT_EQ(all[c.input].file.id, c.subject);
    }
    if (c.kind == ChunkKind::Dcgm) {
      EXPECT_EQ(all[c.input].file.kind, InputKind::Dcgm);
      EXPECT_EQ(all[c.input].file.id, c.subject);  // group 0: trainer = i
    }
  }
}

TEST(OutputPlan, PartialLastGroup) {
  Topology topo{2, 3, 2};
  auto all = job(topo, 5, 1);
  auto outs = planOutputs(all, topo);
  ASSERT_EQ(outs.size(), 4u);
  const OutputFile& o = outs[2];  // group 1, GPU 0: trainers 3, 4 -> ranks 6, 8
  EXPECT_EQ(o.group, 1);
  EXPECT_EQ(o.gpu, 0);
  EXPECT_EQ(o.ranks, (std::vector<int64_t>{6, 8}));
  EXPECT_EQ(o.trainers, (std::vector<int64_t>{3, 4}));
  EXPECT_EQ(o.trainersInGroup, 2);
  std::vector<std::string> c = chunks(o);
  EXPECT_EQ(c.back(), "rows pid=10 subj=8 owner=2");
  EXPECT_EQ(c[c.size() - 2], "rows pid=9 subj=6 owner=0");
  // A DCGM chunk's subject is its trainer T (the counter says whose: "trainer T GPU g").
  std::vector<std::pair<int64_t, int64_t>> dcgm;  // (subject, trainer of the file)
  for (const Chunk& ch : o.chunks)
    if (ch.kind == ChunkKind::Dcgm && ch.pid == kFirstDcgmPid)
      dcgm.push_back({ch.subject, all[ch.input].file.id});
  EXPECT_EQ(dcgm, (std::vector<std::pair<int64_t, int64_t>>{{3, 3}, {4, 4}}));
  EXPECT_EQ(outs[0].trainersInGroup, 3);
}

// A rank a finding names is shown beyond --display-size with its trainer's DCGM and net
// counters: the user sees its GPU's utilisation beside its rows.
TEST(OutputPlan, ShownRanksBringTheirTrainersCounters) {
  Topology topo{2, 4, 1};
  auto all = job(topo, 4, 1);
  auto countersOf = [&](const OutputFile& o, ChunkKind kind) {
    std::vector<int64_t> trainers;
    for (const Chunk& ch : o.chunks)
      if (ch.kind == kind && (ch.pid == kFirstDcgmPid || ch.pid == kNetTxPid))
        trainers.push_back(ch.subject);
    return trainers;
  };
  auto outs = planOutputs(all, topo);
  EXPECT_EQ(countersOf(outs[1], ChunkKind::Dcgm), (std::vector<int64_t>{0}));
  topo.shownRanks = {5};  // trainer 2, GPU 1: file (0, 1) only
  outs = planOutputs(all, topo);
  EXPECT_EQ(countersOf(outs[0], ChunkKind::Dcgm), (std::vector<int64_t>{0}));
  EXPECT_EQ(countersOf(outs[1], ChunkKind::Dcgm), (std::vector<int64_t>{0, 2}));
  EXPECT_EQ(countersOf(outs[1], ChunkKind::Net), (std::vector<int64_t>{0, 2}));
  const auto& inputs = outs[1].inputs;
  const bool hasTrainer2Dcgm = std::any_of(inputs.begin(), inputs.end(), [&](size_t i) {
    return all[i].file.kind == InputKind::Dcgm && all[i].file.id == 2;
  });
  EXPECT_TRUE(hasTrainer2Dcgm);
}

TEST(OutputPlan, PartialGroupSmallerThanDisplaySize) {
  Topology topo{1, 4, 3};
  auto all = job(topo, 5, 1);  // group 1 has only trainer 4
  auto outs = planOutputs(all, topo);
  ASSERT_EQ(outs.size(), 2u);
  EXPECT_EQ(outs[1].trainersInGroup, 1);
  size_t dcgm = 0;
  for (const Chunk& c : outs[1].chunks) dcgm += c.kind == ChunkKind::Dcgm;
  EXPECT_EQ(dcgm, 5u);  // one trainer, 5 pids
}

TEST(OutputPlan, OutputsOnlyForGroupsAndGpusWithRanks) {
  Topology topo{4, 2, 1};
  // Ranks 0 (t0 g0), 2 (t0 g2) and 13 (t3 g1): groups 0 and 1.
  std::vector<InputSummary> all = {
      summary(InputKind::Profile, 0, 0), summary(InputKind::Profile, 2, 0),
      summary(InputKind::Profile, 13, 0), summary(InputKind::Dcgm, 1, 0),
      summary(InputKind::Time, 1, 0, 3)};
  auto outs = planOutputs(all, topo);
  std::vector<std::string> files;
  for (const auto& o : outs) files.push_back(o.fileName());
  EXPECT_EQ(files, (std::vector<std::string>{"traceFile_0_0.json", "traceFile_0_2.json",
                                             "traceFile_1_1.json"}));
  EXPECT_EQ(outs[2].ranks, std::vector<int64_t>{13});
  EXPECT_EQ(outs[2].trainersInGroup, 2);  // trainers 2 and 3 (4 trainers in the job)
}

TEST(OutputPlan, DisplaySizeZero) {
  Topology topo{2, 2, 0};
  auto all = job(topo, 2, 3);
  auto outs = planOutputs(all, topo);
  ASSERT_EQ(outs.size(), 2u);
  EXPECT_EQ(chunks(outs[0]),
            (std::vector<std::string>{"meta pid=1 subj=0 owner=0", "thread pid=1 subj=0 owner=0",
                                      "spans pid=1 subj=0 owner=0", "thread pid=1 subj=2 owner=0",
                                      "spans pid=1 subj=2 owner=2"}));
}

TEST(OutputPlan, ProcessesAndRowsOnlyWithEvents) {
  Topology topo{1, 2, 2};
  std::vector<InputSummary> all = {summary(InputKind::Profile, 0, 0),
                                   summary(InputKind::Profile, 1, 1),
                                   summary(InputKind::Dcgm, 0, 0), summary(InputKind::Net, 1, 1)};
  all[0].rows = {{RowKind::Gpu, 0}};  // rank 0 has rows but no spans; rank 1 has neither
  all[2].counterEvents[{CounterGroup::SmUtility, 0}] = 3;   // DCGM: only pid 2, GPU 0
  all[2].counterEvents[{CounterGroup::GpuUtility, 5}] = 3;  // pid 1, another GPU: not this file's
  all[3].counterEvents[{CounterGroup::NetRx, 0}] = 1;       // net: rx only
  auto outs = planOutputs(all, topo);
  ASSERT_EQ(outs.size(), 1u);
  EXPECT_EQ(chunks(outs[0]),
            (std::vector<std::string>{"meta pid=1 subj=0 owner=0", "thread pid=1 subj=0 owner=0",
                                      "thread pid=1 subj=1 owner=0", "meta pid=3 subj=0 owner=0",
                                      "dcgm pid=3 subj=0 owner=0", "meta pid=8 subj=0 owner=0",
                                      "net pid=8 subj=1 owner=1", "rows pid=9 subj=0 owner=0"}));
}

TEST(OutputPlan, InputsOfAFileAreItsProfilesTimeFilesAndDisplayedCounters) {
  Topology topo{2, 3, 1};
  auto all = job(topo, 3, 1);
  auto outs = planOutputs(all, topo);
  ASSERT_EQ(outs.size(), 2u);
  std::vector<std::string> paths;
  for (size_t i : outs[0].inputs) paths.push_back(all[i].file.path);
  std::sort(paths.begin(), paths.end());
  EXPECT_EQ(paths, (std::vector<std::string>{"/d/dcgm.0.0", "/d/net.0.0", "/d/profile.0.0",
                                             "/d/profile.0.2", "/d/profile.0.4", "/d/time.0.0",
                                             "/d/time.0.1", "/d/time.0.2"}));
  EXPECT_TRUE(std::is_sorted(outs[0].inputs.begin(), outs[0].inputs.end(), [&](size_t a, size_t b) {
    return std::tie(all[a].file.kind, all[a].file.id, all[a].file.gpu) <
           std::tie(all[b].file.kind, all[b].file.id, all[b].file.gpu);
  }));
}

TEST(OutputPlan, SameChunksWhateverTheSummaryOrder) {
  Topology topo{2, 3, 2};
  auto all = job(topo, 5, 2);
  auto describe = [](const std::vector<InputSummary>& s, const std::vector<OutputFile>& outs) {
    std::vector<std::string> d;
    for (const auto& o : outs) {
      d.push_back(o.fileName());
      for (const auto& c : o.chunks)
        d.push_back(str(c) + (c.kind == ChunkKind::ProcessMeta ? "" : " " + s[c.input].file.path));
    }
    return d;
  };
  auto want = describe(all, planOutputs(all, topo));
  std::mt19937 rng(3);
  for (int i = 0; i < 5; ++i) {
    std::shuffle(all.begin(), all.end(), rng);
    EXPECT_EQ(describe(all, planOutputs(all, topo)), want);
  }
}

// Regression: inputs were sorted by their index in the gathered summaries,
// i.e. by which rank read them (docs/FORMAT.md section 4).
TEST(OutputPlan, InputsAreInSubjectOrderWhateverTheSummaryOrder) {
  Topology topo{2, 3, 1};
  auto all = job(topo, 3, 1);
  auto subjects = [](const std::vector<InputSummary>& s, const OutputFile& o) {
    std::vector<std::string> v;
    for (size_t i : o.inputs) v.push_back(s[i].file.path);
    return v;
  };
  auto want = subjects(all, planOutputs(all, topo)[0]);
  std::reverse(all.begin(), all.end());  // e.g. the files read by a higher rank come first
  EXPECT_EQ(subjects(all, planOutputs(all, topo)[0]), want);
}

TEST(OutputPlan, DcgmSeriesOfPids) {
  EXPECT_EQ(dcgmSeriesOfPid(2).first, kGPUTL);
  EXPECT_EQ(dcgmSeriesOfPid(2).count, 2);
  EXPECT_EQ(dcgmSeriesOfPid(3).first, kSMACT);
  EXPECT_EQ(dcgmSeriesOfPid(4).first, kFB_USED_RATIO);
  EXPECT_EQ(dcgmSeriesOfPid(5).first, kNVLTX);
  EXPECT_EQ(dcgmSeriesOfPid(5).count, 4);
  EXPECT_EQ(dcgmSeriesOfPid(6).first, kFP32A);
  EXPECT_EQ(dcgmSeriesOfPid(6).count, 3);
  EXPECT_EQ(dcgmSeriesOfPid(7).count, 0);
  int total = 0;
  for (int64_t pid = 2; pid <= 6; ++pid) total += dcgmSeriesOfPid(pid).count;
  EXPECT_EQ(total, kDcgmSeriesCount);
}

}  // namespace
}  // namespace xstack
