// Options that must agree between ranks; the message names the
// option, its values and the ranks of each.
#include <gtest/gtest.h>

#include "xstack/cmd/cli/Cli.h"
#include "xstack/cmd/report/OptionAgreement.h"
#include "xstack/transport/TypedMessages.h"

namespace xstack {
namespace {

AgreedOptions encoded(std::vector<std::string> args) {
  args.insert(args.begin(), {"report", "--data-dir", "d", "--out", "o"});
  Command c = parseCommandLine(args);
  EXPECT_TRUE(std::holds_alternative<ReportOptions>(c));
  return agreedOptionsOf(std::get<ReportOptions>(c));
}

TEST(OptionAgreement, SameOptionsAgree) {
  const AgreedOptions a = encoded({"--display-size", "2", "--compress"});
  EXPECT_TRUE(describeOptionMismatch({a, a, a}).empty());
}

TEST(OptionAgreement, PerNodeAndDisplayOnlyOptionsMayDiffer) {
  const AgreedOptions a = encoded({"--timings", "--plan"});
  const AgreedOptions b = encoded({"--profile-dir", "p", "--dcgm-dir", "x", "--no-progress"});
  EXPECT_TRUE(describeOptionMismatch({a, b}).empty());
}

TEST(OptionAgreement, NamesOptionValuesAndRanks) {
  const AgreedOptions two = encoded({"--display-size", "2"});
  const AgreedOptions four = encoded({"--display-size", "4"});
  const auto lines = describeOptionMismatch({two, two, four});
  ASSERT_EQ(lines.size(), 1u);
  EXPECT_EQ(lines[0], "--display-size differs between ranks: 2 on ranks 0-1; 4 on rank 2");
}

TEST(OptionAgreement, EveryDifferingOptionIsNamed) {
  const AgreedOptions a = encoded({"--gpus-per-trainer", "4", "--mpi-chunk-bytes", "4096"});
  const AgreedOptions b = encoded({"--no-analysis", "--fsync", "--time-origin-ns", "5"});
  const auto lines = describeOptionMismatch({a, b, a, a});
  ASSERT_EQ(lines.size(), 5u);
  EXPECT_EQ(lines[0],
            "--gpus-per-trainer differs between ranks: 4 on ranks 0,2-3; (not given) on rank 1");
  EXPECT_EQ(lines[1],
            "--time-origin-ns differs between ranks: (not given) on ranks 0,2-3; 5 on "
            "rank 1");
  EXPECT_EQ(lines[2], "--fsync differs between ranks: (not given) on ranks 0,2-3; given on rank 1");
  EXPECT_EQ(lines[3],
            "--no-analysis differs between ranks: (not given) on ranks 0,2-3; given on rank 1");
  EXPECT_EQ(lines[4],
            "--mpi-chunk-bytes differs between ranks: 4096 on ranks 0,2-3; 1073741824 on rank 1");
}

TEST(OptionAgreement, InferredGpusPerTrainerDiffersFromGivenEight) {
  // 8 is the default P, but "given 8" is checked against the inputs and
  // "not given" is inferred: they may give different traces.
  EXPECT_EQ(describeOptionMismatch({encoded({}), encoded({"--gpus-per-trainer", "8"})}).size(), 1u);
}

// The options survive their message; a rank of a build with one option more
// names it, and a message cut short is an Error, never a throw.
TEST(OptionAgreement, MessageRoundTripAndABadMessageIsAnError) {
  const AgreedOptions a = encoded({"--display-size", "2", "--format", "json,perfetto"});
  const std::string bytes = encodeMessage(a, writeAgreedOptions);
  EXPECT_EQ(decodeMessage<AgreedOptions>(bytes, "the options", readAgreedOptions).value(), a);
  for (size_t n = 0; n < bytes.size(); ++n)
    EXPECT_FALSE(
        decodeMessage<AgreedOptions>(bytes.substr(0, n), "the options", readAgreedOptions).ok())
        << n;
  for (size_t i = 0; i < bytes.size(); ++i) {
    std::string bad = bytes;
    bad[i] = static_cast<char>(bad[i] ^ 0xff);
    EXPECT_NO_THROW((void)decodeMessage<AgreedOptions>(bad, "the options", readAgreedOptions));
  }
  AgreedOptions newer = a;
  newer.emplace_back("--new-option", "1");
  const auto lines = describeOptionMismatch({a, newer});
  ASSERT_EQ(lines.size(), 1u);
  EXPECT_EQ(lines[0],
            "--new-option differs between ranks: (unknown: another version) on rank 0; 1 on "
            "rank 1");
}

TEST(OptionAgreement, RankRanges) {
  EXPECT_EQ(rankRangesText({0}), "0");
  EXPECT_EQ(rankRangesText({0, 1, 2, 5, 7, 8}), "0-2,5,7-8");
  EXPECT_EQ(rankRangesText({}), "");
}

}  // namespace
}  // namespace xstack
