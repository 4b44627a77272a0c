// Interned names: one id per distinct string, each escaped exactly as
// appendJsonString does, with the fixes counted per use by the renderer.
#include <gtest/gtest.h>

#include <random>
#include <string>
#include <vector>

#include "xstack/sink/EscapedNameTable.h"

namespace xstack {
namespace {

TEST(EscapedNameTable, SameTextSameIdWhereverItLives) {
  EscapedNameTable t;
  std::string a = "matmul_v2_grad", b = "matmul_v2_grad", c = "matmul_v2";
  uint32_t ia = t.intern(a), ib = t.intern(b), ic = t.intern(c);
  EXPECT_EQ(ia, ib);  // different buffers, same text
  EXPECT_NE(ia, ic);
  EXPECT_EQ(t.size(), 2u);
  EXPECT_EQ(t.escaped(ia), "\"matmul_v2_grad\"");
  EXPECT_EQ(t.escaped(ic), "\"matmul_v2\"");
}

// A streaming source reuses its buffer: the table keeps its own copies.
TEST(EscapedNameTable, KeepsCopiesOfStringsThatDieAfterTheCall) {
  EscapedNameTable t;
  std::string buffer = "first name";
  const uint32_t a = t.intern(buffer);
  buffer.assign(200000, 'x');  // reallocates and overwrites
  const uint32_t b = t.intern(buffer);
  buffer = "first name";
  EXPECT_EQ(t.intern(buffer), a);
  EXPECT_EQ(t.raw(a), "first name");
  EXPECT_EQ(t.raw(b), std::string(200000, 'x'));
  t.clear();
  buffer = "again";
  EXPECT_EQ(t.intern(buffer), 0u);
  EXPECT_EQ(t.raw(0), "again");
}

TEST(EscapedNameTable, EscapesLikeAppendJsonStringAndKeepsItsStats) {
  EscapedNameTable t;
  std::string odd = std::string("q\"\\\x01\xff", 5), empty;
  uint32_t i = t.intern(odd), e = t.intern(empty);
  std::string want;
  JsonTextStats stats;
  appendJsonString(want, odd, stats);
  EXPECT_EQ(t.escaped(i), want);
  EXPECT_EQ(t.stats(i).invalidUtf8, stats.invalidUtf8);
  EXPECT_EQ(t.stats(i).controlChars, stats.controlChars);
  EXPECT_EQ(t.escaped(e), "\"\"");
  EXPECT_EQ(t.stats(e).invalidUtf8, 0u);
}

// Many strings, many collisions of the quick hash's sampled bytes (same
// length, same start, middle and end): every id still maps back to its text.
TEST(EscapedNameTable, ManyStringsThroughGrowthAndSampledByteCollisions) {
  std::vector<std::string> keep;
  std::mt19937_64 rng(7);
  for (int i = 0; i < 20000; ++i) {
    std::string s(40, 'x');
    s[3 + i % 5] = static_cast<char>('a' + i % 26);  // between sampled words
    s[11 + (i / 5) % 7] = static_cast<char>('a' + (i / 130) % 26);
    s[25 + (i / 7) % 3] = static_cast<char>('0' + rng() % 10);
    keep.push_back(i % 3 ? s : std::string(i % 17, 'k') + std::to_string(i));
  }
  EscapedNameTable t;
  std::vector<uint32_t> ids;
  for (const auto& s : keep) ids.push_back(t.intern(s));
  for (size_t i = 0; i < keep.size(); ++i) {
    std::string want;
    appendJsonString(want, keep[i]);
    ASSERT_EQ(t.escaped(ids[i]), want) << i;
    ASSERT_EQ(t.intern(keep[i]), ids[i]) << i;
  }
  t.clear();
  EXPECT_EQ(t.size(), 0u);
  EXPECT_EQ(t.intern(keep[5]), 0u);
}

}  // namespace
}  // namespace xstack
