// Interned names: one id per distinct string, raw; and the JSON sink's cache
// of their escaped text (JsonNameCache), exactly as appendJsonString writes
// it, with the fixes counted per use.
#include <gtest/gtest.h>

#include <random>
#include <string>
#include <vector>

#include "xstack/render/NameTable.h"
#include "xstack/render/json/JsonNameCache.h"

namespace xstack {
namespace {

TEST(NameTable, SameTextSameIdWhereverItLives) {
  NameTable t;
  std::string a = "matmul_v2_grad", b = "matmul_v2_grad", c = "matmul_v2";
  uint32_t ia = t.intern(a), ib = t.intern(b), ic = t.intern(c);
  EXPECT_EQ(ia, ib);  // different buffers, same text
  EXPECT_NE(ia, ic);
  EXPECT_EQ(t.size(), 2u);
  EXPECT_EQ(t.raw(ia), "matmul_v2_grad");
  EXPECT_EQ(t.raw(ic), "matmul_v2");
}

// A streaming source reuses its buffer: the table keeps its own copies.
TEST(NameTable, KeepsCopiesOfStringsThatDieAfterTheCall) {
  NameTable t;
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

TEST(JsonNameCache, EscapesLikeAppendJsonStringAndCountsFixesPerUse) {
  NameTable t;
  std::string odd = std::string("q\"\\\x01\xff", 5), empty;
  uint32_t i = t.intern(odd), e = t.intern(empty);
  JsonNameCache cache;
  cache.reset(t);
  std::string want;
  JsonTextStats stats, fixed;
  appendJsonString(want, odd, stats);
  EXPECT_EQ(cache.text(i, fixed), want);
  EXPECT_EQ(cache.text(i, fixed), want);  // escaped once, counted per use
  EXPECT_EQ(fixed.invalidUtf8, 2 * stats.invalidUtf8);
  EXPECT_EQ(fixed.controlChars, 2 * stats.controlChars);
  JsonTextStats none;
  EXPECT_EQ(cache.text(e, none), "\"\"");
  EXPECT_EQ(none.invalidUtf8, 0u);
  // A name interned after the reset is found too; a reset forgets the text.
  const uint32_t late = t.intern("late");
  EXPECT_EQ(cache.text(late, none), "\"late\"");
  t.clear();
  const uint32_t again = t.intern("other");
  cache.reset(t);
  EXPECT_EQ(cache.text(again, none), "\"other\"");
}

// Many strings, many collisions of the quick hash's sampled bytes (same
// length, same start, middle and end): every id still maps back to its text.
TEST(NameTable, ManyStringsThroughGrowthAndSampledByteCollisions) {
  std::vector<std::string> keep;
  std::mt19937_64 rng(7);
  for (int i = 0; i < 20000; ++i) {
    std::string s(40, 'x');
    s[3 + i % 5] = static_cast<char>('a' + i % 26);  // between sampled words
    s[11 + (i / 5) % 7] = static_cast<char>('a' + (i / 130) % 26);
    s[25 + (i / 7) % 3] = static_cast<char>('0' + rng() % 10);
    keep.push_back(i % 3 ? s : std::string(i % 17, 'k') + std::to_string(i));
  }
  NameTable t;
  std::vector<uint32_t> ids;
  for (const auto& s : keep) ids.push_back(t.intern(s));
  JsonNameCache cache;
  cache.reset(t);
  JsonTextStats fixed;
  for (size_t i = 0; i < keep.size(); ++i) {
    std::string want;
    appendJsonString(want, keep[i]);
    ASSERT_EQ(t.raw(ids[i]), keep[i]) << i;
    ASSERT_EQ(cache.text(ids[i], fixed), want) << i;
    ASSERT_EQ(t.intern(keep[i]), ids[i]) << i;
  }
  t.clear();
  EXPECT_EQ(t.size(), 0u);
  EXPECT_EQ(t.intern(keep[5]), 0u);
}

}  // namespace
}  // namespace xstack
