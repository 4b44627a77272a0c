#include <gtest/gtest.h>

#include <nlohmann/json.hpp>
#include <string>

#include "xstack/source/paddle/NetParser.h"

namespace xstack {
namespace {

using Args = std::vector<std::pair<std::string, std::string>>;

NetParser parse(std::string_view text) {
  NetParser p("net.3");
  splitLines(
      text, [&](std::string_view l, const LineInfo& i) { p.feedLine(l, i); },
      [&](const LineInfo& i, uint64_t n) { p.overlongLine(i, n); });
  return p;
}

TEST(NetParser, ParsesTxAndRxWithExactTimestamps) {
  auto p = parse(R"({"name":"tx","ts":1700000000002.464134,"args":{"eth0":0.10,"ib0":12,"x":1E3}})"
                 "\n"
                 R"({"ts": 1700000000002, "args": {"eth0": -3}, "name": "rx"})"
                 "\n");
  EXPECT_TRUE(p.warnings().empty());
  ASSERT_EQ(p.samples().size(), 2u);
  const NetCounterSample& a = p.samples()[0];
  EXPECT_TRUE(a.tx);
  EXPECT_EQ(a.tsNs, 1700000000002464134u);
  EXPECT_EQ(a.args, (Args{{"eth0", "0.10"}, {"ib0", "12"}, {"x", "1E3"}}));
  const NetCounterSample& b = p.samples()[1];
  EXPECT_FALSE(b.tx);
  EXPECT_EQ(b.tsNs, 1700000000002000000u);
  EXPECT_EQ(b.args, (Args{{"eth0", "-3"}}));
}

TEST(NetParser, TimestampForms) {
  auto p = parse(R"({"name":"tx","ts":1.5e3})"
                 "\n"
                 R"({"name":"tx","ts":0})"
                 "\n"
                 R"({"name":"tx","ts":18446744073709551615})"
                 "\n");
  ASSERT_EQ(p.samples().size(), 2u);
  EXPECT_EQ(p.samples()[0].tsNs, 1500000000u);
  EXPECT_TRUE(p.samples()[0].args.empty());  // "args" is optional
  EXPECT_EQ(p.samples()[1].tsNs, 0u);
  EXPECT_EQ(p.warnings().count(Warn::NetBadLine), 1u);  // too large for 63-bit ns
}

TEST(NetParser, BadLinesAreCounted) {
  const char* bad[] = {
      "{",
      "not json",
      "[1,2]",
      "5",
      R"("tx")",
      R"({"ts":1,"args":{}})",
      R"({"name":"up","ts":1})",
      R"({"name":5,"ts":1})",
      R"({"name":"tx"})",
      R"({"name":"tx","ts":"1"})",
      R"({"name":"tx","ts":-1})",
      R"({"name":"tx","ts":[1]})",
      R"({"name":"tx","ts":1,"args":3})",
      R"({"name":"tx","ts":1,"args":[1]})",
      R"({"name":"tx","ts":1,"args":{"a":1e999}})",
      R"({"name":"tx","ts":1} {})",
      "{\"name\":\"tx\",\"ts\":1,\"args\":{\"\xff\":1}}",
  };
  std::string text;
  for (const char* b : bad) text += std::string(b) + "\n";
  auto p = parse(text);
  EXPECT_TRUE(p.samples().empty());
  EXPECT_EQ(p.warnings().count(Warn::NetBadLine), std::size(bad));
  EXPECT_EQ(p.warnings().total(), std::size(bad));
  const auto& ex = p.warnings().entries().at(Warn::NetBadLine).examples;
  ASSERT_EQ(ex.size(), Warnings::kMaxExamples);
  EXPECT_EQ(ex[0].rfind("net.3:1: ", 0), 0u) << ex[0];
}

TEST(NetParser, NonNumericArgsAreDroppedAndCounted) {
  auto p = parse(R"({"name":"tx","ts":1,"args":{"a":1,"s":"x","b":true,"n":null,)"
                 R"("o":{"deep":{"x":1}},"l":[1,{"y":2}],"z":2.5}})"
                 "\n");
  ASSERT_EQ(p.samples().size(), 1u);
  EXPECT_EQ(p.samples()[0].args, (Args{{"a", "1"}, {"z", "2.5"}}));
  EXPECT_EQ(p.warnings().count(Warn::NetNonNumericArg), 5u);
  EXPECT_EQ(p.warnings().entries().at(Warn::NetNonNumericArg).examples.at(0),
            "net.3:1: arg \"s\" is a string, dropped");
}

TEST(NetParser, OtherKeysAreIgnored) {
  auto p = parse(R"({"pid":1,"meta":{"name":"zz","ts":"no","args":[{}]},"name":"rx","ts":2,"x":[]})"
                 "\n");
  EXPECT_TRUE(p.warnings().empty());
  ASSERT_EQ(p.samples().size(), 1u);
  EXPECT_FALSE(p.samples()[0].tx);
  EXPECT_EQ(p.samples()[0].tsNs, 2000000u);
}

TEST(NetParser, RepeatedArgKeepsLastValueAtFirstPlace) {
  auto p = parse(R"({"name":"tx","ts":1,"args":{"a":1,"b":2,"a":3,"c":4,"b":5}})");
  ASSERT_EQ(p.samples().size(), 1u);
  EXPECT_EQ(p.samples()[0].args, (Args{{"a", "3"}, {"b", "5"}, {"c", "4"}}));
}

TEST(NetParser, TruncatedLastLine) {
  auto p = parse(R"({"name":"tx","ts":1})"
                 "\n"
                 R"({"name":"tx","ts":2,"ar)");
  ASSERT_EQ(p.samples().size(), 1u);
  EXPECT_EQ(p.warnings().count(Warn::NetBadLine), 1u);
  const auto& ex = p.warnings().entries().at(Warn::NetBadLine).examples.at(0);
  EXPECT_NE(ex.find("net.3:2: last line (no newline) is cut"), std::string::npos) << ex;
}

TEST(NetParser, CompleteLastLineWithoutNewlineIsKept) {
  auto p = parse(R"({"name":"tx","ts":1})");
  EXPECT_TRUE(p.warnings().empty());
  EXPECT_EQ(p.samples().size(), 1u);
}

TEST(NetParser, CrlfBomBlankLinesAndNul) {
  std::string text = "\xEF\xBB\xBF{\"name\":\"tx\",\"ts\":1}\r\n\r\n  \n";
  text += std::string("{\"name\":\"tx\",\0\"ts\":1}\n", 22);
  text += std::string("{\"name\":\"tx\",\"ts\":1}\0\n", 22);
  auto p = parse(text);
  EXPECT_EQ(p.samples().size(), 1u);
  EXPECT_EQ(p.warnings().count(Warn::NetBadLine), 2u);
  EXPECT_EQ(p.warnings().total(), 2u);
}

TEST(NetParser, OverlongLineIsBad) {
  NetParser p("n.0");
  p.overlongLine(LineInfo{9, 0, true}, 104857600);
  EXPECT_EQ(p.warnings().count(Warn::NetBadLine), 1u);
  EXPECT_EQ(p.warnings().entries().at(Warn::NetBadLine).examples.at(0),
            "n.0:9: line of 104857600 bytes skipped");
}

// Kept arg texts are re-emitted verbatim into traces: each must be a JSON number.
TEST(NetParser, KeptArgTextsAreJsonNumbers) {
  auto p =
      parse(R"({"name":"tx","ts":1,"args":{"a":-0,"b":-0.0e-0,"c":123456789012345678901234567890,)"
            R"("d":-9223372036854775808,"e":18446744073709551615,"f":1.7976931348623157e308}})");
  ASSERT_EQ(p.samples().size(), 1u);
  ASSERT_EQ(p.samples()[0].args.size(), 6u);
  for (const auto& [name, text] : p.samples()[0].args) {
    auto j = nlohmann::json::parse(text, nullptr, /*allow_exceptions=*/false);
    EXPECT_TRUE(j.is_number()) << name << " = " << text;
  }
  EXPECT_EQ(p.samples()[0].args[2].second, "123456789012345678901234567890");
}

}  // namespace
}  // namespace xstack

namespace xstack {
namespace {

// A number JSON cannot hold (1e999) makes the line unusable;
// it is counted as net_bad_line with an example, never dropped silently.
TEST(NetParser, AnOverflowingNumberIsACountedBadLine) {
  auto p = parse(R"({"name":"tx","ts":1,"args":{"a":1e999}})"
                 "\n");
  EXPECT_TRUE(p.samples().empty());
  EXPECT_EQ(p.warnings().count(Warn::NetBadLine), 1u);
  EXPECT_EQ(p.warnings().entries().at(Warn::NetBadLine).examples.at(0).rfind("net.3:1: ", 0), 0u);
}

}  // namespace
}  // namespace xstack
