// `xstack diff` (cmd/diff/Diff.h, cmd/diff/DiffInputs.h): CSV records, the readers'
// errors, the comparisons and the command line.
#include <gtest/gtest.h>

#include <cstring>
#include <filesystem>
#include <nlohmann/json.hpp>

#include "../TempDirTest.h"
#include "xstack/cmd/cli/Cli.h"
#include "xstack/cmd/diff/Diff.h"

namespace xstack {
namespace {

namespace fs = std::filesystem;

const char* kRanksHeader =
    "rank,trainer,gpu,steps,span_ns,idle_ns,compute_ns,non_compute_ns,idle_pct,compute_pct,"
    "non_compute_pct,comm_comp_overlap_pct\n";
const char* kKernelsHeader = "rank,name,category,count,total_ns,mean_ns,min_ns,max_ns\n";

TEST(DiffCsv, SplitsQuotedFields) {
  std::vector<std::string> f;
  ASSERT_TRUE(splitCsvRecord("0,\"nccl(a, \"\"b\"\")\",COMMUNICATION,3", f));
  ASSERT_EQ(f.size(), 4u);
  EXPECT_EQ(f[1], "nccl(a, \"b\")");
  EXPECT_EQ(f[3], "3");
  ASSERT_TRUE(splitCsvRecord("a,,", f));
  EXPECT_EQ(f, (std::vector<std::string>{"a", "", ""}));
  EXPECT_FALSE(splitCsvRecord("0,\"open", f));
}

class DiffFiles : public TempDirTest {
 protected:
  // A report folder `name` with the given files (content; nullptr: absent).
  std::string folder(const std::string& name, const char* steps, const char* ranks,
                     const char* kernels, const char* findings) {
    fs::create_directories(dir_ / name);
    auto put = [&](const char* file, const char* text) {
      if (text) write(name + "/" + file, text);
    };
    put("steps.csv", steps);
    put("ranks.csv", ranks);
    put("kernels.csv", kernels);
    put("findings.json", findings);
    return (dir_ / name).string();
  }
};

TEST_F(DiffFiles, KernelRowsStreamWithLineBreaksInNames) {
  std::string p = write("k.csv", std::string(kKernelsHeader) +
                                     "0,\"two\nlines\",OTHER,2,10,5,4,6\n"
                                     "1,plain,COMPUTATION,1,7,7,7,7\n");
  std::vector<std::string> names;
  uint64_t total = 0;
  ASSERT_TRUE(forEachKernelRow(p, [&](const KernelRow& r) {
    names.emplace_back(r.name);
    total += r.totalNs;
  }));
  EXPECT_EQ(names, (std::vector<std::string>{"two\nlines", "plain"}));
  EXPECT_EQ(total, 17u);
}

// A name longer than 1 MiB (on one line, and with quoted line breaks) reads back whole.
TEST_F(DiffFiles, KernelNamesOfMegabytesReadBack) {
  const std::string one = "k" + std::string(size_t{2} << 20, 'x') + ",\"q\"";
  const std::string two =
      std::string(size_t{1} << 20, 'a') + "\n" + std::string(size_t{1} << 20, 'b');
  std::string p =
      write("k.csv", std::string(kKernelsHeader) + "0,\"k" + std::string(size_t{2} << 20, 'x') +
                         ",\"\"q\"\"\",OTHER,1,1,1,1,1\n" + "0,\"" + two + "\",OTHER,1,2,2,2,2\n");
  std::vector<std::string> names;
  Status st = forEachKernelRow(p, [&](const KernelRow& r) { names.emplace_back(r.name); });
  ASSERT_TRUE(st) << st.error().message.substr(0, 200);
  ASSERT_EQ(names.size(), 2u);
  EXPECT_TRUE(names[0] == one);
  EXPECT_TRUE(names[1] == two);
}

TEST_F(DiffFiles, ErrorsNameTheFileAndLine) {
  std::string p = write("k.csv", std::string(kKernelsHeader) + "0,a,OTHER,x,10,5,4,6\n");
  Status st = forEachKernelRow(p, [](const KernelRow&) {});
  ASSERT_FALSE(st);
  EXPECT_NE(st.error().message.find("k.csv: line 2: count is not"), std::string::npos)
      << st.error().message;
  p = write("bad.csv", "rank,nothing\n0,1\n");
  st = forEachKernelRow(p, [](const KernelRow&) {});
  ASSERT_FALSE(st);
  EXPECT_NE(st.error().message.find("no column name"), std::string::npos) << st.error().message;
  p = write("order.csv",
            std::string(kKernelsHeader) + "1,a,OTHER,1,1,1,1,1\n0,a,OTHER,1,1,1,1,1\n");
  EXPECT_FALSE(forEachKernelRow(p, [](const KernelRow&) {}));
}

TEST_F(DiffFiles, StepTimesAreCrossRankMedians) {
  std::string p = write("steps.csv",
                        "rank,trainer,gpu,step,start_ns,step_ns\n"
                        "0,0,0,0,0,100\n1,0,1,0,0,300\n2,1,0,0,0,200\n"
                        "0,0,0,1,0,400\n1,0,1,1,0,400\n2,1,0,1,0,500\n");
  auto t = readStepsCsv(p);
  ASSERT_TRUE(t) << t.error().message;
  EXPECT_EQ(t->steps, (std::vector<int64_t>{0, 1}));
  EXPECT_EQ(t->medianNs, (std::vector<uint64_t>{200, 400}));
  EXPECT_EQ(t->medianStepNs, 300u);
  EXPECT_EQ(t->ranks, 3);
}

TEST(DiffCompare, RanksOffTheMedianAreNamed) {
  std::vector<RankCategories> a, b;
  for (int64_t r = 0; r < 8; ++r) {
    a.push_back({r, r / 2, r % 2, 10, 1000, 100, 700, 200, 50, {}, -1});
    b.push_back({r, r / 2, r % 2, 10, 1000, 100, 650, 250, 50, {}, -1});  // everyone waits more
  }
  b[5].computeNs = 800;  // the slow rank computes more
  b[5].nonComputeNs = 100;
  RanksDiff d = diffRanks(a, b);
  EXPECT_DOUBLE_EQ(d.medianDeltaPt.compute, -5.0);
  ASSERT_EQ(d.changed.size(), 1u);
  EXPECT_EQ(d.all[d.changed[0]].rank, 5);
  EXPECT_EQ(d.all[d.changed[0]].why, "compute");
  EXPECT_DOUBLE_EQ(d.all[d.changed[0]].scorePt, 15.0);
}

TEST(DiffCompare, StepsAndFindingsPairUp) {
  StepTimes a{{0, 1, 2}, {100, 100, 100}, 100, 4, 12}, b{{1, 2, 3}, {100, 150, 90}, 100, 4, 12};
  StepsDiff s = diffSteps(a, b);
  ASSERT_EQ(s.common.size(), 2u);
  EXPECT_EQ(s.common[1].bNs, 150u);
  EXPECT_EQ(s.onlyA, (std::vector<int64_t>{0}));
  EXPECT_EQ(s.onlyB, (std::vector<int64_t>{3}));
  FindingEntry slow{"straggler", {5}, "all", "", "e", 0.1},
      node{"straggler", {2, 3}, "all", "", "e", 0.1}, other{"straggler", {7}, "4", "", "e", 0.1};
  FindingsDiff f = diffFindings({slow, node}, {other, slow});
  ASSERT_EQ(f.added.size(), 1u);
  EXPECT_EQ(f.added[0].ranks, (std::vector<int64_t>{7}));
  ASSERT_EQ(f.vanished.size(), 1u);
  EXPECT_EQ(f.vanished[0].ranks, (std::vector<int64_t>{2, 3}));
  EXPECT_EQ(f.kept.size(), 1u);
  FindingEntry host = slow;
  host.cause = "host";
  f = diffFindings({slow, host}, {slow});  // the same key twice: one pairs, one vanishes
  ASSERT_EQ(f.kept.size(), 1u);
  EXPECT_EQ(f.kept[0].first.cause, "");
  ASSERT_EQ(f.vanished.size(), 1u);
  EXPECT_EQ(f.vanished[0].cause, "host");
}

TEST_F(DiffFiles, KernelsAggregatePerNameAndNameTheRanks) {
  std::string ka = std::string(kKernelsHeader) + "0,gemm,COMPUTATION,10,1000,100,1,1\n" +
                   "0,nccl,COMMUNICATION,10,500,50,1,1\n" + "1,gemm,COMPUTATION,10,1000,100,1,1\n" +
                   "1,nccl,COMMUNICATION,10,500,50,1,1\n" + "1,gone,OTHER,1,5,5,5,5\n";
  std::string kb = std::string(kKernelsHeader) + "0,gemm,COMPUTATION,10,1000,100,1,1\n" +
                   "0,nccl,COMMUNICATION,10,900,90,1,1\n" + "1,gemm,COMPUTATION,10,1500,150,1,1\n" +
                   "1,nccl,COMMUNICATION,10,500,50,1,1\n" + "1,fresh,OTHER,1,3,3,3,3\n";
  auto k = diffKernels(write("a.csv", ka), write("b.csv", kb));
  ASSERT_TRUE(k) << k.error().message;
  EXPECT_EQ(k->newNames, 1u);
  EXPECT_EQ(k->vanishedNames, 1u);
  ASSERT_GE(k->top.size(), 2u);
  EXPECT_EQ(k->top[0].name, "gemm");  // +500 ns, then nccl +400
  EXPECT_EQ(k->top[0].t.aNs, 2000u);
  EXPECT_EQ(k->top[0].t.bNs, 2500u);
  EXPECT_EQ(k->top[0].t.aRanks, 2);
  EXPECT_EQ(k->top[0].ranksChanged, 1);
  EXPECT_EQ(k->top[0].topRanks[0].rank, 1);
  EXPECT_EQ(k->top[1].name, "nccl");
  EXPECT_EQ(k->top[1].topRanks[0].rank, 0);
}

TEST_F(DiffFiles, SameFolderIsNoChangeAndMissingFilesAreNamed) {
  std::string ranks =
      std::string(kRanksHeader) + "0,0,0,10,1000,100,700,200,10.00,70.00,20.00,5.00\n";
  std::string kernels = std::string(kKernelsHeader) + "0,gemm,COMPUTATION,1,1,1,1,1\n";
  std::string a = folder("a", "rank,step,step_ns\n0,0,10\n", ranks.c_str(), kernels.c_str(),
                         "{\"findings\":[]}");
  auto d = computeDiff(a, a);
  ASSERT_TRUE(d) << d.error().message;
  EXPECT_TRUE(d->noChange);
  EXPECT_NE(diffText(*d).find("no change"), std::string::npos);
  std::string b = folder("b", "rank,step,step_ns\n0,0,20\n", nullptr, nullptr, "{\"findings\":[]}");
  d = computeDiff(a, b);
  ASSERT_TRUE(d) << d.error().message;
  EXPECT_FALSE(d->noChange);
  EXPECT_EQ(d->missing,
            (std::vector<std::string>{"B: ranks.csv", "B: kernels.csv", "A: collectives.csv",
                                      "B: collectives.csv", "A: waits.csv", "B: waits.csv",
                                      "A: critical_path.csv", "B: critical_path.csv"}));
  const std::string text = diffText(*d);
  EXPECT_NE(text.find("B: ranks.csv"), std::string::npos) << text;
  EXPECT_NE(text.find("+100.0 %"), std::string::npos) << text;
  auto j = nlohmann::json::parse(diffJson(*d, "x/diff.html"));
  EXPECT_EQ(j["steps"]["delta_ns"], 10);
  EXPECT_TRUE(j["ranks"].is_null());
}

// PyTorch traces' ranks.csv carries node,local_rank (docs/FORMAT.md section 2, "Words"):
// the text names a rank by them; Paddle's (no such columns) by trainer and gpu.
TEST_F(DiffFiles, RanksInTheirFamilysWords) {
  auto ranks = [](bool words, uint64_t compute3) {
    std::string t = std::string(kRanksHeader, std::strlen(kRanksHeader) - 1) +
                    (words ? ",node,local_rank\n" : "\n");
    for (int r = 0; r < 4; ++r) {
      const uint64_t c = r == 3 ? compute3 : 500;
      t += std::to_string(r) + "," + std::to_string(r / 2) + "," + std::to_string(r % 2) +
           ",2,1000," + std::to_string(1000 - c) + "," + std::to_string(c) + ",0,0,0,0,";
      t += words ? ",gpu-" + std::string(r < 2 ? "a" : "b") + "," + std::to_string(r % 2) + "\n"
                 : "\n";
    }
    return t;
  };
  for (bool words : {true, false}) {
    const std::string a = ranks(words, 500), b = ranks(words, 900);
    auto d = computeDiff(folder(words ? "wa" : "pa", nullptr, a.c_str(), nullptr, nullptr),
                         folder(words ? "wb" : "pb", nullptr, b.c_str(), nullptr, nullptr));
    ASSERT_TRUE(d) << d.error().message;
    const std::string text = diffText(*d);
    EXPECT_NE(text.find(words ? "  rank 3 (node gpu-b, local rank 1): "
                              : "  rank 3 (trainer 1, gpu 1): "),
              std::string::npos)
        << text;
  }
}

TEST_F(DiffFiles, UnreadableFoldersAreErrors) {
  EXPECT_FALSE(computeDiff((dir_ / "nope").string(), (dir_ / "nope").string()));
  fs::create_directories(dir_ / "empty");
  auto d = computeDiff((dir_ / "empty").string(), (dir_ / "empty").string());
  ASSERT_FALSE(d);
  EXPECT_NE(d.error().message.find("no output of xstack report"), std::string::npos);
  std::string bad = folder("bad", nullptr, nullptr, nullptr, "{\"findings\":");
  d = computeDiff(bad, bad);
  ASSERT_FALSE(d);
  EXPECT_NE(d.error().message.find("findings.json"), std::string::npos);
}

TEST(DiffCli, ParsesFoldersAndOptions) {
  Command c = parseCommandLine({"diff", "a", "b", "--json", "--out", "o"});
  ASSERT_TRUE(std::holds_alternative<DiffOptions>(c));
  const DiffOptions& o = std::get<DiffOptions>(c);
  EXPECT_EQ(o.a, "a");
  EXPECT_EQ(o.b, "b");
  EXPECT_EQ(o.outDir, "o");
  EXPECT_TRUE(o.json);
  EXPECT_TRUE(std::holds_alternative<Failure>(parseCommandLine({"diff", "a"})));
  EXPECT_TRUE(std::holds_alternative<Failure>(parseCommandLine({"diff", "a", "b", "c"})));
  EXPECT_TRUE(std::holds_alternative<Failure>(parseCommandLine({"diff", "a", "b", "--bad"})));
  Command h = parseCommandLine({"diff", "--help"});
  ASSERT_TRUE(std::holds_alternative<HelpRequest>(h));
  EXPECT_NE(std::get<HelpRequest>(h).text.find("usage: xstack diff A B"), std::string::npos);
}

TEST(DiffHtmlPage, SelfContainedWithAxes) {
  DiffResult d;
  d.a = "a";
  d.b = "b<";
  StepTimes a{{0, 1}, {100, 100}, 100, 2, 4}, b{{0, 1}, {120, 130}, 125, 2, 4};
  d.steps = diffSteps(a, b);
  std::vector<RankCategories> r = {{0, 0, 0, 2, 1000, 100, 700, 200, -1, {}, -1}};
  d.ranks = diffRanks(r, r);
  const std::string h = diffHtml(d, "xstack diff a b");
  EXPECT_NE(h.find("class=\"axis\""), std::string::npos);
  EXPECT_NE(h.find("step time, cross-rank median (ms)"), std::string::npos);
  EXPECT_NE(h.find("b&lt;"), std::string::npos);
  EXPECT_EQ(h.find("src="), std::string::npos);
  EXPECT_EQ(h.find("href="), std::string::npos);
}

}  // namespace
}  // namespace xstack

