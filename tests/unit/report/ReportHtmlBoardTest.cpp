// report.html's sections from the other analyses' products (JobBoard): "Who
// waits for whom", the collectives table and the critical-path share per
// rank; rows, cuts, escaping, and nothing without the products.
#include <gtest/gtest.h>

#include <regex>

#include "xstack/report/AnalysisFiles.h"

namespace xstack {
namespace {

size_t count(const std::string& s, const std::string& what) {
  size_t n = 0;
  for (size_t at = s.find(what); at != std::string::npos; at = s.find(what, at + 1)) ++n;
  return n;
}

// The <table id="id">'s text.
std::string table(const std::string& html, const std::string& id) {
  const size_t from = html.find("<table class=\"sortable\" id=\"" + id + "\">");
  if (from == std::string::npos) return {};
  return html.substr(from, html.find("</table>", from) - from);
}

// Rank 3 made group "<script>alert(1)</script>" wait 4 ms over 2 steps and
// group "" 1 ms; rank 1 made "" wait 2 ms; rank 0 only waited.
struct Board {
  CollectivesSummary summary;
  std::vector<RankInfo> ranks{{0, 2, "0"}, {1, 2, "0"}, {2, 2, "1"}, {3, 2, "1"}};
  std::vector<CriticalShare> shares;
  JobBoard board;
  Board() {
    summary.groups = 2;
    summary.matched = 3;
    CollectiveRow a;
    a.collective = "allreduce";
    a.bytes = 1024;
    a.count = 2;
    a.transferP50Ns = 1'500'000;
    a.transferP95Ns = 2'000'000;
    a.hasBusbw = true;
    a.busbwP50Gbps = 12.5;
    a.waitNs = 3'000'000;
    a.topLateRank = 1;
    a.topLateCount = 1;
    CollectiveRow b = a;
    b.group = "<script>alert(1)</script>";
    b.collective = "allgather";
    b.waitNs = 4'000'000;
    b.topLateRank = 3;
    b.topLateCount = 2;
    b.hasBusbw = false;
    summary.rows = {a, b};
    summary.ranks.resize(4);
    for (int64_t r = 0; r < 4; ++r) summary.ranks[static_cast<size_t>(r)].rank = r;
    summary.ranks[0].waitedNs = 6'000'000;
    summary.ranks[1].causedNs[static_cast<int>(LateCause::Host)] = 2'000'000;
    summary.ranks[3].causedNs[static_cast<int>(LateCause::Compute)] = 5'000'000;
    summary.ranks[3].waitedNs = 1'000'000;
    summary.groupBlame = {{"", 1, 2'000'000, 1},
                          {"", 3, 1'000'000, 1},
                          {"<script>alert(1)</script>", 3, 4'000'000, 2}};
    shares = {{0, "compute", 3'000'000}, {0, "wait", 1'000'000}, {3, "compute", 6'000'000}};
    board.collectives = &summary;
    board.collectiveRanks = &ranks;
  }
};

TEST(ReportHtmlBoard, WhoWaitsForWhomAndTheCollectives) {
  Board b;
  const std::string html = reportHtml({}, JobAnalysis{}, Topology{}, "", "", b.board);
  const std::string waits = table(html, "waitsfor");
  ASSERT_FALSE(waits.empty()) << html;
  // Late ranks only, most waited for first, per step of the late rank.
  EXPECT_EQ(count(waits, "<tr>"), 3u);  // header + ranks 3 and 1
  EXPECT_LT(waits.find("<td class=\"n\" data-v=\"3.000000\">3</td><td>1</td>"),
            waits.find("<td class=\"n\" data-v=\"1.000000\">1</td><td>0</td>"));
  EXPECT_NE(waits.find(">2.500</td><td class=\"cause\">compute</td>"), std::string::npos) << waits;
  EXPECT_NE(waits.find(">1.000</td><td class=\"cause\">host</td>"), std::string::npos) << waits;
  // Its groups, most first, escaped; the default group named as such.
  EXPECT_NE(waits.find("<span class=\"grp\">&lt;script&gt;alert(1)&lt;/script&gt;</span>: 2.000 "
                       "(2); <span class=\"grp\"><i>default</i></span>: 0.500 (1)"),
            std::string::npos)
      << waits;
  const std::string coll = table(html, "collectives");
  ASSERT_FALSE(coll.empty());
  EXPECT_EQ(count(coll, "<tr>"), 3u);
  // Most wait first: the allgather (4 ms) before the allreduce (3 ms); no busbw shown as "-".
  EXPECT_LT(coll.find("allgather"), coll.find("allreduce"));
  EXPECT_NE(coll.find(">1.500</td>"), std::string::npos);
  EXPECT_NE(coll.find(">4.000</td>"), std::string::npos);
  EXPECT_NE(coll.find(">12.500</td>"), std::string::npos);
  EXPECT_NE(coll.find("data-v=\"-1\">-</td>"), std::string::npos);
  EXPECT_NE(coll.find(">100.0</td>"), std::string::npos);  // rank 3 last in 2 of 2
  // No trace text reaches the page unescaped.
  EXPECT_EQ(html.find("<script>alert"), std::string::npos);
  EXPECT_EQ(html.find("id=\"critical\""), std::string::npos);  // no critical path: no section
  EXPECT_EQ(html.find("class=\"note cut\""), std::string::npos);
}

// An all-to-all whose calls' sizes vary has a row of bytes 0 (collectives.csv):
// its bytes cell says so, with the calls' median size, and sorts by it.
TEST(ReportHtmlBoard, AnAllToAllvRowShowsItsCallsMedianSize) {
  Board b;
  CollectiveRow v = b.summary.rows[0];
  v.collective = "alltoallv";
  v.bytes = 0;
  v.bytesP50 = 1'234'567;
  b.summary.rows.push_back(v);
  const std::string coll =
      table(reportHtml({}, JobAnalysis{}, Topology{}, "", "", b.board), "collectives");
  EXPECT_NE(coll.find("data-v=\"1234567.000000\""), std::string::npos) << coll;
  EXPECT_NE(coll.find(">varies (p50 1234567)</td>"), std::string::npos) << coll;
  EXPECT_EQ(count(coll, ">varies"), 1u);  // the allreduce keeps its bytes
}

TEST(ReportHtmlBoard, CriticalPathSharePerRank) {
  Board b;
  b.board.criticalShares = &b.shares;
  b.board.criticalTotalNs = 20'000'000;
  const std::string html = reportHtml({}, JobAnalysis{}, Topology{}, "", "", b.board);
  const std::string crit = table(html, "critical");
  ASSERT_FALSE(crit.empty()) << html;
  for (const char* kind :
       {"compute (ms)", "host (ms)", "memcpy (ms)", "transfer (ms)", "wait (ms)"})
    EXPECT_NE(crit.find(kind), std::string::npos) << kind;
  // Rank 3 (6 ms, 30 %) before rank 0 (4 ms: 3 compute + 1 wait, 20 %).
  const std::regex row3(
      "<tr><td class=\"n\" data-v=\"3.000000\">3</td><td[^>]*>6.000</td>(<td[^>]*>0.000</td>){4}"
      "<td[^>]*>6.000</td><td[^>]*>30.00</td></tr>");
  EXPECT_TRUE(std::regex_search(crit, row3)) << crit;
  EXPECT_LT(crit.find("data-v=\"3.000000\">3<"), crit.find("data-v=\"0.000000\">0<"));
  EXPECT_NE(crit.find(">1.000</td><td class=\"n\" data-v=\"4000000\">4.000</td><td class=\"n\" "
                      "data-v=\"20.000000\">20.00</td>"),
            std::string::npos)
      << crit;
}

TEST(ReportHtmlBoard, LongTablesAreCutAndSaySo) {
  Board b;
  b.summary.rows.clear();
  b.summary.ranks.clear();
  b.ranks.clear();
  for (int64_t r = 0; r < 120; ++r) {
    CollectiveRow row;
    row.group = "g" + std::to_string(r);
    row.collective = "allreduce";
    row.count = 1;
    row.waitNs = static_cast<uint64_t>(r + 1) * 1000;
    b.summary.rows.push_back(row);
    RankBlame blame;
    blame.rank = r;
    blame.causedNs[0] = static_cast<uint64_t>(r + 1) * 1000;
    b.summary.ranks.push_back(blame);
    b.ranks.push_back({r, 1, std::to_string(r / 8)});
    b.shares.push_back({r, "host", static_cast<uint64_t>(r + 1)});
  }
  b.board.criticalShares = &b.shares;
  b.board.criticalTotalNs = 1'000'000;
  const std::string html = reportHtml({}, JobAnalysis{}, Topology{}, "", "", b.board);
  EXPECT_EQ(count(table(html, "waitsfor"), "<tr>"), 51u);
  EXPECT_EQ(count(table(html, "collectives"), "<tr>"), 101u);
  EXPECT_EQ(count(table(html, "critical"), "<tr>"), 31u);
  EXPECT_NE(html.find("showing the 50 of 120 ranks others waited for"), std::string::npos);
  EXPECT_NE(html.find("showing the 100 of 120 collectives.csv rows"), std::string::npos);
  EXPECT_NE(html.find("showing the 30 of 120 ranks"), std::string::npos);
  // The cut keeps the largest: rank 119 and group g119 shown, rank 0 and g0 not.
  EXPECT_NE(table(html, "collectives").find(">g119<"), std::string::npos);
  EXPECT_EQ(table(html, "collectives").find(">g0<"), std::string::npos);
}

TEST(ReportHtmlBoard, NothingWithoutTheProducts) {
  const std::string html = reportHtml({}, JobAnalysis{}, Topology{});
  EXPECT_EQ(html.find("id=\"who-waits\""), std::string::npos);
  EXPECT_EQ(html.find("id=\"collectives\""), std::string::npos);
  EXPECT_EQ(html.find("id=\"critical\""), std::string::npos);
  Board b;
  b.summary.groups = 0;  // the analysis ran and found no collective
  const std::string none = reportHtml({}, JobAnalysis{}, Topology{}, "", "", b.board);
  EXPECT_EQ(none.find("id=\"who-waits\""), std::string::npos);
  // Byte-identical for equal inputs.
  Board c;
  EXPECT_EQ(reportHtml({}, JobAnalysis{}, Topology{}, "", "", c.board),
            reportHtml({}, JobAnalysis{}, Topology{}, "", "", Board{}.board));
}

}  // namespace
}  // namespace xstack
