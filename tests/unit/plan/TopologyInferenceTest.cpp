// --gpus-per-trainer from the inputs: time file names first, then
// DCGM GPU ids, then 8 with a note; a given value contradicted by the time
// files is an error naming the option, the value, the files and the implied
// value; dcgm/net files of trainers without profiles are warnings.
#include <gtest/gtest.h>

#include <cstdint>

#include "xstack/plan/TopologyEvidence.h"
#include "xstack/plan/TopologyInference.h"

namespace xstack {
namespace {

InputFile file(InputKind kind, int64_t id, int64_t gpu, std::string path) {
  InputFile f;
  f.kind = kind;
  f.id = id;
  f.gpu = gpu;
  f.path = std::move(path);
  return f;
}

// A job of `trainers` x `P` with every profile, time, dcgm and net file.
std::vector<InputFile> job(int64_t trainers, int64_t P, bool withTime = true) {
  std::vector<InputFile> fs;
  for (int64_t t = 0; t < trainers; ++t) {
    for (int64_t g = 0; g < P; ++g) {
      fs.push_back(file(InputKind::Profile, t * P + g, 0,
                        "/d/profile/profile_rank." + std::to_string(t * P + g)));
      if (withTime)
        fs.push_back(file(InputKind::Time, t, g,
                          "/d/time/time.txt." + std::to_string(g) + "." + std::to_string(t)));
    }
    fs.push_back(file(InputKind::Dcgm, t, 0, "/d/dcgm/dcgm." + std::to_string(t)));
    fs.push_back(file(InputKind::Net, t, 0, "/d/net/net." + std::to_string(t)));
  }
  return fs;
}

bool contains(const std::string& s, const std::string& part) {
  return s.find(part) != std::string::npos;
}

TEST(TopologyInference, TimeFileNamesGiveP) {
  TopologyEvidence ev{job(3, 2), {0, 1, 2, 3, 4, 5, 6, 7}, std::nullopt};  // DCGM ids ignored
  GpusPerTrainer r = inferGpusPerTrainer(ev);
  EXPECT_EQ(r.value, 2);
  EXPECT_EQ(r.source, GpusPerTrainerSource::TimeFiles);
  EXPECT_TRUE(r.contradiction.empty());
  ASSERT_EQ(r.notes.size(), 1u);
  EXPECT_TRUE(contains(r.notes[0], "time file names")) << r.notes[0];
  EXPECT_TRUE(r.warnings.empty());
}

TEST(TopologyInference, DcgmGpuIdsWhenNoTimeFiles) {
  TopologyEvidence ev{job(2, 4, false), {3, 0, 2, 1, 3}, std::nullopt};
  GpusPerTrainer r = inferGpusPerTrainer(ev);
  EXPECT_EQ(r.value, 4);
  EXPECT_EQ(r.source, GpusPerTrainerSource::DcgmGpuIds);
  ASSERT_EQ(r.notes.size(), 1u);
  EXPECT_TRUE(contains(r.notes[0], "DCGM")) << r.notes[0];
}

// One row of a GPU id far above the others (under the id bound) must not make every
// trainer 1001 ranks wide: ids with gaps are a usage error naming the ids and files.
TEST(TopologyInference, DcgmGpuIdsWithGapsAreAnError) {
  TopologyEvidence ev{job(2, 8, false), {0, 1, 2, 3, 4, 5, 6, 7, 1000}, std::nullopt};
  GpusPerTrainer r = inferGpusPerTrainer(ev);
  EXPECT_TRUE(contains(r.contradiction, "GPU ids 0..7, 1000")) << r.contradiction;
  EXPECT_TRUE(contains(r.contradiction, "dcgm.0, dcgm.1 in /d/dcgm")) << r.contradiction;
  EXPECT_TRUE(contains(r.contradiction, "Give --gpus-per-trainer")) << r.contradiction;
  EXPECT_TRUE(r.notes.empty());

  ev.dcgmGpuIds = {1000};  // alone
  EXPECT_TRUE(contains(inferGpusPerTrainer(ev).contradiction, "GPU ids 1000:"));
  ev.dcgmGpuIds = {0, 2, 3};
  EXPECT_TRUE(contains(inferGpusPerTrainer(ev).contradiction, "GPU ids 0, 2..3:"));
  ev.dcgmGpuIds = {0};  // one GPU per node is dense
  EXPECT_TRUE(inferGpusPerTrainer(ev).contradiction.empty());
  ev.dcgmGpuIds = {0, 1, 2, 3, 4, 5, 6, 7, 1000};
  ev.explicitP = 8;  // given, the ids are not asked
  EXPECT_TRUE(inferGpusPerTrainer(ev).contradiction.empty());
}

TEST(TopologyInference, EightAssumedWithANote) {
  std::vector<InputFile> fs = {file(InputKind::Profile, 0, 0, "/d/profile/p.0")};
  GpusPerTrainer r = inferGpusPerTrainer({fs, {}, std::nullopt});
  EXPECT_EQ(r.value, 8);
  EXPECT_EQ(r.source, GpusPerTrainerSource::Assumed);
  ASSERT_EQ(r.notes.size(), 1u);
  EXPECT_TRUE(contains(r.notes[0], "8 assumed")) << r.notes[0];
}

TEST(TopologyInference, GivenAndAgreeingIsSilent) {
  GpusPerTrainer r = inferGpusPerTrainer({job(3, 2), {}, 2});
  EXPECT_EQ(r.value, 2);
  EXPECT_EQ(r.source, GpusPerTrainerSource::Option);
  EXPECT_TRUE(r.contradiction.empty());
  EXPECT_TRUE(r.notes.empty());
  EXPECT_TRUE(r.warnings.empty());
}

TEST(TopologyInference, GivenTooSmallForAGpuIndexIsAContradiction) {
  GpusPerTrainer r = inferGpusPerTrainer({job(2, 4), {}, 2});
  ASSERT_FALSE(r.contradiction.empty());
  EXPECT_TRUE(contains(r.contradiction, "--gpus-per-trainer 2 ")) << r.contradiction;
  EXPECT_TRUE(contains(r.contradiction, "time.txt.")) << r.contradiction;
  EXPECT_TRUE(contains(r.contradiction, "/d/time")) << r.contradiction;
  EXPECT_TRUE(contains(r.contradiction, "imply --gpus-per-trainer 4")) << r.contradiction;
}

TEST(TopologyInference, GivenTooLargeStrandsTimeFilesAndProfiles) {
  // 2 trainers x 2 GPUs read with P = 8: time.txt.<g>.1 -> ranks 8, 9 (no profile), and
  // profiles 2, 3 have no time file.
  GpusPerTrainer r = inferGpusPerTrainer({job(2, 2), {}, 8});
  ASSERT_FALSE(r.contradiction.empty());
  EXPECT_TRUE(contains(r.contradiction, "--gpus-per-trainer 8 ")) << r.contradiction;
  EXPECT_TRUE(contains(r.contradiction, "time.txt.0.1")) << r.contradiction;
  EXPECT_TRUE(contains(r.contradiction, "imply --gpus-per-trainer 2")) << r.contradiction;
  EXPECT_TRUE(r.warnings.empty());  // no stray-file warnings on top of the error
}

TEST(TopologyInference, GivenLargerButTimeFilesOfOneGpuOnlyIsNoContradiction) {
  // Only GPU 0 wrote time files: they imply 1, but P = 2 fits them as well as 1 does not.
  std::vector<InputFile> fs;
  for (const InputFile& f : job(2, 2))
    if (f.kind != InputKind::Time || f.gpu == 0) fs.push_back(f);
  GpusPerTrainer r = inferGpusPerTrainer({fs, {}, 2});
  EXPECT_TRUE(r.contradiction.empty()) << r.contradiction;
  EXPECT_EQ(r.value, 2);
}

TEST(TopologyInference, InferredFromPartialTimeFilesSaysProfilesLackThem) {
  std::vector<InputFile> fs;
  for (const InputFile& f : job(2, 2))
    if (f.kind != InputKind::Time || f.gpu == 0) fs.push_back(f);
  GpusPerTrainer r = inferGpusPerTrainer({fs, {}, std::nullopt});
  EXPECT_EQ(r.value, 1);
  ASSERT_EQ(r.notes.size(), 2u);
  EXPECT_TRUE(contains(r.notes[1], "have no time file")) << r.notes[1];
}

// A stray time file naming a GPU under the bound (1023) but of no profiled rank does
// not make one trainer of 1001 GPUs: rc 2 naming it, the value it implies, and the
// value the other time files imply.
TEST(TopologyInference, AStrayTimeFileBesideAJobIsAnError) {
  std::vector<InputFile> fs = job(2, 2);
  fs.push_back(file(InputKind::Time, 0, 1000, "/d/time/time.txt.1000.0"));
  GpusPerTrainer r = inferGpusPerTrainer({fs, {}, std::nullopt});
  ASSERT_FALSE(r.contradiction.empty());
  EXPECT_TRUE(contains(r.contradiction,
                       "imply --gpus-per-trainer 1001 (time.txt.1000.0 in "
                       "/d/time name GPU 1000)"))
      << r.contradiction;
  EXPECT_TRUE(contains(r.contradiction,
                       "2 profiles (profile_rank.2, profile_rank.3 in "
                       "/d/profile) have no time file"))
      << r.contradiction;
  EXPECT_TRUE(contains(r.contradiction, "the other time files imply --gpus-per-trainer 2"))
      << r.contradiction;
  EXPECT_TRUE(contains(r.contradiction, "Move the stray time files")) << r.contradiction;
  EXPECT_TRUE(r.notes.empty());
  // Given, the option is checked as before: 2 is contradicted by the stray file.
  EXPECT_TRUE(contains(inferGpusPerTrainer({fs, {}, 2}).contradiction, "time.txt.1000.0"));
}

TEST(TopologyInference, ALoneTimeFileOfNoProfiledRankIsAnError) {
  std::vector<InputFile> fs = job(1, 4, false);
  fs.push_back(file(InputKind::Time, 0, 1000, "/d/time/time.txt.1000.0"));
  GpusPerTrainer r = inferGpusPerTrainer({fs, {}, std::nullopt});
  EXPECT_TRUE(contains(r.contradiction, "imply --gpus-per-trainer 1001")) << r.contradiction;
  EXPECT_TRUE(contains(r.contradiction, "no other time file names a GPU")) << r.contradiction;
  // Given, the same value is accepted (the nodes may have that many GPUs).
  GpusPerTrainer given = inferGpusPerTrainer({fs, {}, 1001});
  EXPECT_TRUE(given.contradiction.empty()) << given.contradiction;
  EXPECT_EQ(given.value, 1001);
}

TEST(TopologyInference, TheLastGpusProfilesMissingIsNoStrayFile) {
  // 8 GPUs per node; ranks 7 and 15 wrote no profile and rank 3 no time file: the
  // files naming GPU 7 belong to no profile, but 7 fits worse than 8.
  std::vector<InputFile> fs;
  for (const InputFile& f : job(2, 8))
    if (!(f.kind == InputKind::Profile && f.id % 8 == 7) &&
        !(f.kind == InputKind::Time && f.id == 0 && f.gpu == 3))
      fs.push_back(f);
  GpusPerTrainer r = inferGpusPerTrainer({fs, {}, std::nullopt});
  EXPECT_TRUE(r.contradiction.empty()) << r.contradiction;
  EXPECT_EQ(r.value, 8);
  // Time files of other ranks than the profiles' (both sides mismatch) with no profile at
  // all is no evidence of a stray file either.
  std::vector<InputFile> timesOnly;
  for (const InputFile& f : job(2, 8))
    if (f.kind == InputKind::Time) timesOnly.push_back(f);
  EXPECT_TRUE(inferGpusPerTrainer({timesOnly, {}, std::nullopt}).contradiction.empty());
}

TEST(TopologyInference, DcgmAndNetOfATrainerWithoutProfilesAreNamed) {
  std::vector<InputFile> fs = job(2, 2);
  fs.push_back(file(InputKind::Dcgm, 5, 0, "/d/dcgm/dcgm.5"));
  fs.push_back(file(InputKind::Net, 7, 0, "/d/net/net.7"));
  GpusPerTrainer r = inferGpusPerTrainer({fs, {}, std::nullopt});
  EXPECT_EQ(r.value, 2);
  ASSERT_EQ(r.warnings.size(), 2u);
  EXPECT_TRUE(contains(r.warnings[0], "/d/dcgm/dcgm.5")) << r.warnings[0];
  EXPECT_TRUE(contains(r.warnings[0], "trainer 5")) << r.warnings[0];
  EXPECT_TRUE(contains(r.warnings[1], "/d/net/net.7")) << r.warnings[1];
}

TEST(TopologyInference, TimeFilesImplyLargestGpuPlusOne) {
  EXPECT_EQ(gpusPerTrainerFromTimeFiles(job(1, 3)), 3);
  EXPECT_EQ(gpusPerTrainerFromTimeFiles(job(1, 3, false)), std::nullopt);
}

// The pure parts of the evidence: DCGM ids are needed only without the
// option and without time files; each rank reads the DCGM files it is the
// reader of; the gathered ids are merged ascending without repeats.
TEST(TopologyEvidence, WhenDcgmIdsAreNeededAndHowTheyMerge) {
  Plan plan;
  for (const InputFile& f : job(2, 2, false)) plan.files.push_back({f, f.id == 0 ? 0 : 1, "h", {}});
  TopologyEvidence ev = evidenceOfPlan(plan, std::nullopt);
  EXPECT_EQ(ev.files.size(), plan.files.size());
  EXPECT_TRUE(ev.dcgmGpuIds.empty());
  EXPECT_TRUE(needsDcgmGpuIds(ev));
  EXPECT_FALSE(needsDcgmGpuIds(evidenceOfPlan(plan, 4)));
  EXPECT_EQ(dcgmFilesReadBy(plan, 1), std::vector<std::string>{"/d/dcgm/dcgm.1"});
  EXPECT_EQ(mergeGpuIds({encodeGpuIds({3, 0}), encodeGpuIds({}), encodeGpuIds({1, 3})}).value(),
            (std::vector<int64_t>{0, 1, 3}));
  // An id no parser gives (beyond 0..1023, negative) never reaches the inference.
  EXPECT_EQ(mergeGpuIds({encodeGpuIds({1, 1024, INT64_MAX}), encodeGpuIds({-3, 5})}).value(),
            (std::vector<int64_t>{1, 5}));
  Plan timed;
  for (const InputFile& f : job(1, 2)) timed.files.push_back({f, 0, "h", {}});
  EXPECT_FALSE(needsDcgmGpuIds(evidenceOfPlan(timed, std::nullopt)));
}

// A gathered id message that is cut short, garbled or of the old text form is
// an Error naming the rank it came from, never a throw.
TEST(TopologyEvidence, ABadGpuIdMessageIsAnErrorNamingItsRank) {
  const std::string good = encodeGpuIds({0, 1, 700});
  for (size_t n = 0; n < good.size(); ++n) {
    const auto merged = mergeGpuIds({good, good.substr(0, n)});
    ASSERT_FALSE(merged.ok()) << n;
    EXPECT_NE(merged.error().message.find("MPI rank 1"), std::string::npos)
        << merged.error().message;
  }
  EXPECT_FALSE(mergeGpuIds({"-3 5 "}).ok());
  for (size_t i = 0; i < good.size(); ++i) {
    std::string bad = good;
    bad[i] = static_cast<char>(bad[i] ^ 0x80);
    EXPECT_NO_THROW((void)mergeGpuIds({bad})) << i;
  }
}

}  // namespace
}  // namespace xstack