namespace xstack {
namespace {

TEST(DiffHtmlPage, ManyRanksAreBinned) {
  std::vector<RankCategories> a, b;
  for (int64_t r = 0; r < 1000; ++r) {
    a.push_back({r, r / 8, r % 8, 10, 1000, 100, 700, 200, 50, {}, -1});
    b.push_back({r,
                 r / 8,
                 r % 8,
                 10,
                 1000,
                 100,
                 r == 777 ? uint64_t{900} : uint64_t{700},
                 200,
                 50,
                 {},
                 -1});
  }
  DiffResult d;
  d.ranks = diffRanks(a, b);
  ASSERT_EQ(d.ranks->changed.size(), 1u);
  EXPECT_EQ(d.ranks->all[d.ranks->changed[0]].rank, 777);
  const std::string h = diffHtml(d, "");
  const size_t chart = h.find("<svg id=\"rankchange\""), end = h.find("</svg>", chart);
  ASSERT_NE(chart, std::string::npos);
  size_t bars = 0;
  for (size_t at = h.find("<rect", chart); at < end; at = h.find("<rect", at + 1)) ++bars;
  EXPECT_EQ(bars, 2 * 256 + 2);  // two bars per bin, two legend swatches
  EXPECT_NE(h.find("rank (bins of ranks"), std::string::npos);
  EXPECT_NE(h.find("ranks 777-780: compute 20.00 pt"), std::string::npos);
}

// Costs are in ms everywhere: findings.json's cost_ms is read (an older file's cost_s
// as seconds), and the text, --json and diff.html give it in ms.
TEST_F(DiffFiles, FindingCostsAreMilliseconds) {
  std::string a = folder("a", nullptr, nullptr, nullptr, "{\"findings\":[]}");
  std::string b = folder("b", nullptr, nullptr, nullptr,
                         "{\"findings\":[{\"kind\":\"straggler\",\"ranks\":[5],\"steps\":\"all\","
                         "\"cause\":\"compute\",\"cost_ms\":37.498,\"evidence\":\"e\"},"
                         "{\"kind\":\"straggler\",\"ranks\":[6],\"steps\":\"all\","
                         "\"cost_s\":0.016,\"evidence\":\"old\"}]}");
  auto d = computeDiff(a, b);
  ASSERT_TRUE(d) << d.error().message;
  ASSERT_EQ(d->findings->added.size(), 2u);
  EXPECT_DOUBLE_EQ(d->findings->added[0].costMs, 37.498);
  EXPECT_DOUBLE_EQ(d->findings->added[1].costMs, 16.0);
  const std::string text = diffText(*d);
  EXPECT_NE(text.find("new: straggler rank 5 (steps all, cause compute, cost 37.498 ms): e"),
            std::string::npos)
      << text;
  EXPECT_NE(text.find("new: straggler rank 6 (steps all, cost 16.000 ms): old"), std::string::npos)
      << text;
  auto j = nlohmann::json::parse(diffJson(*d, ""));
  EXPECT_DOUBLE_EQ(j["findings"]["new"][0]["cost_ms"].get<double>(), 37.498);
  EXPECT_FALSE(j["findings"]["new"][0].contains("cost_s"));
  EXPECT_NE(diffHtml(*d, "").find("<td class=\"n\" data-v=\"37.498000\">37.498</td>"),
            std::string::npos);
}

// Names from the folders reach the terminal made safe; --json keeps them exact (JSON escapes,
// also for DEL and the C1 controls, which JSON would allow raw).
TEST_F(DiffFiles, TextIsTerminalSafeAndJsonExact) {
  const std::string evil = "k\x1b[31m\nxstack: forged\x7f\xc2\x9b";
  std::string a = folder("a", nullptr, nullptr, nullptr, "{\"findings\":[]}");
  std::string b = folder("b", nullptr, nullptr, nullptr,
                         "{\"findings\":[{\"kind\":\"k\\u001b[31m\\nxstack: forged\\u007f\\u009b\","
                         "\"ranks\":[5],\"steps\":\"all\",\"evidence\":\"e\\r\"}]}");
  auto d = computeDiff(a, b);
  ASSERT_TRUE(d) << d.error().message;
  d->b = "b\x1b]0;t\x07";
  const std::string text = diffText(*d);
  EXPECT_NE(text.find("xstack diff: A " + a + ", B b?]0;t?\n"), std::string::npos) << text;
  EXPECT_NE(text.find("new: k?[31m?xstack: forged??? rank 5 (steps all, cost 0.000 ms): e?\n"),
            std::string::npos)
      << text;
  const std::string json = diffJson(*d, "");
  for (char c : json.substr(0, json.size() - 1))
    EXPECT_TRUE(static_cast<unsigned char>(c) >= 0x20 && c != 0x7f) << static_cast<int>(c);
  EXPECT_EQ(json.find("\xc2\x9b"), std::string::npos) << json;
  auto j = nlohmann::json::parse(json);
  EXPECT_EQ(j["findings"]["new"][0]["kind"].get<std::string>(), evil);
  EXPECT_EQ(j["b"].get<std::string>(), "b\x1b]0;t\x07");
}

TEST_F(DiffFiles, HeaderOnlyFilesCompareAsEmpty) {
  std::string a = folder("a", "rank,step,step_ns\n", kRanksHeader, kKernelsHeader,
                         "{\"findings\":[],\"below_threshold\":[]}");
  auto d = computeDiff(a, a);
  ASSERT_TRUE(d) << d.error().message;
  EXPECT_TRUE(d->noChange);
  EXPECT_TRUE(d->steps->common.empty());
}

}  // namespace
}  // namespace xstack

