#include <gtest/gtest.h>

#include "xstack/source/paddle/TimeFileParser.h"

namespace xstack {
namespace {

TimeFileParser parse(std::string_view text) {
  TimeFileParser p("time.txt.0.0");
  splitLines(
      text, [&](std::string_view l, const LineInfo& i) { p.feedLine(l, i); },
      [&](const LineInfo& i, uint64_t n) { p.overlongLine(i, n); });
  return p;
}

TEST(TimeFileParser, ParsesStartAndEndExactly) {
  auto p = parse("start time: 1700000000.002464134\nend time: 1700000100\n");
  EXPECT_TRUE(p.warnings().empty());
  EXPECT_EQ(p.startNs, 1700000000002464134u);
  EXPECT_EQ(p.endNs, 1700000100000000000u);
}

TEST(TimeFileParser, ToleratesSpacingCrlfBomAndBlankLines) {
  auto p = parse("\xEF\xBB\xBF\r\n  end time:1.5  \r\n\t start time:\t0.25\r\n\n");
  EXPECT_TRUE(p.warnings().empty());
  EXPECT_EQ(p.startNs, 250000000u);
  EXPECT_EQ(p.endNs, 1500000000u);
}

TEST(TimeFileParser, MissingLinesStayEmpty) {
  auto p = parse("start time: 1\n");
  EXPECT_EQ(p.startNs, 1000000000u);
  EXPECT_FALSE(p.endNs);
}

TEST(TimeFileParser, RepeatedLineKeepsFirst) {
  auto p = parse("start time: 1\nstart time: 2\nend time: 3\nend time: 4\n");
  EXPECT_EQ(p.startNs, 1000000000u);
  EXPECT_EQ(p.endNs, 3000000000u);
  EXPECT_EQ(p.warnings().count(Warn::TimeRepeatedLine), 2u);
  EXPECT_EQ(p.warnings().entries().at(Warn::TimeRepeatedLine).examples.at(0),
            "time.txt.0.0:2: repeated start time, first one kept");
}

TEST(TimeFileParser, NoiseAndBadValues) {
  auto p = parse(
      "hello\nStart Time: 5\nstart time:\nstart time: -1\nstart time: 1 2\nend time: soon\n"
      "start time: 7\n");
  EXPECT_EQ(p.warnings().count(Warn::TimeNoiseLine), 6u);
  EXPECT_EQ(p.warnings().total(), 6u);
  EXPECT_EQ(p.startNs, 7000000000u);
  EXPECT_FALSE(p.endNs);
}

TEST(TimeFileParser, OverlongLineIsNoise) {
  TimeFileParser p("t");
  p.overlongLine(LineInfo{1, 0, false}, 2000000);
  EXPECT_EQ(p.warnings().count(Warn::TimeNoiseLine), 1u);
}

}  // namespace
}  // namespace xstack
