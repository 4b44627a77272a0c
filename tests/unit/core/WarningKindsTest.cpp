// The warning table (core/WarningKinds.h) against docs/WARNINGS.md and against
// the kinds src/ counts: every kind declared once, documented, and used.
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <regex>
#include <set>
#include <sstream>
#include <string>

#include "xstack/core/WarningKinds.h"

namespace fs = std::filesystem;

namespace {

const fs::path kRepo = fs::path(XSTACK_TEST_DATA_DIR).parent_path();

std::string slurp(const fs::path& p) {
  std::ifstream in(p);
  std::stringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

std::set<std::string> tableKinds() {
  std::set<std::string> kinds;
  for (const auto& k : xstack::kWarningKinds) kinds.insert(std::string(k.name));
  return kinds;
}

// Kinds counted in src/: warnings.add("kind" ...) and the literal kinds of a ternary.
std::set<std::string> kindsCountedInSources() {
  std::set<std::string> kinds;
  const std::regex addCall(
      R"re([wW]arnings_?\.add\(\s*(?:[^()"]*\?\s*)?"([a-z0-9_]+)"(?:\s*:\s*"([a-z0-9_]+)")?)re");
  for (const auto& e : fs::recursive_directory_iterator(kRepo / "src")) {
    if (e.path().extension() != ".cpp") continue;
    const std::string text = slurp(e.path());
    for (std::sregex_iterator it(text.begin(), text.end(), addCall), end; it != end; ++it)
      for (size_t g = 1; g < it->size(); ++g)
        if ((*it)[g].matched) kinds.insert((*it)[g].str());
  }
  return kinds;
}

}  // namespace

TEST(WarningKindsTest, EachKindDeclaredOnceWithMeaningAndAction) {
  std::set<std::string> seen;
  for (const auto& k : xstack::kWarningKinds) {
    EXPECT_TRUE(seen.insert(std::string(k.name)).second) << k.name;
    EXPECT_FALSE(k.meaning.empty()) << k.name;
    EXPECT_FALSE(k.action.empty()) << k.name;
    EXPECT_EQ(xstack::findWarningKind(k.name), &k);
  }
  EXPECT_EQ(xstack::findWarningKind("no_such_kind"), nullptr);
}

TEST(WarningKindsTest, DocsListExactlyTheTable) {
  const std::string doc = slurp(kRepo / "docs" / "WARNINGS.md");
  ASSERT_FALSE(doc.empty());
  std::set<std::string> documented;
  const std::regex row(R"(\n\| `([a-z0-9_]+)` \| (note|warning|error) \|)");
  for (std::sregex_iterator it(doc.begin(), doc.end(), row), end; it != end; ++it) {
    documented.insert((*it)[1].str());
    const auto* k = xstack::findWarningKind((*it)[1].str());
    ASSERT_NE(k, nullptr) << (*it)[1].str();
    EXPECT_EQ((*it)[2].str(), xstack::severityName(k->severity)) << k->name;
  }
  EXPECT_EQ(documented, tableKinds());
}

TEST(WarningKindsTest, SourcesCountOnlyDeclaredKinds) {
  const std::set<std::string> used = kindsCountedInSources();
  ASSERT_GE(used.size(), 10u);  // the scan itself works
  for (const auto& k : used)
    EXPECT_NE(xstack::findWarningKind(k), nullptr) << k << " is not in kWarningKinds";
  for (const auto& k : tableKinds())
    EXPECT_TRUE(used.count(k)) << k << " is declared but never counted";
}