namespace xstack {
namespace {

const char* kCollectivesHeader =
    "group,collective,bytes,count,transfer_p50_ms,transfer_p95_ms,busbw_p50_gbps,wait_ms,"
    "top_late_rank,top_late_share\n";
const char* kWaitsHeader = "rank,node,waited_ms_per_step,caused_ms_per_step,top_cause\n";

class DiffCollectives : public TempDirTest {
 protected:
  // A report folder with steps.csv and, when not nullptr, collectives.csv and waits.csv.
  std::string folder(const std::string& name, const std::string* collectives,
                     const std::string* waits) {
    fs::create_directories(dir_ / name);
    write(name + "/steps.csv", "rank,step,step_ns\n0,0,10\n");
    if (collectives) write(name + "/collectives.csv", kCollectivesHeader + *collectives);
    if (waits) write(name + "/waits.csv", kWaitsHeader + *waits);
    return (dir_ / name).string();
  }
};

// A row whose calls' sizes vary (bytes 0) tells its median size when the file
// has bytes_p50; a file of an older xstack without the column still reads.
TEST_F(DiffCollectives, AnAllToAllvRowTellsItsMedianSize) {
  fs::create_directories(dir_ / "a");
  fs::create_directories(dir_ / "b");
  for (const char* side : {"a", "b"})
    write(std::string(side) + "/steps.csv", "rank,step,step_ns\n0,0,10\n");
  write("a/collectives.csv",
        std::string(kCollectivesHeader) + "dp,alltoallv,0,8,1.000,1.200,2.000,5.000,3,0.400\n");
  std::string header = kCollectivesHeader;
  header.insert(header.size() - 1, ",bytes_p50");
  write("b/collectives.csv", header + "dp,alltoallv,0,8,2.000,2.400,2.000,5.000,3,0.400,1500\n");
  auto older = computeDiff((dir_ / "a").string(), (dir_ / "b").string());
  ASSERT_TRUE(older) << older.error().message;
  ASSERT_EQ(older->collectives->top.size(), 1u);
  EXPECT_EQ(older->collectives->top[0].a.bytesP50, -1);
  EXPECT_EQ(older->collectives->top[0].b.bytesP50, 1500);
  EXPECT_EQ(diffText(*older).find("size p50"), std::string::npos);  // A does not tell it
  auto j = nlohmann::json::parse(diffJson(*older, ""));
  EXPECT_TRUE(j["collectives"]["top"][0]["a"]["bytes_p50"].is_null());
  EXPECT_EQ(j["collectives"]["top"][0]["b"]["bytes_p50"], 1500);
  // diff.html: A's size is "-" (not in its file), B's 1500.
  const std::string html = diffHtml(*older, "xstack diff a b");
  EXPECT_NE(html.find("<th>size p50 A (bytes)</th><th>size p50 B (bytes)</th>"), std::string::npos);
  EXPECT_NE(
      html.find(
          "<td class=\"n\" data-v=\"-1\">-</td><td class=\"n\" data-v=\"1500.000000\">1500</td>"),
      std::string::npos)
      << html;

  write("a/collectives.csv", header + "dp,alltoallv,0,8,1.000,1.200,2.000,5.000,3,0.400,1000\n");
  auto d = computeDiff((dir_ / "a").string(), (dir_ / "b").string());
  ASSERT_TRUE(d) << d.error().message;
  const std::string text = diffText(*d);
  EXPECT_NE(text.find("  alltoallv 0 B, group dp: transfer p50 1.000 ms -> 2.000 ms (+100.0 %), "
                      "size p50 1000 B -> 1500 B, busbw p50"),
            std::string::npos)
      << text;
  write("b/collectives.csv", header + "dp,alltoallv,0,8,2.000,2.400,2.000,5.000,3,0.400,-1\n");
  auto bad = computeDiff((dir_ / "a").string(), (dir_ / "b").string());
  ASSERT_FALSE(bad);
  EXPECT_NE(bad.error().message.find("bytes_p50"), std::string::npos) << bad.error().message;
}

TEST_F(DiffCollectives, BothPresentAreCompared) {
  const std::string ca =
      ",allreduce,1048576,10,1.000,1.200,2.000,5.000,3,0.400\n"
      "tp,allgather,4096,4,0.100,0.100,1.500,0.500,1,0.500\n"
      "pp,send,64,2,0.010,0.010,,0.000,0,1.000\n";
  const std::string cb =
      ",allreduce,1048576,10,1.000,1.200,2.000,9.000,5,1.000\n"  // only the wait changed
      "tp,allgather,4096,4,0.400,0.500,0.375,0.500,1,0.500\n"    // 4x slower transfer
      "\"p,q\",broadcast,8,1,0.001,0.001,0.008,0.250,2,1.000\n";
  const std::string wa = "0,0,1.000,0.000,\n1,0,0.100,2.000,host\n2,1,0.500,0.000,\n";
  const std::string wb = "0,0,4.000,0.000,\n1,0,0.000,9.500,compute\n3,1,0.500,0.000,\n";
  auto d = computeDiff(folder("a", &ca, &wa), folder("b", &cb, &wb));
  ASSERT_TRUE(d) << d.error().message;
  EXPECT_EQ(d->missing.size(), 8u);  // ranks, kernels, findings, critical_path in A and B
  EXPECT_FALSE(d->noChange);
  ASSERT_TRUE(d->collectives);
  const CollectivesDiff& c = *d->collectives;
  EXPECT_EQ(c.changedRows, 2u);
  ASSERT_EQ(c.top.size(), 1u);  // the allreduce's transfer and busbw are equal
  EXPECT_EQ(c.top[0].b.collective, "allgather");
  EXPECT_DOUBLE_EQ(c.top[0].score, 0.75);
  EXPECT_EQ(c.top[0].b.transferP50Us, 400u);
  ASSERT_EQ(c.added.size(), 1u);
  EXPECT_EQ(c.added[0].b.group, "p,q");
  ASSERT_EQ(c.vanished.size(), 1u);
  EXPECT_LT(c.vanished[0].a.busbwGbps, 0);
  EXPECT_EQ(c.aWaitUs, 5500u);
  EXPECT_EQ(c.bWaitUs, 9750u);
  ASSERT_TRUE(d->waits);
  const WaitsDiff& w = *d->waits;
  ASSERT_EQ(w.all.size(), 2u);
  ASSERT_EQ(w.moved.size(), 2u);
  EXPECT_EQ(w.all[w.moved[0]].b.rank, 1);  // caused +7.5 ms per step
  EXPECT_EQ(w.all[w.moved[0]].moveUs, 7500u);
  ASSERT_EQ(w.causeChanged.size(), 1u);
  EXPECT_EQ(w.onlyA, (std::vector<int64_t>{2}));
  EXPECT_EQ(w.onlyB, (std::vector<int64_t>{3}));
  const std::string text = diffText(*d);
  EXPECT_NE(text.find("  allgather 4096 B, group tp: transfer p50 0.100 ms -> 0.400 ms (+300.0 %), "
                      "busbw p50 1.500 GB/s -> 0.375 GB/s (-75.0 %)"),
            std::string::npos)
      << text;
  EXPECT_NE(text.find("wait (summed) 5.500 ms -> 9.750 ms (+4.250 ms, +77.3 %)"), std::string::npos)
      << text;
  EXPECT_NE(text.find("  new: broadcast 8 B, group p,q: count 1"), std::string::npos) << text;
  EXPECT_NE(text.find("  vanished: send 64 B, group pp"), std::string::npos) << text;
  EXPECT_NE(text.find("  rank 1 (node 0): waited 0.100 ms -> 0.000 ms (-0.100 ms), caused "
                      "2.000 ms -> 9.500 ms (+7.500 ms); top cause host -> compute"),
            std::string::npos)
      << text;
  EXPECT_NE(text.find("  top cause changed: rank 1 (node 0) host -> compute\n"), std::string::npos)
      << text;
  auto j = nlohmann::json::parse(diffJson(*d, ""));
  EXPECT_EQ(j["collectives"]["top"][0]["b"]["transfer_p50_ms"], 0.4);
  EXPECT_TRUE(j["collectives"]["vanished_rows"][0]["b"].is_null());
  EXPECT_TRUE(j["collectives"]["vanished_rows"][0]["a"]["busbw_p50_gbps"].is_null());
  EXPECT_EQ(j["collectives"]["new_rows"][0]["group"], "p,q");
  EXPECT_EQ(j["waits"]["top"][0]["rank"], 1);
  EXPECT_EQ(j["waits"]["cause_changed"][0]["b"]["top_cause"], "compute");
  const std::string h = diffHtml(*d, "xstack diff a b");
  EXPECT_NE(h.find("<table class=\"sortable\" id=\"collectives\">"), std::string::npos);
  EXPECT_NE(h.find("<table class=\"sortable\" id=\"waits\">"), std::string::npos);
  EXPECT_NE(h.find("<th>busbw p50 B (GB/s)</th>"), std::string::npos);
}

TEST_F(DiffCollectives, SameFilesAreNoChange) {
  const std::string c = ",allreduce,0,4,2.080,2.129,,23.643,4,0.250\n";
  const std::string w = "0,0,1.303,0.000,\n1,0,0.081,1.424,host\n";
  const std::string a = folder("a", &c, &w);
  auto d = computeDiff(a, a);
  ASSERT_TRUE(d) << d.error().message;
  EXPECT_TRUE(d->noChange);
  EXPECT_NE(diffText(*d).find("no change: step times, rank categories, kernels, findings, "
                              "collectives, waits and critical paths are equal"),
            std::string::npos);
}

TEST_F(DiffCollectives, MissingOnOneSideIsNamedAndTheRestCompared) {
  const std::string c = ",allreduce,0,4,2.080,2.129,,23.643,4,0.250\n";
  const std::string w = "0,0,1.303,0.000,\n";
  auto d = computeDiff(folder("old", nullptr, nullptr), folder("new", &c, &w));
  ASSERT_TRUE(d) << d.error().message;
  EXPECT_EQ(d->missing, (std::vector<std::string>{
                            "A: ranks.csv", "B: ranks.csv", "A: kernels.csv", "B: kernels.csv",
                            "A: findings.json", "B: findings.json", "A: collectives.csv",
                            "A: waits.csv", "A: critical_path.csv", "B: critical_path.csv"}));
  EXPECT_FALSE(d->noChange);
  EXPECT_TRUE(d->steps);
  EXPECT_FALSE(d->collectives);
  EXPECT_FALSE(d->waits);
  const std::string text = diffText(*d);
  EXPECT_EQ(text.find("collectives ("), std::string::npos) << text;
  EXPECT_NE(text.find("A: collectives.csv, A: waits.csv, A: critical_path.csv"), std::string::npos)
      << text;
  auto j = nlohmann::json::parse(diffJson(*d, ""));
  EXPECT_TRUE(j["collectives"].is_null());
  EXPECT_TRUE(j["waits"].is_null());
  EXPECT_NE(diffHtml(*d, "x").find("Collectives whose transfer"), std::string::npos);
}

TEST_F(DiffCollectives, OnlyTheNewFilesAreStillAReportFolder) {
  const std::string c = ",allreduce,0,4,2.080,2.129,,23.643,4,0.250\n";
  fs::create_directories(dir_ / "only");
  write("only/collectives.csv", kCollectivesHeader + c);
  auto d = computeDiff((dir_ / "only").string(), (dir_ / "only").string());
  ASSERT_TRUE(d) << d.error().message;
  EXPECT_TRUE(d->noChange);
}

TEST_F(DiffCollectives, MalformedFilesNameTheFileAndLine) {
  const std::string good = ",allreduce,0,4,2.080,2.129,,23.643,4,0.250\n";
  const std::string w = "0,0,1.303,0.000,\n";
  const std::string a = folder("a", &good, &w);
  const struct {
    const char* name;
    std::string collectives, waits, expect;
  } cases[] = {
      {"p50", good + ",allgather,8,1,1.2345,1,,0,0,1.000\n", w,
       "collectives.csv: line 3: transfer_p50_ms is not a number with at most 3 decimals: "
       "'1.2345'"},
      {"busbw", ",allreduce,0,4,2.080,2.129,-1,23.643,4,0.250\n", w,
       "collectives.csv: line 2: busbw_p50_gbps is not a number in range: '-1'"},
      {"share", ",allreduce,0,4,2.080,2.129,,23.643,4,1.5\n", w,
       "collectives.csv: line 2: top_late_share is not a number in range: '1.5'"},
      {"twice", good + good, w, "collectives.csv: line 3: group, collective and bytes twice"},
      {"short", ",allreduce,0\n", w, "collectives.csv: line 2: 3 fields, fewer than the header's"},
      {"order", good, "1,0,0.000,0.000,\n0,0,0.000,0.000,\n",
       "waits.csv: line 3: rank 0 out of order (ranks ascend)"},
      {"waited", good, "0,0,x,0.000,\n",
       "waits.csv: line 2: waited_ms_per_step is not a number with at most 3 decimals: 'x'"},
  };
  for (const auto& c : cases) {
    const std::string b = folder(c.name, &c.collectives, &c.waits);
    auto d = computeDiff(a, b);
    ASSERT_FALSE(d) << c.name;
    EXPECT_NE(d.error().message.find(c.expect), std::string::npos)
        << c.name << ": " << d.error().message;
  }
  fs::create_directories(dir_ / "hdr");
  write("hdr/collectives.csv", "group,collective\n");
  auto d = computeDiff(a, (dir_ / "hdr").string());
  ASSERT_FALSE(d);
  EXPECT_NE(d.error().message.find("collectives.csv: line 1: not the expected header (no column "
                                   "bytes, count"),
            std::string::npos)
      << d.error().message;
}

TEST_F(DiffCollectives, NamesFromTheFilesAreTerminalSafe) {
  const std::string ca = "\"g\x1b[2J\",allreduce,8,1,0.001,0.001,0.008,0.000,0,1.000\n";
  const std::string cb = "\"g\x1b[2J\",allreduce,8,1,0.002,0.002,0.004,0.000,0,1.000\n";
  const std::string wa = "0,\"n\x1b]0;t\x07\",1.000,0.000,host\n";
  const std::string wb = "0,\"n\x1b]0;t\x07\",2.000,0.000,\"c\x9b\"\n";
  auto d = computeDiff(folder("a", &ca, &wa), folder("b", &cb, &wb));
  ASSERT_TRUE(d) << d.error().message;
  const std::string text = diffText(*d);
  EXPECT_EQ(text.find('\x1b'), std::string::npos) << text;
  EXPECT_EQ(text.find('\x07'), std::string::npos) << text;
  EXPECT_EQ(text.find('\x9b'), std::string::npos) << text;
  const std::string json = diffJson(*d, "");
  EXPECT_EQ(json.find('\x1b'), std::string::npos);
  auto j = nlohmann::json::parse(json);
  EXPECT_EQ(j["collectives"]["top"][0]["group"].get<std::string>(), "g\x1b[2J");
}

}  // namespace
}  // namespace xstack

