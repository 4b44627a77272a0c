// GPUs per node for Chrome-trace JSON inputs (docs/FORMAT.md
// section 8): settled before the read from deviceProperties, else after it
// from the devices the ranks' GPU work ran on (else 8, with a note), and
// checked against those devices: a misfit is an error naming the file and the
// value that fits; a process that saw only its own GPU (device 0, one visible
// GPU) is no evidence.
#include <gtest/gtest.h>

#include "xstack/plan/TopologyInference.h"

namespace xstack {
namespace {

bool contains(const std::string& s, const std::string& part) {
  return s.find(part) != std::string::npos;
}

// Ranks 0..n-1 of a job with `perNode` GPUs per node, each on GPU rank mod
// perNode, each process seeing `visible` GPUs.
std::vector<TraceTopologyEvidence> nodeMajor(int64_t n, int64_t perNode, int64_t visible) {
  std::vector<TraceTopologyEvidence> out;
  for (int64_t r = 0; r < n; ++r)
    out.push_back({r, "rank" + std::to_string(r) + ".pt.trace.json.gz", {r % perNode}, visible});
  return out;
}

TopologyEvidence jsonEvidence(int64_t visible, std::optional<int64_t> given = std::nullopt) {
  TopologyEvidence ev;
  ev.explicitP = given;
  ev.traceVisibleGpus = visible;
  ev.tracesTellDevices = true;
  return ev;
}

TEST(TraceTopology, DevicePropertiesGivePBeforeTheRead) {
  GpusPerTrainer r = inferGpusPerTrainer(jsonEvidence(4));
  EXPECT_EQ(r.value, 4);
  EXPECT_EQ(r.source, GpusPerTrainerSource::TraceDevices);
  ASSERT_EQ(r.notes.size(), 1u);
  EXPECT_TRUE(contains(r.notes[0], "deviceProperties")) << r.notes[0];
}

TEST(TraceTopology, WithoutDevicePropertiesTheGpuDevicesSettlePAfterTheRead) {
  for (int64_t visible : {0, 1}) {  // none said, or one GPU per process: no evidence before
    GpusPerTrainer r = inferGpusPerTrainer(jsonEvidence(visible));
    EXPECT_EQ(r.value, 8);  // for the read
    EXPECT_TRUE(r.settledAfterRead);
    EXPECT_TRUE(r.notes.empty());
  }
  EXPECT_FALSE(inferGpusPerTrainer(jsonEvidence(4)).settledAfterRead);
  EXPECT_FALSE(inferGpusPerTrainer(jsonEvidence(0, 2)).settledAfterRead);  // given
}

// Old Kineto traces (no deviceProperties) of 2-GPU nodes.
TEST(TraceTopology, GpuDevicesGivePWhenNothingElseDoes) {
  GpusPerTrainer r = gpusPerTrainerFromTraceDevices(nodeMajor(4, 2, 0), 4);
  EXPECT_EQ(r.value, 2);
  EXPECT_EQ(r.source, GpusPerTrainerSource::TraceGpuIds);
  ASSERT_EQ(r.notes.size(), 1u);
  EXPECT_TRUE(contains(r.notes[0], "--gpus-per-trainer 2, from the GPUs the traces' GPU work"))
      << r.notes[0];
  EXPECT_TRUE(contains(r.notes[0], "largest GPU 1, of rank1.pt.trace.json.gz (rank 1)"))
      << r.notes[0];
  EXPECT_FALSE(contains(r.notes[0], "not here")) << r.notes[0];  // the whole job is here
  EXPECT_TRUE(
      gpusPerTrainerAgainstTraces(nodeMajor(4, 2, 0), r.value, r.source).contradiction.empty());
  for (int64_t P : {2, 3, 4, 8}) {
    GpusPerTrainer q = gpusPerTrainerFromTraceDevices(nodeMajor(3 * P, P, P), 0);
    EXPECT_EQ(q.value, P);
    EXPECT_EQ(q.source, GpusPerTrainerSource::TraceGpuIds);
  }
}

TEST(TraceTopology, RanksWithoutAGpuDoNotLowerP) {
  // 8 GPUs per node; the ranks on GPU 7 (7 and 15) ran no GPU work: 7 does not fit rank 8.
  std::vector<TraceTopologyEvidence> t = nodeMajor(16, 8, 0);
  t[7].gpuDevices.clear();
  t[15].gpuDevices.clear();
  GpusPerTrainer r = gpusPerTrainerFromTraceDevices(t, 16);
  EXPECT_EQ(r.value, 8);
  ASSERT_EQ(r.notes.size(), 1u);
  EXPECT_TRUE(contains(r.notes[0], "largest GPU 6")) << r.notes[0];
  EXPECT_TRUE(contains(r.notes[0], "the smallest value every rank's GPU fits")) << r.notes[0];
}

TEST(TraceTopology, SomeRanksOfABigJobGiveALowerBoundAndSaySo) {
  std::vector<TraceTopologyEvidence> t = {{0, "sampled_rank-0.json.gz", {0}, 0},
                                          {1, "sampled_rank-1.json.gz", {1}, 0}};
  GpusPerTrainer r = gpusPerTrainerFromTraceDevices(t, 128);
  EXPECT_EQ(r.value, 2);
  ASSERT_EQ(r.notes.size(), 1u);
  EXPECT_TRUE(contains(r.notes[0], "other ranks are not here")) << r.notes[0];
  EXPECT_TRUE(contains(r.notes[0], "give --gpus-per-trainer if the nodes have more GPUs"))
      << r.notes[0];
}

TEST(TraceTopology, NoShownGpuOrNoFitIsEightAssumed) {
  std::vector<TraceTopologyEvidence> narrowed;  // CUDA_VISIBLE_DEVICES: every rank on its GPU 0
  for (int64_t r = 0; r < 4; ++r) narrowed.push_back({r, "r" + std::to_string(r), {0}, 1});
  GpusPerTrainer r = gpusPerTrainerFromTraceDevices(narrowed, 4);
  EXPECT_EQ(r.value, 8);
  EXPECT_EQ(r.source, GpusPerTrainerSource::Assumed);
  ASSERT_EQ(r.notes.size(), 1u);
  EXPECT_TRUE(contains(r.notes[0], "8 assumed")) << r.notes[0];
  // Ranks 0 and 1 both on GPU 1: rank 0 mod P is 0 for every P.
  GpusPerTrainer none = gpusPerTrainerFromTraceDevices({{0, "a", {1}, 2}, {1, "b", {1}, 2}}, 0);
  EXPECT_EQ(none.value, 8);
  EXPECT_EQ(none.source, GpusPerTrainerSource::Assumed);
  EXPECT_TRUE(contains(none.notes.at(0), "no value up to 1024 fits")) << none.notes[0];
}

// A device no node has is no evidence, and named.
TEST(TraceTopology, AnImplausibleDeviceIsNotUsedAndNamed) {
  std::vector<TraceTopologyEvidence> t = nodeMajor(4, 2, 0);
  t[3].gpuDevices = {4'000'000'000};
  GpusPerTrainer r = gpusPerTrainerFromTraceDevices(t, 4);
  EXPECT_EQ(r.value, 2);  // rank 1 on GPU 1
  TraceTopologyCheck c = gpusPerTrainerAgainstTraces(t, r.value, r.source);
  EXPECT_TRUE(c.contradiction.empty()) << c.contradiction;
  ASSERT_EQ(c.warnings.size(), 1u);
  EXPECT_TRUE(contains(c.warnings[0], "rank3.pt.trace.json.gz (rank 3)")) << c.warnings[0];
  EXPECT_TRUE(contains(c.warnings[0], "device 4000000000, above 1023: not used")) << c.warnings[0];
}

TEST(TraceTopology, NodeMajorRanksFitTheirP) {
  for (int64_t P : {1, 2, 4, 8}) {
    TraceTopologyCheck c =
        gpusPerTrainerAgainstTraces(nodeMajor(16, P, P), P, GpusPerTrainerSource::TraceDevices);
    EXPECT_TRUE(c.contradiction.empty()) << P << ": " << c.contradiction;
    EXPECT_TRUE(c.warnings.empty()) << P;
  }
}

TEST(TraceTopology, PerProcessVisibleDevicesAreNoEvidence) {
  // CUDA_VISIBLE_DEVICES narrowed to one GPU per process: every rank says GPU 0.
  std::vector<TraceTopologyEvidence> t;
  for (int64_t r = 0; r < 16; ++r) t.push_back({r, "r" + std::to_string(r), {0}, 1});
  for (int64_t P : {1, 3, 8}) {
    TraceTopologyCheck c = gpusPerTrainerAgainstTraces(t, P, GpusPerTrainerSource::Option);
    EXPECT_TRUE(c.contradiction.empty()) << P << ": " << c.contradiction;
    EXPECT_TRUE(c.warnings.empty());
  }
}

TEST(TraceTopology, GivenPThatContradictsTheDevicesIsAnErrorNamingFileAndFit) {
  // 4 GPUs per node, the user says 8: rank 5 runs on GPU 1, under 8 it is local GPU 5.
  TraceTopologyCheck c =
      gpusPerTrainerAgainstTraces(nodeMajor(8, 4, 4), 8, GpusPerTrainerSource::Option);
  ASSERT_FALSE(c.contradiction.empty());
  EXPECT_TRUE(contains(c.contradiction, "--gpus-per-trainer 8 contradicts")) << c.contradiction;
  EXPECT_TRUE(contains(c.contradiction, "rank4.pt.trace.json.gz (rank 4)")) << c.contradiction;
  EXPECT_TRUE(contains(c.contradiction, "on GPU 0")) << c.contradiction;
  EXPECT_TRUE(contains(c.contradiction, "fit --gpus-per-trainer 4")) << c.contradiction;
}

TEST(TraceTopology, AGpuAtOrAboveGivenPIsAContradiction) {
  std::vector<TraceTopologyEvidence> t = {{3, "r3", {3}, 0}};
  TraceTopologyCheck c = gpusPerTrainerAgainstTraces(t, 2, GpusPerTrainerSource::Option);
  ASSERT_FALSE(c.contradiction.empty());
  EXPECT_TRUE(contains(c.contradiction, "fit --gpus-per-trainer 4")) << c.contradiction;
}

TEST(TraceTopology, AssumedEightContradictedByOldTracesSaysWhatFits) {
  // No deviceProperties (old Kineto), 2 GPUs per node: rank 2 runs on GPU 0.
  std::vector<TraceTopologyEvidence> t = nodeMajor(4, 2, 0);
  TraceTopologyCheck c = gpusPerTrainerAgainstTraces(t, 8, GpusPerTrainerSource::Assumed);
  ASSERT_FALSE(c.contradiction.empty());
  EXPECT_TRUE(contains(c.contradiction, "--gpus-per-trainer 8 (assumed) contradicts"))
      << c.contradiction;
  EXPECT_TRUE(contains(c.contradiction, "fit --gpus-per-trainer 2")) << c.contradiction;
}

TEST(TraceTopology, SomeRanksOfABigJobFitEight) {
  // The shared trace_filter set: ranks 0 and 1 of 128, on GPUs 0 and 1, no deviceProperties.
  std::vector<TraceTopologyEvidence> t = {{0, "sampled_rank-0.json.gz", {0}, 0},
                                          {1, "sampled_rank-1.json.gz", {1}, 0}};
  TraceTopologyCheck c = gpusPerTrainerAgainstTraces(t, 8, GpusPerTrainerSource::Assumed);
  EXPECT_TRUE(c.contradiction.empty()) << c.contradiction;
}

TEST(TraceTopology, RanksOnSeveralDevicesOrNoneAreNoEvidence) {
  std::vector<TraceTopologyEvidence> t = {{1, "a", {0, 1}, 8}, {2, "b", {}, 8}};
  TraceTopologyCheck c = gpusPerTrainerAgainstTraces(t, 8, GpusPerTrainerSource::TraceDevices);
  EXPECT_TRUE(c.contradiction.empty()) << c.contradiction;
}

// Device ids that do not follow the ranks (a launcher's choice) are nothing wrong: a note,
// neither an error nor a warning.
TEST(TraceTopology, NoFittingPIsANoteNotAWarning) {
  // Ranks 0 and 1 both on GPU 1: rank 0 mod P is 0 for every P.
  std::vector<TraceTopologyEvidence> t = {{0, "a", {1}, 2}, {1, "b", {1}, 2}};
  TraceTopologyCheck c = gpusPerTrainerAgainstTraces(t, 2, GpusPerTrainerSource::TraceDevices);
  EXPECT_TRUE(c.contradiction.empty()) << c.contradiction;
  EXPECT_TRUE(c.warnings.empty()) << c.warnings.at(0);
  ASSERT_EQ(c.notes.size(), 1u);
  EXPECT_TRUE(contains(c.notes[0], "note: ")) << c.notes[0];
  EXPECT_TRUE(contains(c.notes[0], "for no P up to 1024")) << c.notes[0];
  EXPECT_TRUE(contains(c.notes[0], "a (rank 0)")) << c.notes[0];
}

// The PyTorch family's words for these messages.
TEST(TraceTopology, InNodeWords) {
  EXPECT_EQ(inNodeWords("--gpus-per-trainer 8 contradicts the traces: a (rank 5) runs its GPU "
                        "work on GPU 1, but with --gpus-per-trainer 8 rank 5 is local GPU 5 of "
                        "trainer 0; rank = trainer x P + GPU"),
            "--gpus-per-node 8 contradicts the traces: a (rank 5) runs its GPU work on GPU 1, "
            "but with --gpus-per-node 8 rank 5 is local rank 5 of node 0; rank = node x P + "
            "local rank");
  EXPECT_EQ(inNodeWords("nothing to change"), "nothing to change");
}

// A job of one rank (one trace, rank 0, no file declaring more ranks) may run on any GPU
// (CUDA_VISIBLE_DEVICES): its GPU is no evidence, and no warning. Nothing else telling P,
// it is 1, with a note naming the trace and its GPU.
TEST(TraceTopology, AJobOfOneRankMayRunOnAnyGpu) {
  for (int64_t world : {0, 1}) {
    const std::vector<TraceTopologyEvidence> t = {{0, "xdit_rank_0.json.gz", {2}, 1}};
    GpusPerTrainer r = gpusPerTrainerFromTraceDevices(t, world);
    EXPECT_EQ(r.value, 1);
    ASSERT_EQ(r.notes.size(), 1u);
    EXPECT_TRUE(contains(r.notes[0],
                         "--gpus-per-trainer 1: the job has one rank "
                         "(xdit_rank_0.json.gz, rank 0), whose GPU work runs on GPU 2"))
        << r.notes[0];
    TraceTopologyCheck c = gpusPerTrainerAgainstTraces(t, r.value, r.source, world);
    EXPECT_TRUE(c.contradiction.empty()) << c.contradiction;
    EXPECT_TRUE(c.warnings.empty()) << c.warnings.at(0);
    for (int64_t P : {1, 2, 8}) {  // given, or from deviceProperties
      for (auto source : {GpusPerTrainerSource::Option, GpusPerTrainerSource::TraceDevices}) {
        c = gpusPerTrainerAgainstTraces({{0, "vllm_rank_0.pt.trace.json.gz", {2}, 8}}, P, source,
                                        world);
        EXPECT_TRUE(c.contradiction.empty()) << c.contradiction;
        EXPECT_TRUE(c.warnings.empty()) << c.warnings.at(0);
      }
    }
    c = gpusPerTrainerAgainstTraces({{0, "odd", {4'000'000'000}, 1}}, 8,
                                    GpusPerTrainerSource::Assumed, world);
    EXPECT_TRUE(c.warnings.empty()) << c.warnings.at(0);
  }
  // Its GPU 0, or none shown: as for any job.
  GpusPerTrainer zero = gpusPerTrainerFromTraceDevices({{0, "resnet", {0}, 1}}, 0);
  EXPECT_EQ(zero.value, 8);
  EXPECT_EQ(zero.source, GpusPerTrainerSource::Assumed);
}

// Rank 0 of a bigger job (its files say so), or one of several traces, on another GPU
// than rank mod P: the rules of every job, a note (no warning: nothing is wrong).
TEST(TraceTopology, RankZeroOfABiggerJobOnAnotherGpuIsANote) {
  const std::vector<TraceTopologyEvidence> t = {{0, "a", {2}, 8}};
  TraceTopologyCheck c = gpusPerTrainerAgainstTraces(t, 8, GpusPerTrainerSource::TraceDevices, 4);
  EXPECT_TRUE(c.warnings.empty()) << c.warnings.at(0);
  ASSERT_EQ(c.notes.size(), 1u);
  EXPECT_TRUE(contains(c.notes[0], "for no P up to 1024")) << c.notes[0];
  GpusPerTrainer r = gpusPerTrainerFromTraceDevices(t, 4);
  EXPECT_EQ(r.value, 8);
  EXPECT_TRUE(contains(r.notes.at(0), "no value up to 1024 fits")) << r.notes[0];
  const std::vector<TraceTopologyEvidence> five = {{5, "b", {7}, 8}};  // not rank 0
  EXPECT_EQ(gpusPerTrainerAgainstTraces(five, 8, GpusPerTrainerSource::TraceDevices).notes.size(),
            1u);
}

}  // namespace
}  // namespace xstack
