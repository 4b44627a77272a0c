#include "xstack/input/InputFile.h"

#include <gtest/gtest.h>

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
  for (const char* name : {"x", "x.", "x.-1", "x.1a", "x.+1", "x. 1", "x.1 ", "x.1.", "x.0x10", "",
                           "x.1e3", "x.１"}) {
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
  for (const char* name : {"time.txt", "time.txt.3", "3", "time.txt.3.", "time.txt..7", "time.txt.a.7",
                           "time.txt.3.7b", "time.txt.-3.7", ".7", ""}) {
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

}  // namespace
}  // namespace xstack
