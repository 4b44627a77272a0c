#include <gtest/gtest.h>

#include "xstack/core/TimeUnits.h"

namespace xstack {
namespace {

TEST(TimeUnits, FormatMicrosIsExact) {
  EXPECT_EQ(formatMicros(1234567), "1234.567");
  EXPECT_EQ(formatMicros(1234500), "1234.5");
  EXPECT_EQ(formatMicros(1234560), "1234.56");
  EXPECT_EQ(formatMicros(1234000), "1234");
  EXPECT_EQ(formatMicros(7), "0.007");
  EXPECT_EQ(formatMicros(70), "0.07");
  EXPECT_EQ(formatMicros(0), "0");
  EXPECT_EQ(formatMicros(1700000000002464134u), "1700000000002464.134");
  EXPECT_EQ(formatMicros(UINT64_MAX), "18446744073709551.615");
}

TEST(TimeUnits, AppendMicrosAppends) {
  std::string s = "ts=";
  appendMicros(s, 1001);
  EXPECT_EQ(s, "ts=1.001");
}

TEST(TimeUnits, SecondsToNsIsExactDecimal) {
  EXPECT_EQ(parseSecondsToNs("1700000000.002464134"), 1700000000002464134u);
  EXPECT_EQ(parseSecondsToNs("1700000000"), 1700000000000000000u);
  EXPECT_EQ(parseSecondsToNs("0.1"), 100000000u);
  EXPECT_EQ(parseSecondsToNs(".5"), 500000000u);
  EXPECT_EQ(parseSecondsToNs("+2"), 2000000000u);
  EXPECT_EQ(parseSecondsToNs("0001.5"), 1500000000u);
  EXPECT_EQ(parseSecondsToNs("0"), 0u);
  EXPECT_EQ(parseSecondsToNs("0.000000000"), 0u);
  // Sub-nanosecond digits are truncated.
  EXPECT_EQ(parseSecondsToNs("1.0000000019"), 1000000001u);
  EXPECT_EQ(parseSecondsToNs("0.0000000009"), 0u);
}

TEST(TimeUnits, MillisToNs) {
  EXPECT_EQ(parseMillisToNs("1700000000002.464134"), 1700000000002464134u);
  EXPECT_EQ(parseMillisToNs("1700000000002"), 1700000000002000000u);
  EXPECT_EQ(parseMillisToNs("0.000001"), 1u);
  EXPECT_EQ(parseMillisToNs("0.0000005"), 0u);
}

TEST(TimeUnits, Exponents) {
  EXPECT_EQ(parseSecondsToNs("1.5e3"), 1500000000000u);
  EXPECT_EQ(parseSecondsToNs("1.5E+3"), 1500000000000u);
  EXPECT_EQ(parseSecondsToNs("1e-9"), 1u);
  EXPECT_EQ(parseSecondsToNs("1e-10"), 0u);
  EXPECT_EQ(parseSecondsToNs("17000000000024641.34e-7"), 1700000000002464134u);
  EXPECT_EQ(parseMillisToNs("1.700000000002464134e12"), 1700000000002464134u);
  EXPECT_EQ(parseSecondsToNs("0e999999999"), 0u);
  EXPECT_EQ(parseSecondsToNs("5e-999999999"), 0u);
}

TEST(TimeUnits, RejectsGarbage) {
  for (const char* bad : {"", " ", ".", "+", "-1", "-0", "abc", "1.2.3", "1e", "1e+", "e5", " 1",
                          "1 ", "1,5", "inf", "nan", "0x10", "1s", "N/A"})
    EXPECT_FALSE(parseSecondsToNs(bad)) << '"' << bad << '"';
}

TEST(TimeUnits, RejectsOverflow) {
  EXPECT_EQ(parseSecondsToNs("9223372036.854775807"), uint64_t{INT64_MAX});
  EXPECT_FALSE(parseSecondsToNs("9223372036.854775808"));
  EXPECT_FALSE(parseSecondsToNs("18446744073.709551616"));
  EXPECT_FALSE(parseSecondsToNs("99999999999999999999"));
  EXPECT_FALSE(parseSecondsToNs("1e400"));
  EXPECT_FALSE(parseSecondsToNs("1e99999999999999999999"));
  EXPECT_FALSE(parseMillisToNs("18446744073709551615"));
  // Leading zeros do not count as digits.
  EXPECT_EQ(parseSecondsToNs("0000000000000000000000001"), 1000000000u);
}

TEST(TimeUnits, TimeOriginClampsEarlierTimes) {
  TimeOrigin o{100};
  bool clamped = false;
  EXPECT_EQ(o.since(150, &clamped), 50u);
  EXPECT_FALSE(clamped);
  EXPECT_EQ(o.since(99, &clamped), 0u);
  EXPECT_TRUE(clamped);
  EXPECT_EQ(o.since(0), 0u);
}

TEST(TimeUnits, MinTimestampIgnoresZero) {
  MinTimestamp m;
  m.add(0);
  EXPECT_EQ(m.value, 0u);
  m.add(50);
  m.add(0);
  m.add(70);
  MinTimestamp other;
  other.add(20);
  m.merge(other);
  EXPECT_EQ(m.value, 20u);
}

}  // namespace
}  // namespace xstack
