// A dcgm/net/time file with no usable line, or a dcgm/net/time
// path that exists but is not a folder, is a bad input (rc 3, named), never
// noise with rc 0; an absent folder stays rc 0. Nothing else in the outputs
// changes: the traces equal those of a run without the bad inputs, apart
// from otherData's problems and warnings.
#include <gtest/gtest.h>

#include <filesystem>
#include <nlohmann/json.hpp>
#include <random>
#include <sstream>

#include "../TempDirTest.h"
#include "TraceChecks.h"
#include "xstack/cmd/cli/Cli.h"
#include "xstack/cmd/report/Report.h"
#include "xstack/cmd/synth/Synth.h"
#include "xstack/core/Topology.h"

namespace xstack {
namespace {

namespace fs = std::filesystem;
using ojson = nlohmann::ordered_json;
using namespace testing_support;

class JunkInputsTest : public TempDirTest {
 protected:
  void SetUp() override {
    TempDirTest::SetUp();
    SynthOptions so;
    so.outDir = (dir_ / "data").string();
    so.trainers = 2;
    so.gpusPerTrainer = 2;
    so.steps = 1;
    so.opsPerStep = 10;
    so.seed = 3;
    ASSERT_EQ(runSynth(so), 0);
  }
  int run(const std::string& out) {
    ReportOptions o;
    o.dataDir = (dir_ / "data").string();
    o.outDir = (dir_ / out).string();
    o.topology = Topology{2, 2, 2};
    o.progress = false;
    SerialComm comm;
    return runReport(comm, o);
  }
  // Every trace of `a` and `b`, without otherData's problems and warnings.
  void expectSameTracesBesidesProblems(const std::string& a, const std::string& b) {
    auto fa = traceFilesIn(dir_ / a), fb = traceFilesIn(dir_ / b);
    ASSERT_EQ(fa.size(), fb.size());
    for (const auto& [name, bytes] : fa) {
      SCOPED_TRACE(name);
      ASSERT_TRUE(fb.count(name));
      ojson x = ojson::parse(bytes), y = ojson::parse(fb[name]);
      for (ojson* j : {&x, &y}) {
        (*j)["otherData"].erase("problems");
        (*j)["otherData"].erase("warnings");
        (*j)["otherData"].erase("warning_examples");
      }
      EXPECT_TRUE(x == y);
    }
  }
  std::vector<ojson> problemsIn(const std::string& out) {
    std::vector<ojson> all;
    for (const auto& [name, bytes] : traceFilesIn(dir_ / out)) {
      const ojson j = ojson::parse(bytes);
      for (const ojson& p : j["otherData"]["problems"]) all.push_back(p);
    }
    return all;
  }
};

TEST_F(JunkInputsTest, FilesWithNoUsableLineAreFailedInputs) {
  std::string random(5000, '\0');
  std::mt19937 rng(7);
  for (char& c : random) c = static_cast<char>(rng());
  spit(dir_ / "data" / "dcgm" / "dcgm.1", random);
  spit(dir_ / "data" / "net" / "net.0", "hello\nthis is not a net log\n");
  spit(dir_ / "data" / "time" / "time.txt.1.1", "garbage\n\x01\x02\n");
  EXPECT_EQ(run("junk"), kExitPartial);
  std::set<std::string> failed;
  for (const ojson& p : problemsIn("junk")) {
    EXPECT_EQ(p["status"], "failed") << p.dump();
    failed.insert(p["file"].get<std::string>());
  }
  EXPECT_EQ(failed, (std::set<std::string>{"dcgm.1", "net.0", "time.txt.1.1"}));

  for (const char* f : {"dcgm/dcgm.1", "net/net.0", "time/time.txt.1.1"})
    fs::remove(dir_ / "data" / f);
  EXPECT_EQ(run("absent"), kExitOk);
  expectSameTracesBesidesProblems("junk", "absent");
}

TEST_F(JunkInputsTest, AnEmptyFileHasNoUsableLine) {
  spit(dir_ / "data" / "dcgm" / "dcgm.0", "");
  EXPECT_EQ(run("out"), kExitPartial);
  auto problems = problemsIn("out");
  ASSERT_FALSE(problems.empty());
  EXPECT_EQ(problems[0]["file"], "dcgm.0");
}

TEST_F(JunkInputsTest, ATimeFileWithOnlyAStartLineIsUsable) {
  spit(dir_ / "data" / "time" / "time.txt.0.0", "start time: 1700000000.5\n");
  EXPECT_EQ(run("out"), kExitOk);
}

TEST_F(JunkInputsTest, APathThatIsNotAFolderIsABadInputAnAbsentOneIsNot) {
  for (const char* kind : {"dcgm", "net", "time"}) {
    SCOPED_TRACE(kind);
    fs::path d = dir_ / "data" / kind, saved = dir_ / (std::string("saved_") + kind);
    fs::rename(d, saved);
    EXPECT_EQ(run(std::string("absent_") + kind), kExitOk);
    spit(d, "a file where a folder should be\n");
    EXPECT_EQ(run(std::string("file_") + kind), kExitPartial);
    // Byte-identical traces: the bad path is named on stderr only.
    expectSameFiles(filesIn(dir_ / (std::string("file_") + kind)),
                    filesIn(dir_ / (std::string("absent_") + kind)));
    fs::remove(d);
    fs::rename(saved, d);
  }
}

}  // namespace
}  // namespace xstack

namespace xstack {
namespace {

// A rank suffix of 18 digits. The missing ranks are listed up to
// kMaxMissingRanks and the cut is said (otherData and stderr); the console
// line stays short (ranges, at most 20 echoed).
// The largest plausible rank (core/Topology.h) gives short lines and a said cut; an
// 18-digit one is beyond it: skipped and named, not used.
TEST_F(JunkInputsTest, AHugeRankGivesShortLinesAndASaidCut) {
  fs::copy_file(dir_ / "data" / "profile" / "profile_rank.0",
                dir_ / "data" / "profile" / ("profile_rank." + std::to_string(kMaxRankId)));
  fs::copy_file(dir_ / "data" / "profile" / "profile_rank.0",
                dir_ / "data" / "profile" / "profile_rank.123456789012345678");
  testing::internal::CaptureStderr();
  const int rc = run("out");
  const std::string err = testing::internal::GetCapturedStderr();
  EXPECT_EQ(rc, kExitOk) << err;
  EXPECT_NE(err.find("profile_rank.123456789012345678: implausible rank id 123456789012345678 in "
                     "the name (above 1073742847): not used"),
            std::string::npos)
      << err;
  std::istringstream lines(err);
  for (std::string line; std::getline(lines, line);) EXPECT_LT(line.size(), 1000u) << line;
  EXPECT_NE(err.find("no profile for ranks 4-100003 (and possibly more: the list stops at 100000)"),
            std::string::npos)
      << err;
  bool cutSaid = false;
  for (const auto& [name, bytes] : traceFilesIn(dir_ / "out")) {
    ojson j = ojson::parse(bytes);
    if (j["otherData"].contains("missing_ranks_cut_after")) {
      cutSaid = true;
      EXPECT_EQ(j["otherData"]["missing_ranks_cut_after"], 100003);
    }
  }
  EXPECT_TRUE(cutSaid);
}

}  // namespace
}  // namespace xstack
