// findings.json's times are in ms (docs/ANALYSIS.md "findings.json"): the ideal job's saving
// too (`saving_ms`, 3 decimals; there is no `saving_s` any more).
#include <gtest/gtest.h>

#include <nlohmann/json.hpp>

#include "xstack/report/AnalysisFiles.h"

namespace xstack {
namespace {

TEST(FindingsJsonUnits, TheIdealJobSavingIsInMilliseconds) {
  JobAnalysis a;
  a.jobStepNs = 1'000'000'000;
  a.idealSavingNs = 37'498'400;
  const std::string text = findingsJson(a, Topology{});
  EXPECT_NE(text.find("\"ideal_job\":{\"saving_ms\":37.498,\"saving_pct\":3.75,"),
            std::string::npos)
      << text;
  const nlohmann::json j = nlohmann::json::parse(text);
  EXPECT_DOUBLE_EQ(j["ideal_job"]["saving_ms"].get<double>(), 37.498);
  EXPECT_FALSE(j["ideal_job"].contains("saving_s"));
}

}  // namespace
}  // namespace xstack
