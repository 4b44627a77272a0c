#include <gtest/gtest.h>
#include <sys/stat.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>

#include "../../TempDirTest.h"
#include "xstack/core/Topology.h"
#include "xstack/event/InputFile.h"
#include "xstack/source/paddle/FolderLayout.h"

namespace xstack {
namespace {

TEST(InputFile, TrailingIdIsTheIntegerAfterTheLastDot) {
  EXPECT_EQ(trailingId("a.b.12"), 12);
  EXPECT_EQ(trailingId("profile_rank.0"), 0);
  EXPECT_EQ(trailingId("x.007"), 7);
  EXPECT_EQ(trailingId(".5"), 5);
  EXPECT_EQ(trailingId("p.123456789012345678"), 123456789012345678);
}

TEST(InputFile, TrailingIdRejectsNamesWithoutAPlainInteger) {
  for (const char* name :
       {"x", "x.", "x.-1", "x.1a", "x.+1", "x. 1", "x.1 ", "x.1.", "x.0x10", "", "x.1e3", "x.１"}) {
    EXPECT_FALSE(trailingId(name).has_value()) << name;
  }
}

TEST(InputFile, TrailingIdNeverOverflows) {
  // Far past int64: refused, not wrapped around.
  EXPECT_FALSE(trailingId("p.99999999999999999999999").has_value());
  auto v = trailingId("p.999999999999999999");  // 18 digits
  ASSERT_TRUE(v.has_value());
  EXPECT_EQ(*v, 999999999999999999);
}

TEST(InputFile, TimeFileIdsAreGpuThenTrainer) {
  auto ids = timeFileIds("time.txt.3.7");
  ASSERT_TRUE(ids.has_value());
  EXPECT_EQ(ids->first, 3);
  EXPECT_EQ(ids->second, 7);
  EXPECT_EQ(timeFileIds("anything.0.12"), std::make_pair(int64_t{0}, int64_t{12}));
  EXPECT_EQ(timeFileIds(".1.2"), std::make_pair(int64_t{1}, int64_t{2}));
}

TEST(InputFile, TimeFileIdsRejectsNamesWithoutTwoIds) {
  for (const char* name : {"time.txt", "time.txt.3", "3", "time.txt.3.", "time.txt..7",
                           "time.txt.a.7", "time.txt.3.7b", "time.txt.-3.7", ".7", ""}) {
    EXPECT_FALSE(timeFileIds(name).has_value()) << name;
  }
}

TEST(InputFile, KindNamesRoundTrip) {
  for (InputKind k : {InputKind::Profile, InputKind::Dcgm, InputKind::Net, InputKind::Time}) {
    auto back = kindFromName(kindName(k));
    ASSERT_TRUE(back.has_value());
    EXPECT_EQ(*back, k);
  }
  EXPECT_STREQ(kindName(InputKind::Profile), "profile");
  EXPECT_STREQ(kindName(InputKind::Dcgm), "dcgm");
  EXPECT_STREQ(kindName(InputKind::Net), "net");
  EXPECT_STREQ(kindName(InputKind::Time), "time");
  EXPECT_FALSE(kindFromName("Profile").has_value());
  EXPECT_FALSE(kindFromName("").has_value());
}

TEST(InputFile, SameSubjectComparesKindIdAndGpuOnly) {
  InputFile a{InputKind::Time, 3, 1, "/a/time.txt.1.3", 10};
  InputFile b{InputKind::Time, 3, 1, "/b/other.1.3", 99};
  EXPECT_TRUE(a.sameSubject(b));
  b.gpu = 2;
  EXPECT_FALSE(a.sameSubject(b));
  InputFile p{InputKind::Profile, 3, 0, "p.3", 1};
  InputFile d{InputKind::Dcgm, 3, 0, "d.3", 1};
  EXPECT_FALSE(p.sameSubject(d));
}

// ---- listing a data set: InputFiles from folder entries

namespace fs = std::filesystem;

class InputListingTest : public TempDirTest {
 protected:
  void touch(const fs::path& rel, size_t bytes = 0) {
    fs::create_directories((dir_ / rel).parent_path());
    std::ofstream(dir_ / rel) << std::string(bytes, 'x');
  }
};

TEST_F(InputListingTest, ResolvesTheFourFoldersWithOverrides) {
  InputDirs o;
  o.dcgm = "/elsewhere/dcgm";
  InputDirs d = resolveInputDirs("/data", o);
  EXPECT_EQ(d.profile, "/data/profile");
  EXPECT_EQ(d.dcgm, "/elsewhere/dcgm");
  EXPECT_EQ(d.net, "/data/net");
  EXPECT_EQ(d.time, "/data/time");
  InputDirs none = resolveInputDirs("", InputDirs{"/p", "", "", ""});
  EXPECT_EQ(none.profile, "/p");
  EXPECT_TRUE(none.dcgm.empty());
}

TEST_F(InputListingTest, ListsIdsSizesAndSkipsNamesWithoutIds) {
  touch("profile/profile_rank.10", 7);
  touch("profile/profile_rank.2", 3);
  touch("profile/README");
  touch("profile/.profile_rank.3.tmp");  // hidden: ignored silently
  touch("dcgm/dcgm.1", 5);
  touch("net/net.0");
  touch("time/time.txt.3.1");
  touch("time/time.txt.1");  // only one id
  auto l = listInputs(resolveInputDirs(dir_.string(), {}));
  EXPECT_TRUE(l.profileDirFound);
  ASSERT_EQ(l.files.size(), 5u);
  EXPECT_EQ(l.files[0].kind, InputKind::Profile);
  EXPECT_EQ(l.files[0].id, 2);
  EXPECT_EQ(l.files[0].bytes, 3u);
  EXPECT_EQ(l.files[1].id, 10);
  EXPECT_EQ(l.files[1].bytes, 7u);
  EXPECT_EQ(l.files[2].kind, InputKind::Dcgm);
  EXPECT_EQ(l.files[2].id, 1);
  EXPECT_EQ(l.files[3].kind, InputKind::Net);
  EXPECT_EQ(l.files[4].kind, InputKind::Time);
  EXPECT_EQ(l.files[4].id, 1);
  EXPECT_EQ(l.files[4].gpu, 3);
  EXPECT_EQ(l.files[4].path, (dir_ / "time" / "time.txt.3.1").string());
  ASSERT_EQ(l.skipped.size(), 2u);
  EXPECT_EQ(l.skipped[0], (dir_ / "profile" / "README").string() +
                              ": name has no integer suffix after the last dot");
  EXPECT_EQ(l.skipped[1],
            (dir_ / "time" / "time.txt.1").string() + ": name has no .<gpu>.<trainer> suffix");
}

// Ids no real job has (a stray time.txt.999999999999999999.11, a rank beyond
// 2^30) are skipped with the file named; the bounds themselves are kept.
TEST_F(InputListingTest, ImplausibleIdsAreSkippedNamingTheFile) {
  touch("profile/profile_rank." + std::to_string(kMaxRankId));
  touch("profile/profile_rank." + std::to_string(kMaxRankId + 1));
  touch("dcgm/dcgm." + std::to_string(kMaxTrainerId + 1));
  touch("net/net.999999999999999999");
  touch("time/time.txt.1023.1048576");
  touch("time/time.txt.999999999999999999.11");
  touch("time/time.txt.1024.0");
  touch("time/time.txt.0.1048577");
  auto l = listInputs(resolveInputDirs(dir_.string(), {}));
  ASSERT_EQ(l.files.size(), 2u);
  EXPECT_EQ(l.files[0].id, kMaxRankId);
  EXPECT_EQ(l.files[1].gpu, 1023);
  EXPECT_EQ(l.files[1].id, 1048576);
  ASSERT_EQ(l.skipped.size(), 6u);
  const std::string rankLine =
      (dir_ / "profile" / ("profile_rank." + std::to_string(kMaxRankId + 1))).string() +
      ": implausible rank id " + std::to_string(kMaxRankId + 1) + " in the name (above " +
      std::to_string(kMaxRankId) + "): not used";
  std::string all;
  for (const std::string& s : l.skipped) {
    EXPECT_NE(s.find(": implausible "), std::string::npos) << s;
    all += s + "\n";
  }
  EXPECT_NE(all.find(rankLine + "\n"), std::string::npos) << all;
  for (const char* name : {"dcgm.1048577:", "net.999999999999999999:",
                           "time.txt.999999999999999999.11: implausible GPU id",
                           "time.txt.1024.0: implausible GPU id 1024",
                           "time.txt.0.1048577: implausible trainer id 1048577"})
    EXPECT_NE(all.find(name), std::string::npos) << name;
}

TEST_F(InputListingTest, MissingFoldersAreNotErrors) {
  touch("dcgm/dcgm.0");
  auto l = listInputs(resolveInputDirs(dir_.string(), {}));
  EXPECT_FALSE(l.profileDirFound);
  EXPECT_EQ(l.files.size(), 1u);
  EXPECT_TRUE(l.skipped.empty());
  auto none = listInputs(InputDirs{});
  EXPECT_TRUE(none.files.empty());
}

TEST_F(InputListingTest, NonRegularEntriesAreListedWithoutOpeningThem) {
  fs::create_directories(dir_ / "profile");
  ASSERT_EQ(::mkfifo((dir_ / "profile" / "fifo.4").c_str(), 0600), 0);
  fs::create_directories(dir_ / "profile" / "folder.5");
  auto l = listInputs(resolveInputDirs(dir_.string(), {}));
  ASSERT_EQ(l.files.size(), 2u);  // read later, and failed then, by one rank
  EXPECT_EQ(l.files[0].id, 4);
  EXPECT_EQ(l.files[0].bytes, 0u);
  EXPECT_EQ(l.files[1].id, 5);
}

}  // namespace
}  // namespace xstack
