// The warning table (core/WarningKinds.h) against docs/WARNINGS.md and against
// src/: every kind declared once, documented, and used. That src/ counts only
// declared kinds is a compile-time guarantee (Warnings::add takes a Warn).
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <regex>
#include <set>
#include <sstream>
#include <string>

#include "xstack/core/WarningKinds.h"
#include "xstack/core/Warnings.h"

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

// The lines of `doc` that start with '|' (its one table), each with its '\n'.
std::string tableLines(const std::string& doc) {
  std::string table;
  std::istringstream in(doc);
  for (std::string line; std::getline(in, line);)
    if (!line.empty() && line[0] == '|') table += line + "\n";
  return table;
}

// The compile-time guarantee: a kind is a Warn, never a string.
template <class W>
concept CountsByName = requires(W w, const std::string& name) {
  w.add(name);
  w.add("dcgm_bad_row");
};
template <class W>
concept CountsByWarn = requires(W w) {
  w.add(xstack::Warn::DcgmBadRow, 1, "x");
};
static_assert(!CountsByName<xstack::Warnings>);
static_assert(CountsByWarn<xstack::Warnings>);
static_assert(xstack::warnName(xstack::Warn::TimestampZero) == "timestamp_zero");

}  // namespace

TEST(WarningKindsTest, EachKindDeclaredOnceWithMeaningAndAction) {
  std::set<std::string> seen;
  for (size_t i = 0; i < xstack::kWarnCount; ++i) {
    const auto& k = xstack::kWarningKinds[i];
    EXPECT_TRUE(seen.insert(std::string(k.name)).second) << k.name;
    EXPECT_FALSE(k.meaning.empty()) << k.name;
    EXPECT_FALSE(k.action.empty()) << k.name;
    const xstack::Expected<xstack::Warn> w = xstack::warnByName(k.name);
    ASSERT_TRUE(w.ok()) << k.name;
    EXPECT_EQ(&xstack::warningKind(*w), &k);
  }
  const xstack::Expected<xstack::Warn> none = xstack::warnByName("no_such_kind");
  ASSERT_FALSE(none.ok());
  EXPECT_EQ(none.error().message, "unknown warning kind \"no_such_kind\"");
}

TEST(WarningKindsTest, DocsListExactlyTheTable) {
  const std::string doc = slurp(kRepo / "docs" / "WARNINGS.md");
  ASSERT_FALSE(doc.empty());
  std::set<std::string> documented;
  const std::regex row(R"(\n\| `([a-z0-9_]+)` \| (note|warning|error) \|)");
  for (std::sregex_iterator it(doc.begin(), doc.end(), row), end; it != end; ++it) {
    documented.insert((*it)[1].str());
    const auto w = xstack::warnByName((*it)[1].str());
    ASSERT_TRUE(w.ok()) << (*it)[1].str();
    EXPECT_EQ((*it)[2].str(), xstack::severityName(xstack::warningKind(*w).severity))
        << (*it)[1].str();
  }
  EXPECT_EQ(documented, tableKinds());
}

// docs/WARNINGS.md's table is what `xstack warnings-table` prints, byte for byte.
TEST(WarningKindsTest, DocsHoldTheGeneratedTable) {
  const std::string doc = slurp(kRepo / "docs" / "WARNINGS.md");
  ASSERT_FALSE(doc.empty());
  EXPECT_EQ(tableLines(doc), xstack::warningKindsMarkdown())
      << "regenerate the table with `xstack warnings-table`";
}

// Each kind is counted somewhere in src/ (its enumerator is named outside the table).
TEST(WarningKindsTest, EachKindIsCounted) {
  std::string sources;
  for (const auto& e : fs::recursive_directory_iterator(kRepo / "src"))
    if (e.path().extension() == ".cpp") sources += slurp(e.path());
  ASSERT_FALSE(sources.empty());
  for (const auto& k : xstack::kWarningKinds)
    EXPECT_NE(sources.find("Warn::" + std::string(k.id)), std::string::npos)
        << k.name << " is declared but never counted";
}
