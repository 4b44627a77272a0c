#include <gtest/gtest.h>

#include "xstack/source/chrome/ExactDecimal.h"

namespace xstack::chrome {
namespace {

TEST(ChromeExactDecimal, MicrosecondsToNanosecondsExactly) {
  EXPECT_EQ(parseMicrosToNanos("607312"), 607312000);
  EXPECT_EQ(parseMicrosToNanos("607312.0"), 607312000);
  EXPECT_EQ(parseMicrosToNanos("607312.5"), 607312500);
  EXPECT_EQ(parseMicrosToNanos("0"), 0);
  EXPECT_EQ(parseMicrosToNanos("0.001"), 1);
  EXPECT_EQ(parseMicrosToNanos("-3.250"), -3250);
  // Epoch microseconds with 3 decimals: 19 significant digits, beyond a double.
  EXPECT_EQ(parseMicrosToNanos("1727743122123456.789"), 1727743122123456789);
  EXPECT_EQ(parseMicrosToNanos("1711964646000.123"), 1711964646000123);
}

TEST(ChromeExactDecimal, SubNanosecondDigitsAreTruncatedTowardZero) {
  EXPECT_EQ(parseMicrosToNanos("1.0009"), 1000);
  EXPECT_EQ(parseMicrosToNanos("0.0009"), 0);
  EXPECT_EQ(parseMicrosToNanos("-1.0009"), -1000);
  EXPECT_EQ(parseMicrosToNanos("12.3456789"), 12345);
}

TEST(ChromeExactDecimal, ExponentsAreExact) {
  EXPECT_EQ(parseMicrosToNanos("1.5e3"), 1500000);
  EXPECT_EQ(parseMicrosToNanos("1E+2"), 100000);
  EXPECT_EQ(parseMicrosToNanos("1e-3"), 1);
  EXPECT_EQ(parseMicrosToNanos("1e-4"), 0);
  EXPECT_EQ(parseMicrosToNanos("0e999999999"), 0);
  EXPECT_EQ(parseMicrosToNanos("1.727743122123456789e15"), 1727743122123456789);
}

TEST(ChromeExactDecimal, RejectsNonNumbersAndOverflow) {
  for (const char* bad : {"", "-", "abc", "1.", ".5", "1e", "1e+", "12x", "0x10", " 1", "1 "}) {
    EXPECT_EQ(parseMicrosToNanos(bad), std::nullopt) << bad;
  }
  EXPECT_EQ(parseMicrosToNanos("9223372036854775.807"), INT64_MAX);
  EXPECT_EQ(parseMicrosToNanos("9223372036854775.808"), std::nullopt);
  EXPECT_EQ(parseMicrosToNanos("-9223372036854775.808"), INT64_MIN);
  EXPECT_EQ(parseMicrosToNanos("1e30"), std::nullopt);
}

TEST(ChromeExactDecimal, ExactIntegers) {
  EXPECT_EQ(parseExactInteger("108"), 108);
  EXPECT_EQ(parseExactInteger("108.0"), 108);
  EXPECT_EQ(parseExactInteger("1e3"), 1000);
  EXPECT_EQ(parseExactInteger("-7"), -7);
  EXPECT_EQ(parseExactInteger("1.5"), std::nullopt);
  EXPECT_EQ(parseExactInteger("140000000000000"), 140000000000000);
  EXPECT_EQ(parseExactInteger("9223372036854775808"), std::nullopt);
}

TEST(ChromeExactDecimal, LeadingIntegers) {
  EXPECT_EQ(parseLeadingInteger("123(C++)"), 123);
  EXPECT_EQ(parseLeadingInteger("7(Python)"), 7);
  EXPECT_EQ(parseLeadingInteger("-1"), -1);
  EXPECT_EQ(parseLeadingInteger("Spans"), std::nullopt);
  EXPECT_EQ(parseLeadingInteger(""), std::nullopt);
  EXPECT_EQ(parseLeadingInteger("-"), std::nullopt);
}

}  // namespace
}  // namespace xstack::chrome
