#include <gtest/gtest.h>

#include <string>

#include "xstack/source/paddle/DcgmParser.h"

namespace xstack {
namespace {

DcgmParser parse(std::string_view text) {
  DcgmParser p("dcgm.0");
  splitLines(
      text, [&](std::string_view l, const LineInfo& i) { p.feedLine(l, i); },
      [&](const LineInfo& i, uint64_t n) { p.overlongLine(i, n); });
  return p;
}

const std::string kHeader =
    "#Entity   GPUTL  GRACT  SMACT  SMOCC  FBTTL  FBUSD  DRAMA  NVLTX  NVLRX  PCITX  PCIRX  "
    "FP32A  FP16A  TENSO  TIMESTAMP\n";

TEST(DcgmParser, SeriesNames) {
  EXPECT_STREQ(dcgmSeriesName(kGPUTL), "GPUTL");
  EXPECT_STREQ(dcgmSeriesName(kFB_USED_RATIO), "FB_USED_RATIO");
  EXPECT_STREQ(dcgmSeriesName(kTENSO), "TENSO");
  EXPECT_STREQ(dcgmSeriesName(kDcgmSeriesCount), "");
}

TEST(DcgmParser, RealDcgmiOutput) {
  auto p = parse(kHeader +
                 "ID\n"
                 "GPU 0    45  0.123  0.5  0.25  32000  8000  0.1  1  2  3  4  0.01  0.02  0.03  "
                 "1700000000.002464134\n"
                 "GPU 7    100  0  0  0  32000  0  0  0  0  0  0  0  0  0  1700000001\n");
  EXPECT_TRUE(p.warnings().empty());
  ASSERT_EQ(p.samples().size(), 2u);
  const GpuTelemetrySample& s = p.samples()[0];
  EXPECT_EQ(s.tsNs, 1700000000002464134u);
  EXPECT_EQ(s.gpu, 0);
  for (int k = 0; k < kDcgmSeriesCount; ++k) EXPECT_TRUE(s.has(k)) << dcgmSeriesName(k);
  EXPECT_DOUBLE_EQ(s.values[kGPUTL], 0.45);
  EXPECT_DOUBLE_EQ(s.values[kGRACT], 0.123);
  EXPECT_DOUBLE_EQ(s.values[kSMACT], 0.5);
  EXPECT_DOUBLE_EQ(s.values[kSMOCC], 0.25);
  EXPECT_DOUBLE_EQ(s.values[kFB_USED_RATIO], 0.25);
  EXPECT_DOUBLE_EQ(s.values[kDRAMA], 0.1);
  EXPECT_DOUBLE_EQ(s.values[kNVLTX], 1);
  EXPECT_DOUBLE_EQ(s.values[kNVLRX], 2);
  EXPECT_DOUBLE_EQ(s.values[kPCITX], 3);
  EXPECT_DOUBLE_EQ(s.values[kPCIRX], 4);
  EXPECT_DOUBLE_EQ(s.values[kFP32A], 0.01);
  EXPECT_DOUBLE_EQ(s.values[kFP16A], 0.02);
  EXPECT_DOUBLE_EQ(s.values[kTENSO], 0.03);
  EXPECT_EQ(p.samples()[1].gpu, 7);
  EXPECT_EQ(p.samples()[1].tsNs, 1700000001000000000u);
  EXPECT_DOUBLE_EQ(p.samples()[1].values[kGPUTL], 1.0);
}

TEST(DcgmParser, SpacedHeaderAnyOrderMissingAndExtraColumns) {
  auto p = parse(
      "# Entity TIMESTAMP POWER SMACT\n"
      "GPU 1 12.5 250 0.75\n");
  EXPECT_TRUE(p.warnings().empty());
  ASSERT_EQ(p.samples().size(), 1u);
  const GpuTelemetrySample& s = p.samples()[0];
  EXPECT_EQ(s.tsNs, 12500000000u);
  EXPECT_EQ(s.present, 1u << kSMACT);
  EXPECT_DOUBLE_EQ(s.values[kSMACT], 0.75);
}

TEST(DcgmParser, NotAvailableLeavesSeriesOut) {
  auto p = parse(
      "#Entity GPUTL SMACT FBTTL FBUSD TIMESTAMP\n"
      "GPU 0 N/A 0.5 N/A 100 1\n"
      "GPU 0 50 N/A 0 100 2\n");
  EXPECT_TRUE(p.warnings().empty());
  ASSERT_EQ(p.samples().size(), 2u);
  EXPECT_EQ(p.samples()[0].present, 1u << kSMACT);
  EXPECT_EQ(p.samples()[1].present, 1u << kGPUTL);  // FBTTL 0: no ratio
}

TEST(DcgmParser, HeaderChangingHalfWayRemapsColumns) {
  auto p = parse(
      "#Entity GPUTL TIMESTAMP\n"
      "GPU 0 10 1\n"
      "#Entity TIMESTAMP SMOCC GPUTL\n"
      "ID\n"
      "GPU 0 2 0.5 20\n"
      "GPU 0 30 3\n");
  ASSERT_EQ(p.samples().size(), 2u);
  EXPECT_EQ(p.samples()[0].present, 1u << kGPUTL);
  EXPECT_DOUBLE_EQ(p.samples()[0].values[kGPUTL], 0.1);
  EXPECT_EQ(p.samples()[1].tsNs, 2000000000u);
  EXPECT_DOUBLE_EQ(p.samples()[1].values[kSMOCC], 0.5);
  EXPECT_DOUBLE_EQ(p.samples()[1].values[kGPUTL], 0.2);
  EXPECT_EQ(p.warnings().count(Warn::DcgmBadRow), 1u);  // old width after the new header
}

TEST(DcgmParser, NoiseAndRowsBeforeHeaderAreCounted) {
  auto p = parse(
      "GPU 0 1 2\n"
      "Hello dcgmi\n"
      "\n"
      "   \t\n"
      "# a comment\n"
      "#Entity GPUTL TIMESTAMP\n"
      "Switch 3 1 1\n"
      "GPU 0 1 5\n");
  EXPECT_EQ(p.warnings().count(Warn::DcgmRowBeforeHeader), 1u);
  EXPECT_EQ(p.warnings().count(Warn::DcgmNoiseLine), 3u);
  EXPECT_EQ(p.warnings().total(), 4u);
  ASSERT_EQ(p.samples().size(), 1u);
  const auto& ex = p.warnings().entries().at(Warn::DcgmNoiseLine).examples;
  ASSERT_FALSE(ex.empty());
  EXPECT_EQ(ex[0].rfind("dcgm.0:2: ", 0), 0u) << ex[0];
}

TEST(DcgmParser, BadRows) {
  auto p = parse(
      "#Entity GPUTL TIMESTAMP\n"
      "GPU\n"
      "GPU x 1 1\n"
      "GPU -1 1 1\n"
      "GPU 0 1\n"
      "GPU 0 1 2 3\n"
      "GPU 0 1 N/A\n"
      "GPU 0 1 yesterday\n"
      "GPU 0 1 -5\n"
      "GPU 0 1 1e400\n");
  EXPECT_EQ(p.warnings().count(Warn::DcgmBadRow), 9u);
  EXPECT_EQ(p.warnings().total(), 9u);
  EXPECT_TRUE(p.samples().empty());
}

// A GPU id no real node has would overflow the inferred
// --gpus-per-trainer (largest id + 1): the row is bad, the id never a sample's.
TEST(DcgmParser, ImplausibleGpuIdsAreBadRows) {
  auto p = parse(
      "#Entity GPUTL TIMESTAMP\n"
      "GPU 9223372036854775807 1 1\n"
      "GPU 4000000000 1 1\n"
      "GPU 1024 1 1\n"
      "GPU 99999999999999999999 1 1\n"
      "GPU 1023 1 1\n");
  EXPECT_EQ(p.warnings().count(Warn::DcgmBadRow), 4u);
  EXPECT_EQ(p.warnings().total(), 4u);
  ASSERT_EQ(p.samples().size(), 1u);
  EXPECT_EQ(p.samples()[0].gpu, 1023);
  const auto& ex = p.warnings().entries().at(Warn::DcgmBadRow).examples;
  ASSERT_FALSE(ex.empty());
  EXPECT_EQ(ex[0], "dcgm.0:2: bad GPU id \"9223372036854775807\" (ids are 0..1023)");
}

// FBUSD and FBTTL finite, their ratio not (1e308 / 1e-300): counted, and no
// value (before, an infinite ratio was written as 0). NaN and inf inputs are bad values.
TEST(DcgmParser, NonFiniteRatioIsCountedAndLeftOut) {
  auto p = parse(
      "#Entity GPUTL FBTTL FBUSD TIMESTAMP\n"
      "GPU 0 50 1e-300 1e308 1\n"
      "GPU 0 50 nan 100 2\n"
      "GPU 0 50 100 inf 3\n"
      "GPU 0 50 100 25 4\n");
  EXPECT_EQ(p.warnings().count(Warn::DcgmBadRatio), 1u);
  EXPECT_EQ(p.warnings().count(Warn::DcgmBadValue), 2u);
  EXPECT_EQ(p.warnings().total(), 3u);
  ASSERT_EQ(p.samples().size(), 4u);
  for (size_t i = 0; i < 3; ++i) {
    EXPECT_EQ(p.samples()[i].present, 1u << kGPUTL) << i;  // GPUTL kept, no ratio
    EXPECT_FALSE(p.samples()[i].has(kFB_USED_RATIO)) << i;
  }
  EXPECT_TRUE(p.samples()[3].has(kFB_USED_RATIO));
  EXPECT_DOUBLE_EQ(p.samples()[3].values[kFB_USED_RATIO], 0.25);
  EXPECT_EQ(p.warnings().entries().at(Warn::DcgmBadRatio).examples.at(0),
            "dcgm.0:2: FBUSD/FBTTL is not a finite number");
}

TEST(DcgmParser, NoTimestampColumnMakesEveryRowBad) {
  auto p = parse("#Entity GPUTL\nGPU 0 1\n");
  EXPECT_EQ(p.warnings().count(Warn::DcgmBadRow), 1u);
  EXPECT_TRUE(p.samples().empty());
}

TEST(DcgmParser, BadValuesAreSkippedAndCounted) {
  auto p = parse(
      "#Entity GPUTL GRACT SMACT SMOCC DRAMA NVLTX FBTTL FBUSD TIMESTAMP\n"
      "GPU 0 abc inf nan 1e999 -0.5 +1 0x10 5 7\n");
  EXPECT_EQ(p.warnings().count(Warn::DcgmBadValue), 7u);
  EXPECT_EQ(p.warnings().total(), 7u);
  ASSERT_EQ(p.samples().size(), 1u);
  EXPECT_EQ(p.samples()[0].present, 0u);  // FBTTL was bad: no ratio either
  EXPECT_EQ(p.samples()[0].tsNs, 7000000000u);
}

TEST(DcgmParser, DuplicateColumnCountsOnce) {
  auto p = parse("#Entity GPUTL GPUTL TIMESTAMP\nGPU 0 10 90 1\n");
  ASSERT_EQ(p.samples().size(), 1u);
  EXPECT_DOUBLE_EQ(p.samples()[0].values[kGPUTL], 0.1);
}

TEST(DcgmParser, CrlfBomAndTabs) {
  auto p = parse("\xEF\xBB\xBF#Entity\tGPUTL\tTIMESTAMP\r\nGPU\t2\t5\t3.5\r\n");
  EXPECT_TRUE(p.warnings().empty());
  ASSERT_EQ(p.samples().size(), 1u);
  EXPECT_EQ(p.samples()[0].gpu, 2);
  EXPECT_EQ(p.samples()[0].tsNs, 3500000000u);
}

TEST(DcgmParser, OverlongLineIsNoise) {
  DcgmParser p("d.1");
  p.overlongLine(LineInfo{4, 100, false}, 5000000);
  EXPECT_EQ(p.warnings().count(Warn::DcgmNoiseLine), 1u);
  EXPECT_EQ(p.warnings().entries().at(Warn::DcgmNoiseLine).examples.at(0),
            "d.1:4: line of 5000000 bytes skipped");
}

TEST(DcgmParser, BinaryGarbageDoesNotBreakLaterRows) {
  std::string text = kHeader;
  text += std::string("\0\xff\x01GPU 0\0\n", 10);
  text += "GPU 3 1 1 1 1 1 1 1 1 1 1 1 1 1 1 9\n";
  auto p = parse(text);
  EXPECT_EQ(p.warnings().count(Warn::DcgmNoiseLine), 1u);
  ASSERT_EQ(p.samples().size(), 1u);
  EXPECT_EQ(p.samples()[0].gpu, 3);
}

}  // namespace
}  // namespace xstack
