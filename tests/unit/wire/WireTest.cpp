#include <gtest/gtest.h>

#include <cstdint>
#include <cstring>
#include <limits>
#include <optional>
#include <random>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "xstack/wire/WarningsWire.h"
#include "xstack/wire/Wire.h"

namespace xstack::wire {
namespace {

TEST(WireTest, RoundTripsEveryType) {
  Writer w;
  w.u64(0);
  w.u64(std::numeric_limits<uint64_t>::max());
  w.i64(std::numeric_limits<int64_t>::min());
  w.i64(-1);
  w.i64(std::numeric_limits<int64_t>::max());
  w.f64(-2.5);
  w.boolean(true);
  w.str(std::string("a\0b", 3));
  w.strings({"x", "", "yz"});
  const std::string msg = w.take();
  Reader r(msg, "test");
  EXPECT_EQ(r.u64(), 0u);
  EXPECT_EQ(r.u64(), std::numeric_limits<uint64_t>::max());
  EXPECT_EQ(r.i64(), std::numeric_limits<int64_t>::min());
  EXPECT_EQ(r.i64(), -1);
  EXPECT_EQ(r.i64(), std::numeric_limits<int64_t>::max());
  EXPECT_EQ(r.f64(), -2.5);
  EXPECT_TRUE(r.boolean());
  EXPECT_EQ(r.str(), std::string("a\0b", 3));
  EXPECT_EQ(r.strings(), (std::vector<std::string>{"x", "", "yz"}));
  EXPECT_TRUE(r.finish().ok());
}

// Unsigned LEB128, byte by byte: the format's definition.
std::string leb128(uint64_t v) {
  std::string out;
  while (v >= 0x80) {
    out.push_back(static_cast<char>((v & 0x7f) | 0x80));
    v >>= 7;
  }
  out.push_back(static_cast<char>(v));
  return out;
}

// The writer keeps its room past the message and grows it (15 bytes, then
// an eighth of the message, at most 64 KiB at a time): values of every kind
// and size, written across many growths (strings and raw pieces larger than
// the room included), give exactly the bytes of their definitions, as do
// size() and view() at every point; the message's own bytes append to it
// (raw(view()), across a growth); take() gives them and starts again.
TEST(WireTest, WriterGivesExactBytesAcrossItsGrowths) {
  std::mt19937_64 rng(5);
  for (int message = 0; message < 3; ++message) {
    Writer w;
    std::string expected(1, static_cast<char>(kWireVersion));
    for (int i = 0; i < 20000; ++i) {
      switch (rng() % 5) {
        case 0: {
          const uint64_t v = rng() >> (rng() % 64);
          w.u64(v);
          expected += leb128(v);
          break;
        }
        case 1: {
          const bool b = rng() % 2 == 0;
          w.boolean(b);
          expected.push_back(b ? 1 : 0);
          break;
        }
        case 2: {
          const double d = static_cast<double>(rng() % 1000) / 7;
          w.f64(d);
          char bytes[8];
          std::memcpy(bytes, &d, 8);
          expected.append(bytes, 8);
          break;
        }
        default: {
          const size_t n = rng() % 1000 == 0 ? 70000 + rng() % 70000 : rng() % 40;
          const std::string text(n, static_cast<char>('a' + rng() % 26));
          if (rng() % 2 == 0) {
            w.str(text);
            expected += leb128(n) + text;
          } else {
            w.raw(text);
            expected += text;
          }
        }
      }
      ASSERT_EQ(w.size(), expected.size()) << message << " " << i;
      if (i % 997 == 0) {
        ASSERT_EQ(w.view(), expected) << message << " " << i;
      }
    }
    const std::string written(w.view());  // the message doubled: raw() of its own bytes
    w.raw(w.view());
    ASSERT_EQ(w.view(), written + written);
    w.raw(std::string_view(w.view()).substr(5, 100));
    expected = written + written + written.substr(5, 100);
    ASSERT_EQ(w.take(), expected);
    EXPECT_EQ(w.size(), 1u);
    EXPECT_EQ(w.view(), std::string(1, static_cast<char>(kWireVersion)));
  }
}

// Every bit width, with every bit pattern class (all ones, one bit, random),
// is written as LEB128's exact bytes and read back, also as the last value of
// a message (fewer than 8 or 10 bytes left: the word-at-a-time paths do not
// apply) and followed by other bytes (they do). Non-minimal encodings read
// as their value.
TEST(WireTest, VarintsAreExactlyLeb128AtEveryWidthAndPosition) {
  std::mt19937_64 rng(7);
  std::vector<uint64_t> values{0, 1, 127, 128, ~uint64_t{0}};
  for (int bits = 1; bits <= 64; ++bits) {
    const uint64_t top = uint64_t{1} << (bits - 1);
    values.push_back(top);
    values.push_back(top | (top - 1));
    values.push_back(top | (rng() & (top - 1)));
  }
  for (uint64_t v : values) {
    Writer w;
    w.u64(v);
    const std::string alone = w.take();
    ASSERT_EQ(alone.substr(1), leb128(v)) << v;
    for (size_t tail : {0, 1, 7, 9, 12}) {
      const std::string msg = alone + std::string(tail, '\x01');
      Reader r(msg);
      EXPECT_EQ(r.u64(), v) << v << " with " << tail << " bytes after it";
      for (size_t i = 0; i < tail; ++i) EXPECT_EQ(r.u64(), 1u);
      EXPECT_TRUE(r.finish().ok()) << v;
    }
  }
  const std::string padded = std::string(1, static_cast<char>(kWireVersion)) +
                             std::string("\x85\x80\x80\x00", 4) + std::string(8, '\0');
  Reader r(padded);
  EXPECT_EQ(r.u64(), 5u);
  EXPECT_EQ(r.offset(), 5u);
}

// A varint as LEB128 defines it, one byte at a time: (value, bytes) or
// nothing when the bytes end first or it holds more than 64 bits.
std::optional<std::pair<uint64_t, size_t>> referenceVarint(std::string_view bytes) {
  uint64_t v = 0;
  for (size_t i = 0; i < bytes.size() && i < 10; ++i) {
    const auto byte = static_cast<uint8_t>(bytes[i]);
    if (i == 9 && byte > 1) return std::nullopt;
    v |= uint64_t{byte & 0x7fu} << (7 * i);
    if ((byte & 0x80) == 0) return std::make_pair(v, i + 1);
  }
  return std::nullopt;
}

// The reader decodes a varint with 10 bytes left as whole words: on any
// bytes (padded ones such as 0x80 0x00, every length from 1 to 11, flags set
// at random) it reads what the byte-by-byte definition reads, ends at the
// same byte, and fails where it fails, with or without bytes after it;
// skipVarints ends and fails where it does.
TEST(WireTest, WordAtATimeVarintsReadAsByteAtATimeOnAnyBytes) {
  std::mt19937_64 rng(11);
  const std::string version(1, static_cast<char>(kWireVersion));
  for (int trial = 0; trial < 200000; ++trial) {
    const size_t length = 1 + rng() % 11;
    std::string bytes;
    for (size_t i = 0; i < length; ++i) {
      auto b = static_cast<uint8_t>(rng());
      b = i + 1 < length ? (b | 0x80) : (b & 0x7f);             // flags: continue, then end
      if (rng() % 16 == 0) b = static_cast<uint8_t>(b & 0x80);  // a padding byte
      if (i == 9 && rng() % 2 == 0) b = static_cast<uint8_t>(rng() % 3);
      bytes.push_back(static_cast<char>(b));
    }
    const auto expected = referenceVarint(bytes);
    for (size_t tail : {0, 12}) {
      const std::string msg = version + bytes + std::string(tail, '\x01');
      Reader r(msg);
      const uint64_t v = r.u64();
      ASSERT_EQ(r.ok(), expected.has_value()) << trial << " tail " << tail;
      Reader skipped(msg);
      skipped.skipVarints(1);
      ASSERT_EQ(skipped.ok(), r.ok()) << trial << " tail " << tail;
      ASSERT_EQ(skipped.offset(), r.offset()) << trial << " tail " << tail;
      if (!expected) continue;
      ASSERT_EQ(v, expected->first) << trial << " tail " << tail;
      ASSERT_EQ(r.offset(), 1 + expected->second) << trial << " tail " << tail;
    }
  }
}

// skipVarints steps over exactly the bytes u64 reads, at every width, and
// fails exactly where and as u64 fails: a varint cut short by the message's
// end, one of 11 bytes, one whose tenth byte holds more than bit 64.
TEST(WireTest, SkippedVarintsEndAndFailWhereReadOnesDo) {
  std::vector<std::string> messages;
  for (int bits = 0; bits <= 64; ++bits) {
    Writer w;
    w.u64(bits == 0 ? 0 : ~uint64_t{0} >> (64 - bits));
    w.u64(300);
    messages.push_back(w.take());
  }
  const std::string version(1, static_cast<char>(kWireVersion));
  messages.push_back(version + std::string(10, '\x80') + '\x01');  // 11 bytes
  messages.push_back(version + std::string(9, '\xff') + '\x02');   // past 64 bits
  messages.push_back(version + std::string(9, '\xff') + '\x01');   // 2^64 - 1
  messages.push_back(version + "\x85\x80");                        // cut short
  for (const std::string& msg : messages)
    for (size_t cut = 1; cut <= msg.size(); ++cut) {
      const std::string m = msg.substr(0, cut);
      Reader read(m), skipped(m);
      (void)read.u64();
      (void)read.u64();
      skipped.skipVarints(2);
      EXPECT_EQ(skipped.offset(), read.offset()) << cut;
      EXPECT_EQ(skipped.ok(), read.ok()) << cut;
      const Status a = read.status(), b = skipped.status();
      ASSERT_EQ(a.ok(), b.ok()) << cut;
      if (!a.ok()) {
        EXPECT_EQ(b.error().message, a.error().message) << cut;
        EXPECT_EQ(b.error().offset, a.error().offset) << cut;
      }
    }
}

TEST(WireTest, ShortMessageFailsWithOffsetAndName) {
  Writer w;
  w.str("hello");
  std::string msg = w.take();
  msg.resize(msg.size() - 2);
  Reader r(msg, "rank 3's table");
  EXPECT_EQ(r.str(), "");
  EXPECT_FALSE(r.ok());
  Status st = r.finish();
  ASSERT_FALSE(st.ok());
  EXPECT_NE(st.error().message.find("rank 3's table"), std::string::npos);
  EXPECT_NE(st.error().message.find("cut short"), std::string::npos);
  EXPECT_EQ(st.error().offset, 2u);
}

TEST(WireTest, LeftOverBytesAndWrongVersionFail) {
  Writer w;
  w.u64(5);
  w.u64(6);
  std::string msg = w.take();
  Reader r(msg);
  EXPECT_EQ(r.u64(), 5u);
  EXPECT_FALSE(r.finish().ok());
  msg[0] = static_cast<char>(kWireVersion + 1);
  Reader v(msg);
  EXPECT_EQ(v.u64(), 0u);
  ASSERT_FALSE(v.finish().ok());
  EXPECT_NE(v.finish().error().message.find("wire version"), std::string::npos);
  EXPECT_FALSE(Reader("").finish().ok());
}

TEST(WireTest, HugeCountIsRefusedNotAllocated) {
  Writer w;
  w.u64(uint64_t{1} << 60);  // a count with nothing after it
  const std::string msg = w.take();
  Reader r(msg);
  std::vector<std::string> out;
  r.list(out, [](Reader& x) { return x.str(); });
  EXPECT_TRUE(out.empty());
  EXPECT_FALSE(r.ok());
}

// A count the bytes left could hold, of elements far larger in memory: the
// list reserves at most 1 MiB of them (not 256 MiB), and a bad element fails it.
TEST(WireTest, ADamagedCountReservesAtMostAMebibyte) {
  struct Big {
    char bytes[4096];
  };
  Writer w;
  w.u64(64 << 10);  // 64 Ki elements of 4 KiB each in memory, a byte each on the wire
  for (int i = 0; i < 64 << 10; ++i) w.u64(i < 10 ? 0 : 1);
  const std::string msg = w.take();
  Reader r(msg);
  std::vector<Big> out;
  r.list(out, [](Reader& x) {
    if (x.u64() != 0) x.fail("a damaged element");
    return Big{};
  });
  EXPECT_FALSE(r.ok());
  EXPECT_LE(out.capacity() * sizeof(Big), (size_t{1} << 20) + sizeof(Big));
}

TEST(WireTest, OverlongVarintFails) {
  std::string msg(1, static_cast<char>(kWireVersion));
  msg.append(11, static_cast<char>(0xff));
  Reader r(msg);
  r.u64();
  EXPECT_FALSE(r.ok());
}

TEST(WireTest, BadFlagFails) {
  std::string msg(1, static_cast<char>(kWireVersion));
  msg.push_back(7);
  Reader r(msg);
  r.boolean();
  EXPECT_FALSE(r.ok());
}

enum class Colour : int { Red = 0, Green = 1, Blue = 2 };

TEST(WireTest, EnumsRoundTripAndAValueOutOfRangeFails) {
  Writer w;
  w.enumeration(Colour::Blue);
  w.u64(3);
  const std::string msg = w.take();
  Reader r(msg, "colours");
  EXPECT_EQ(r.enumeration(Colour::Blue), Colour::Blue);
  EXPECT_EQ(r.enumeration(Colour::Blue), Colour::Red);  // 3: no Colour
  ASSERT_FALSE(r.finish().ok());
  EXPECT_NE(r.finish().error().message.find("out of range"), std::string::npos);
}

TEST(WireTest, WarningsByNameWithOrWithoutExamples) {
  Warnings in;
  in.add(Warn::TimestampZero, 3, "p.1: ts 0: zero");
  in.add(Warn::RenderFailed, 1);
  for (bool examples : {true, false}) {
    Writer w;
    writeWarnings(w, in, examples);
    const std::string msg = w.take();
    Reader r(msg);
    std::string unknown;
    const Warnings out = readWarnings(r, examples, unknown);
    EXPECT_TRUE(r.finish().ok());
    EXPECT_TRUE(unknown.empty());
    EXPECT_EQ(out.count(Warn::TimestampZero), 3u);
    EXPECT_EQ(out.count(Warn::RenderFailed), 1u);
    EXPECT_EQ(out.entries().at(Warn::TimestampZero).examples.size(), examples ? 1u : 0u);
  }
  Writer w;
  writeWarnings(w, in, false);
  std::string msg = w.take();
  msg.replace(msg.find("render_failed"), 13, "render_fail_x");
  Reader r(msg);
  std::string unknown;
  const Warnings out = readWarnings(r, false, unknown);
  EXPECT_TRUE(r.finish().ok());
  EXPECT_EQ(unknown, "unknown warning kind \"render_fail_x\"");
  EXPECT_EQ(out.count(Warn::TimestampZero), 3u);
  EXPECT_EQ(out.total(), 3u);
}

}  // namespace
}  // namespace xstack::wire
