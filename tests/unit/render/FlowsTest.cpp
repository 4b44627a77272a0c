// Flows launch -> GPU activity (docs/FORMAT.md section 3, "Flows"): which
// ops RowBuckets pairs, the ids the walk gives them, the JSON (flow v2 on the
// X events) and .pftrace (flow_ids / terminating_flow_ids) encodings, and
// both files read back by Perfetto's own importer (trace_processor_shell of
// ../shared/tools; skipped when absent).
#include <gtest/gtest.h>

#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <map>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "../TempDirTest.h"
#include "xstack/model/RankRows.h"
#include "xstack/render/RowBuckets.h"
#include "xstack/render/json/JsonRenderer.h"
#include "xstack/render/perfetto/PerfettoRenderer.h"

namespace xstack {
namespace {

constexpr int64_t kNoCorrelation = -1;

SliceEvent slice(std::string_view name, uint64_t start, uint64_t end, RowKind kind, int64_t device,
                 int64_t tid, int64_t correlation) {
  SliceEvent e;
  e.name = name;
  e.startNs = start;
  e.endNs = end;
  e.row = {kind, device};
  e.tid = tid;
  e.correlation = correlation;
  return e;
}

// A launch on cuda_api (tid 100) and a kernel on gpu:0 (stream 7).
void launch(EventList& d, std::string_view name, uint64_t start, uint64_t end, int64_t c) {
  d.onSlice(slice(name, start, end, RowKind::CudaApi, -1, 100, c));
}
void kernel(EventList& d, std::string_view name, uint64_t start, uint64_t end, int64_t c,
            int64_t stream = 7) {
  d.onSlice(slice(name, start, end, RowKind::Gpu, 0, stream, c));
}

// One rank's events: flows for correlations 5 and 6 (kernels at the same
// ts, one of 0 ns; a launch of 0 ns); none for a launch and kernel
// at the same ns (7), a launch without kernel (9), a kernel without launch
// (10), a kernel before its launch (11), a CPU op with a correlation (12),
// ops without any.
EventList flowEvents(const std::string& tag) {
  EventList d;
  d.onSlice(slice("cpu op", 500, 9000, RowKind::CpuBlock, 0, 3, 12));
  launch(d, "L" + tag + "_5", 1000, 1500, 5);
  launch(d, "L" + tag + "_6", 1600, 1600, 6);
  launch(d, "L" + tag + "_7", 2000, 2100, 7);
  launch(d, "launch without kernel", 2200, 2300, 9);
  launch(d, "late launch", 9500, 9600, 11);
  launch(d, "plain launch", 9700, 9800, kNoCorrelation);
  kernel(d, "K" + tag + "_5", 3000, 3000, 5);
  kernel(d, "K" + tag + "_6", 3000, 4000, 6);
  kernel(d, "K" + tag + "_7", 2000, 2500, 7, 8);
  kernel(d, "kernel without launch", 4000, 4500, 10);
  kernel(d, "early kernel", 5000, 5100, 11);
  kernel(d, "plain kernel", 6000, 6100, kNoCorrelation);
  return d;
}

// The flow of each extra by op name.
std::map<std::string, FlowEnd> flowsByName(const EventList& d) {
  std::vector<RowKey> rows = rankRows(d);
  RowBuckets b;
  b.reset(rows);
  b.addAll(d);
  EXPECT_TRUE(b.hasCorrelations());
  EXPECT_TRUE(b.markFlowEnds(TimeOrigin{0}));
  std::map<std::string, FlowEnd> out;
  for (size_t r = 0; r < rows.size(); ++r)
    for (size_t t = 0; t < b.tidCount(r); ++t)
      for (const RowBuckets::Op& op : b.tids(r)[t].ops)
        out[std::string(b.names().raw(op.nameId))] =
            op.extra ? b.extras()[op.extra - 1].flow : FlowEnd::None;
  return out;
}

TEST(Flows, RowBucketsPairsALaunchWithItsGpuActivity) {
  const std::map<std::string, FlowEnd> f = flowsByName(flowEvents("0"));
  EXPECT_EQ(f.at("L0_5"), FlowEnd::Out);
  EXPECT_EQ(f.at("K0_5"), FlowEnd::In);
  EXPECT_EQ(f.at("L0_6"), FlowEnd::Out);
  EXPECT_EQ(f.at("K0_6"), FlowEnd::In);
  for (const char* none : {"L0_7", "K0_7", "cpu op", "launch without kernel", "late launch",
                           "plain launch", "kernel without launch", "early kernel", "plain kernel"})
    EXPECT_EQ(f.at(none), FlowEnd::None) << none;
}

TEST(Flows, ASharedCorrelationLinksTheEarliestOfEachSide) {
  EventList d;
  launch(d, "second launch", 2000, 2100, 3);
  launch(d, "first launch", 1000, 1100, 3);
  kernel(d, "third kernel", 5000, 5100, 3);
  kernel(d, "first kernel", 3000, 3100, 3, 9);
  kernel(d, "tied kernel", 3000, 3200, 3);
  const std::map<std::string, FlowEnd> f = flowsByName(d);
  EXPECT_EQ(f.at("first launch"), FlowEnd::Out);
  EXPECT_EQ(f.at("first kernel"), FlowEnd::In);
  EXPECT_EQ(f.at("second launch"), FlowEnd::None);
  EXPECT_EQ(f.at("third kernel"), FlowEnd::None);
  EXPECT_EQ(f.at("tied kernel"), FlowEnd::None);
}

TEST(Flows, EndsThatShareTheOutputTsGiveNoFlow) {
  // Both before the origin: both at ts 0 in the output.
  EventList d;
  launch(d, "l", 500, 600, 3);
  kernel(d, "k", 800, 900, 3);
  std::vector<RowKey> rows = rankRows(d);
  RowBuckets b;
  b.reset(rows);
  b.addAll(d);
  EXPECT_FALSE(b.markFlowEnds(TimeOrigin{1000}));
  EXPECT_TRUE(b.markFlowEnds(TimeOrigin{0}));
}

TEST(Flows, NoCorrelationNoExtraNoFlow) {
  EventList d;
  launch(d, "a", 1000, 1100, kNoCorrelation);
  kernel(d, "b", 2000, 2100, kNoCorrelation);
  std::vector<RowKey> rows = rankRows(d);
  RowBuckets b;
  b.reset(rows);
  b.addAll(d);
  EXPECT_FALSE(b.hasCorrelations());
  EXPECT_TRUE(b.extras().empty());
  b.reset(rows);  // a profile with correlations, then one without: forgotten
  b.addAll(flowEvents("0"));
  EXPECT_TRUE(b.hasCorrelations());
  b.reset(rows);
  EXPECT_FALSE(b.hasCorrelations());
}

TEST(Flows, IdsCombineRankAndCorrelation) {
  EXPECT_EQ(traceFlowId(0, 5), (uint64_t{1} << 32) + 5);
  EXPECT_EQ(traceFlowId(3, 5), (uint64_t{4} << 32) + 5);
  EXPECT_EQ(traceFlowId(0, 0), uint64_t{1} << 32);
  EXPECT_LT(traceFlowId((int64_t{1} << 21) - 2, (int64_t{1} << 32) - 1), uint64_t{1} << 53);
  EXPECT_EQ(traceFlowId((int64_t{1} << 21) - 1, 5), 0u);
  EXPECT_EQ(traceFlowId(-1, 5), 0u);
  EXPECT_EQ(traceFlowId(0, int64_t{1} << 32), 0u);
  EXPECT_EQ(traceFlowId(0, -1), 0u);
}

// The JSON events of rank `rank`'s rows (pids from pidBase).
std::string renderJson(const std::vector<std::pair<int64_t, EventList*>>& ranks) {
  std::string text;
  JsonRenderer r(TimeOrigin{0}, [&](std::string_view s) { text += s; });
  int64_t pidBase = 8;
  for (const auto& [rank, events] : ranks) {
    const std::vector<RowKey> rows = rankRows(*events);
    r.rankRows(rank, pidBase, rows, *events);
    pidBase += static_cast<int64_t>(rows.size());
  }
  r.flush();
  return text;
}

std::string renderPftrace(const std::vector<std::pair<int64_t, EventList*>>& ranks) {
  std::string bytes;
  uint32_t sequence = 1;
  int64_t pidBase = 8;
  for (const auto& [rank, events] : ranks) {
    PerfettoRenderer r(TimeOrigin{0}, sequence++, [&](std::string& s) { bytes += s; });
    const std::vector<RowKey> rows = rankRows(*events);
    RowBuckets b;
    b.reset(rows);
    b.addAll(*events);
    r.rankRows(rank, pidBase, rows, b);
    r.flush();
    pidBase += static_cast<int64_t>(rows.size());
  }
  return bytes;
}

TEST(Flows, JsonBindsFlowV2OnTheXEvents) {
  EventList r0 = flowEvents("0"), r1 = flowEvents("1");
  const std::string text = renderJson({{0, &r0}, {1, &r1}});
  const nlohmann::json all = nlohmann::json::parse("[" + text.substr(1) + "]");
  std::map<std::string, nlohmann::json> byName;
  for (const auto& e : all)
    if (e["ph"] == "X") byName[e["name"].get<std::string>()] = e;
  for (int rank : {0, 1}) {
    for (int c : {5, 6}) {
      const std::string tag = std::to_string(rank) + "_" + std::to_string(c);
      const nlohmann::json& l = byName.at("L" + tag);
      const nlohmann::json& k = byName.at("K" + tag);
      const uint64_t id = (static_cast<uint64_t>(rank + 1) << 32) + static_cast<uint64_t>(c);
      EXPECT_EQ(l.at("bind_id").get<uint64_t>(), id) << tag;
      EXPECT_EQ(l.at("flow_out"), true);
      EXPECT_FALSE(l.contains("flow_in"));
      EXPECT_EQ(k.at("bind_id").get<uint64_t>(), id) << tag;
      EXPECT_EQ(k.at("flow_in"), true);
      EXPECT_FALSE(k.contains("flow_out"));
    }
  }
  size_t bound = 0;
  for (const auto& e : all) bound += e.contains("bind_id");
  EXPECT_EQ(bound, 8u);  // 2 ranks x 2 flows x 2 ends, nothing else
  // The key order of an X event with a flow: the flow after args.
  EXPECT_NE(text.find("\"args\":{\"name\":\"L0_5\"},\"bind_id\":4294967301,\"flow_out\":true}"),
            std::string::npos);
}

TEST(Flows, WithoutCorrelationsTheBytesAreThoseWithoutTheField) {
  // Correlations that pair nothing (a launch only) change no byte of either format.
  EventList with, without;
  launch(with, "a", 1000, 1100, 4);
  kernel(with, "b", 2000, 2100, 5);
  launch(without, "a", 1000, 1100, kNoCorrelation);
  kernel(without, "b", 2000, 2100, kNoCorrelation);
  EXPECT_EQ(renderJson({{0, &with}}), renderJson({{0, &without}}));
  EXPECT_EQ(renderPftrace({{0, &with}}), renderPftrace({{0, &without}}));
}

// Whether `bytes` holds field `field` as fixed64 with value `v`.
bool hasFixed64(const std::string& bytes, uint32_t field, uint64_t v) {
  std::string needle;
  uint64_t tag = (static_cast<uint64_t>(field) << 3) | 1;
  while (tag >= 0x80) {
    needle.push_back(static_cast<char>((tag & 0x7F) | 0x80));
    tag >>= 7;
  }
  needle.push_back(static_cast<char>(tag));
  for (int k = 0; k < 8; ++k) needle.push_back(static_cast<char>((v >> (8 * k)) & 0xFF));
  return bytes.find(needle) != std::string::npos;
}

TEST(Flows, PftraceCarriesFlowIdsOnBothSliceBegins) {
  EventList r0 = flowEvents("0");
  const std::string bytes = renderPftrace({{0, &r0}});
  for (uint64_t c : {5, 6}) {
    const uint64_t id = (uint64_t{1} << 32) + c;
    EXPECT_TRUE(hasFixed64(bytes, 47, id)) << c;
    EXPECT_TRUE(hasFixed64(bytes, 48, id)) << c;
  }
  EXPECT_FALSE(hasFixed64(bytes, 47, (uint64_t{1} << 32) + 7));
  EXPECT_FALSE(hasFixed64(bytes, 47, (uint64_t{1} << 32) + 9));
  EXPECT_FALSE(hasFixed64(bytes, 48, (uint64_t{1} << 32) + 10));
}

std::filesystem::path traceProcessorShell() {
  std::filesystem::path shared = "../shared";
  if (const char* env = std::getenv("XSTACK_SHARED_DIR")) shared = env;
#ifdef XSTACK_SHARED_DIR
  else
    shared = XSTACK_SHARED_DIR;
#endif
  return shared / "tools" / "trace_processor_shell";
}

// The last line of trace_processor_shell's answer to `sql` on `trace`.
std::string lastLineOfQuery(const std::filesystem::path& shell, const std::string& sqlFile,
                            const std::string& trace) {
  const std::string command =
      "'" + shell.string() + "' query -f '" + sqlFile + "' '" + trace + "' 2>/dev/null";
  FILE* p = ::popen(command.c_str(), "r");
  if (!p) return {};
  std::string out;
  char buf[4096];
  size_t n = 0;
  while ((n = std::fread(buf, 1, sizeof buf, p)) > 0) out.append(buf, n);
  EXPECT_EQ(::pclose(p), 0) << command;
  while (!out.empty() && out.back() == '\n') out.pop_back();
  return out.substr(out.rfind('\n') + 1);
}

// Flows in all; those from a cuda_api slice L<r>_<c> to a gpu slice
// K<r>_<c> of the same rank; import errors.
constexpr const char* kFlowQuery = R"(
select
  (select count(*) from flow) as flows,
  (select count(*) from flow f
     join slice so on so.id = f.slice_out
     join thread_track tto on tto.id = so.track_id
     join thread t1 on t1.utid = tto.utid join process p1 on p1.upid = t1.upid
     join slice si on si.id = f.slice_in
     join thread_track tti on tti.id = si.track_id
     join thread t2 on t2.utid = tti.utid join process p2 on p2.upid = t2.upid
   where p1.name like '%:cuda_api' and p2.name like '%:gpu:0'
     and substr(p1.name, 4, 15) = substr(p2.name, 4, 15)
     and so.name like 'L%' and si.name = 'K' || substr(so.name, 2)) as linked,
  (select count(*) from stats where severity in ('error', 'data_loss') and value > 0) as errors;
)";

class FlowsInTraceProcessor : public TempDirTest {};

TEST_F(FlowsInTraceProcessor, BothFormatsImportWithTheirFlows) {
  const std::filesystem::path shell = traceProcessorShell();
  if (!std::filesystem::exists(shell)) GTEST_SKIP() << shell << " absent (../shared not here)";
  EventList r0 = flowEvents("0"), r1 = flowEvents("1");
  const std::vector<std::pair<int64_t, EventList*>> ranks = {{0, &r0}, {1, &r1}};
  const std::string json =
      write("flows.json", "{\"traceEvents\":[" + renderJson(ranks).substr(1) + "\n]}\n");
  const std::string pftrace = write("flows.pftrace", renderPftrace(ranks));
  const std::string sql = write("flows.sql", kFlowQuery);
  for (const std::string& trace : {json, pftrace})
    EXPECT_EQ(lastLineOfQuery(shell, sql, trace), "4,4,0") << trace;
}

}  // namespace
}  // namespace xstack
