// `xstack report` without --gpus-per-trainer asks for inference; with it, the
// value is used (and checked against the time files by the report).
#include <gtest/gtest.h>

#include "xstack/cmd/cli/Cli.h"

namespace xstack {
namespace {

TEST(CliGpusPerTrainer, AbsentMeansInfer) {
  Command c = parseCommandLine({"report", "--data-dir", "d", "--out", "o"});
  ASSERT_TRUE(std::holds_alternative<ReportOptions>(c));
  EXPECT_TRUE(std::get<ReportOptions>(c).inferGpusPerTrainer);
}

TEST(CliGpusPerTrainer, GivenIsUsedEvenWhenEight) {
  Command c =
      parseCommandLine({"report", "--data-dir", "d", "--out", "o", "--gpus-per-trainer", "8"});
  ASSERT_TRUE(std::holds_alternative<ReportOptions>(c));
  EXPECT_FALSE(std::get<ReportOptions>(c).inferGpusPerTrainer);
  EXPECT_EQ(std::get<ReportOptions>(c).topology.gpusPerTrainer, 8);
}

TEST(CliGpusPerTrainer, GpusPerNodeIsTheSameOption) {
  Command c = parseCommandLine({"report", "--data-dir", "d", "--out", "o", "--gpus-per-node", "4"});
  ASSERT_TRUE(std::holds_alternative<ReportOptions>(c));
  EXPECT_FALSE(std::get<ReportOptions>(c).inferGpusPerTrainer);
  EXPECT_EQ(std::get<ReportOptions>(c).topology.gpusPerTrainer, 4);
  Command same = parseCommandLine({"report", "--data-dir", "d", "--out", "o", "--gpus-per-node",
                                   "4", "--gpus-per-trainer", "4"});
  EXPECT_TRUE(std::holds_alternative<ReportOptions>(same));
  Command differ = parseCommandLine({"report", "--data-dir", "d", "--out", "o", "--gpus-per-node",
                                     "4", "--gpus-per-trainer", "8"});
  ASSERT_TRUE(std::holds_alternative<Failure>(differ));
  EXPECT_NE(std::get<Failure>(differ).message.find("differ"), std::string::npos);
  Command zero =
      parseCommandLine({"report", "--data-dir", "d", "--out", "o", "--gpus-per-node", "0"});
  EXPECT_TRUE(std::holds_alternative<Failure>(zero));
}

TEST(CliGpusPerTrainer, VersionNamesToolGitProtobufAndMpi) {
  Command c = parseCommandLine({"--version"});
  ASSERT_TRUE(std::holds_alternative<HelpRequest>(c));
  const std::string& t = std::get<HelpRequest>(c).text;
  EXPECT_EQ(t.rfind(std::string("xstack ") + XSTACK_VERSION + "\n", 0), 0u) << t;
  EXPECT_NE(t.find("\ngit "), std::string::npos) << t;
  EXPECT_NE(t.find("\nprotobuf "), std::string::npos) << t;
  EXPECT_NE(t.find("\nmpi "), std::string::npos) << t;
}

}  // namespace
}  // namespace xstack