namespace xstack {
namespace {

const char* kPathHeader = "step,order,rank,kind,start_ns,dur_ns,detail\n";

class DiffCriticalPath : public TempDirTest {
 protected:
  std::string folder(const std::string& name, const std::string& rows) {
    fs::create_directories(dir_ / name);
    write(name + "/steps.csv", "rank,step,step_ns\n0,0,10\n");
    write(name + "/critical_path.csv", kPathHeader + rows);
    return (dir_ / name).string();
  }
};

// Two steps in each run. A: rank 0 computes 6 ms a step, rank 1 transfers 2 ms.
// B: rank 1 computes 10 ms in step 1 (5 ms a step more), rank 2 joins the path
// (0.5 ms a step of host), rank 0 keeps its 6 ms a step.
TEST_F(DiffCriticalPath, KindsAndRanksPerStepAndTheRanksThatMoved) {
  const std::string a =
      "0,0,0,compute,0,6000000,\n0,1,1,transfer,6000000,2000000,\"allreduce group 0\"\n"
      "1,0,0,compute,9000000,6000000,\n1,1,1,transfer,15000000,2000000,\n";
  const std::string b =
      "0,0,0,compute,0,6000000,\n0,1,1,transfer,6000000,2000000,\n"
      "1,0,1,compute,9000000,10000000,\n1,1,2,host,19000000,1000000,\n"
      "1,2,1,transfer,20000000,2000000,\n1,3,0,compute,22000000,6000000,\n";
  auto d = computeDiff(folder("a", a), folder("b", b));
  ASSERT_TRUE(d) << d.error().message;
  ASSERT_TRUE(d->criticalPath);
  const CriticalPathDiff& p = *d->criticalPath;
  EXPECT_FALSE(p.same);
  EXPECT_FALSE(d->noChange);
  EXPECT_EQ(p.aSteps, 2u);
  EXPECT_EQ(p.aNs, 8'000'000u);   // 16 ms over 2 steps
  EXPECT_EQ(p.bNs, 13'500'000u);  // 27 ms over 2 steps
  ASSERT_EQ(p.kinds.size(), 3u);  // compute, host, transfer
  EXPECT_EQ(p.kinds[0].kind, "compute");
  EXPECT_EQ(p.kinds[0].aNs, 6'000'000u);
  EXPECT_EQ(p.kinds[0].bNs, 11'000'000u);
  EXPECT_EQ(p.kinds[1].kind, "host");
  EXPECT_EQ(p.kinds[1].aNs, 0u);
  ASSERT_EQ(p.ranks.size(), 3u);
  ASSERT_EQ(p.moved.size(), 2u);           // rank 0 computes 6 ms a step in both
  EXPECT_EQ(p.ranks[p.moved[0]].rank, 1);  // +5 ms a step, then rank 2 (+0.5)
  EXPECT_EQ(p.ranks[p.moved[0]].aKind, "transfer");
  EXPECT_EQ(p.ranks[p.moved[0]].bKind, "compute");
  EXPECT_EQ(p.ranks[p.moved[1]].rank, 2);
  EXPECT_EQ(p.ranks[p.moved[1]].aKind, "");
  EXPECT_EQ(p.ranks[0].aNs, p.ranks[0].bNs);
  const std::string text = diffText(*d);
  EXPECT_NE(text.find("critical path (critical_path.csv, per step): 8.000 ms -> 13.500 ms "
                      "(+5.500 ms); 2 -> 2 steps, 3 ranks on either path, 2 moved\n"
                      "  by kind: compute 6.000 ms -> 11.000 ms (+5.000 ms), host 0.000 ms -> "
                      "0.500 ms (+0.500 ms), transfer 2.000 ms -> 2.000 ms (+0.000 ms)\n"
                      "  rank 1: 2.000 ms -> 7.000 ms (+5.000 ms), mostly transfer -> compute\n"),
            std::string::npos)
      << text;
  EXPECT_NE(text.find("  rank 2: 0.000 ms -> 0.500 ms (+0.500 ms), mostly none -> host\n"),
            std::string::npos)
      << text;
  auto j = nlohmann::json::parse(diffJson(*d, ""));
  EXPECT_EQ(j["critical_path"]["b_ms_per_step"], 13.5);
  EXPECT_EQ(j["critical_path"]["kinds"][0]["b_ms_per_step"], 11.0);
  EXPECT_EQ(j["critical_path"]["top"][0]["rank"], 1);
  EXPECT_EQ(j["critical_path"]["top"][0]["b"]["main_kind"], "compute");
  const std::string html = diffHtml(*d, "x");
  EXPECT_NE(html.find("<table class=\"sortable\" id=\"critical_path\">"), std::string::npos);
  EXPECT_NE(html.find("<th>on the path B (ms/step)</th>"), std::string::npos);

  auto same = computeDiff(folder("a", a), folder("c", a));
  ASSERT_TRUE(same) << same.error().message;
  EXPECT_TRUE(same->criticalPath->same);
  EXPECT_TRUE(same->noChange);
}

TEST_F(DiffCriticalPath, ABadFileIsAnErrorNamingItsLine) {
  const std::string good = folder("a", "0,0,0,compute,0,10,\n");
  for (const char* rows : {"1,0,0,compute,0,10,\n0,0,0,compute,0,10,\n",  // step goes back
                           "0,0,0,compute,0,-1,\n",                       // dur_ns
                           "0,0,0,,0,10,\n"}) {                           // no kind
    auto d = computeDiff(good, folder("b", rows));
    ASSERT_FALSE(d) << rows;
    EXPECT_NE(d.error().message.find("critical_path.csv"), std::string::npos) << d.error().message;
  }
  // Only the header (no collective in the job): zero steps, compared as such.
  auto empty = computeDiff(folder("c", ""), folder("d", ""));
  ASSERT_TRUE(empty) << empty.error().message;
  EXPECT_EQ(empty->criticalPath->aSteps, 0u);
  EXPECT_TRUE(empty->noChange);
}

}  // namespace
}  // namespace xstack
