// Rendering of trace events: exact text where docs/FORMAT.md fixes it, valid JSON
// always, never a negative ts.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <limits>
#include <map>
#include <nlohmann/json.hpp>
#include <random>
#include <string>
#include <vector>

#include "xstack/core/TextWriting.h"
#include "xstack/model/TraceLayout.h"
#include "xstack/render/json/JsonRenderer.h"

namespace xstack {
namespace {

using ojson = nlohmann::ordered_json;

struct Rendered {
  std::string text;
  std::vector<std::string> pieces;
  Warnings warnings;
  // The events; without `withThreadMeta`, minus the thread_name and
  // thread_sort_index events (every op row's tid has them: tested by text).
  ojson events(bool withThreadMeta = false) const {
    if (text.empty()) return ojson::array();
    EXPECT_EQ(text.substr(0, 2), ",\n");
    ojson all = ojson::parse("[" + text.substr(1) + "]");
    if (withThreadMeta) return all;
    ojson out = ojson::array();
    for (auto& e : all)
      if (!(e["ph"] == "M" && e["name"].get<std::string>().rfind("thread_", 0) == 0))
        out.push_back(e);
    return out;
  }
};

template <class F>
Rendered render(F&& f, uint64_t originNs = 0, size_t pieceBytes = 1 << 20) {
  Rendered out;
  JsonRenderer r(
      TimeOrigin{originNs},
      [&](std::string_view s) {
        out.pieces.emplace_back(s);
        out.text += s;
      },
      pieceBytes);
  f(r);
  r.flush();
  out.warnings = r.takeWarnings();
  return out;
}

std::vector<std::string> keysOf(const ojson& o) {
  std::vector<std::string> k;
  for (auto it = o.begin(); it != o.end(); ++it) k.push_back(it.key());
  return k;
}

// A slice on cpu:block:<device> (kind CpuBlock), cuda_api (CudaApi, device
// -1) or gpu:<device> (Gpu).
SliceEvent op(std::string_view name, uint64_t start, uint64_t end, int64_t device, int64_t tid,
              RowKind kind = RowKind::CpuBlock) {
  SliceEvent e;
  e.name = name;
  e.startNs = start;
  e.endNs = end;
  e.row = {kind, device};
  e.tid = tid;
  return e;
}

std::vector<RowKey> rowsOf(const EventList& d) { return rankRows(d); }

// An analysis' slice: its args in order, identifier keys as they are and any
// other key escaped, doubles with 3 decimals (printf's), the whole valid JSON.
TEST(JsonRenderer, AnalysisSliceArgsAreValidJsonInOrder) {
  std::string text;
  JsonTraceSink sink([&](std::string& s) { text += s; }, 1 << 16);
  TraceSlice e;
  e.tid = 3;
  e.tsNs = 1500;
  e.durNs = 2000;
  e.name = "send 1 -> 2";
  e.category = "collective";
  e.args = {TraceArg::ofString("collective", "send"),  TraceArg::ofUint("bytes", 8388608),
            TraceArg::ofInt("last_arriver", -1),       TraceArg::ofDouble("wait_ms", 0.0625),
            TraceArg::ofDouble("busbw_gbps", -2.0005), TraceArg::ofInt("we\"ird Key\n", 7)};
  sink.slice(17, e);
  sink.flush();
  ASSERT_EQ(text.substr(0, 2), ",\n");
  const ojson ev = ojson::parse(text.substr(2));
  EXPECT_EQ(ev["ts"], 1.5);
  EXPECT_EQ(ev["dur"], 2.0);
  EXPECT_EQ(keysOf(ev["args"]),
            (std::vector<std::string>{"collective", "bytes", "last_arriver", "wait_ms",
                                      "busbw_gbps", "we\"ird Key\n"}));
  EXPECT_NE(text.find("\"wait_ms\":0.062,\"busbw_gbps\":-2.001"), std::string::npos) << text;
  EXPECT_EQ(ev["args"]["we\"ird Key\n"], 7);
}

// Each arg's text is its definition's: the key as appendJsonString writes it
// and the value as appendInt / appendUint / appendThreeDecimals /
// appendJsonString do, on random keys (identifiers, long ones, ones to
// escape) and values (negative zero, huge, not finite doubles).
TEST(JsonRenderer, AnalysisSliceArgsAreTheirDefinitionsOnAnyValues) {
  std::mt19937_64 rng(11);
  const std::vector<std::string> keys = {"bytes",
                                         "wait_ms",
                                         "k",
                                         "",
                                         std::string(40, 'x'),
                                         std::string(41, 'y'),
                                         "tab\there",
                                         "q\"uote",
                                         "back\\slash",
                                         "caf\xc3\xa9",
                                         "del\x7f"};
  const std::vector<double> doubles = {0.0,
                                       -0.0,
                                       0.0005,
                                       -2.0005,
                                       9007199254740992.0,
                                       -1e300,
                                       1e-310,
                                       std::numeric_limits<double>::infinity(),
                                       std::numeric_limits<double>::quiet_NaN()};
  for (int round = 0; round < 2000; ++round) {
    TraceSlice e;
    e.name = "n";
    e.category = "c";
    std::string want;
    for (int i = 0; i < 6; ++i) {
      const std::string_view key = keys[rng() % keys.size()];
      TraceArg a;
      switch (rng() % 4) {
        case 0:
          a = TraceArg::ofInt(key, static_cast<int64_t>(rng()));
          break;
        case 1:
          a = TraceArg::ofUint(key, rng() >> (rng() % 64));
          break;
        case 2:
          a = TraceArg::ofDouble(key, rng() % 2 ? doubles[rng() % doubles.size()]
                                                : std::ldexp(static_cast<double>(rng() >> 11),
                                                             static_cast<int>(rng() % 90) - 60));
          break;
        default:
          a = TraceArg::ofString(key, "v\"" + std::to_string(rng() % 100));
      }
      if (i) want += ',';
      appendJsonString(want, a.key);
      want += ':';
      if (a.type == TraceArg::Type::Int) appendInt(want, a.i);
      if (a.type == TraceArg::Type::Uint) appendUint(want, a.u);
      if (a.type == TraceArg::Type::Double) appendThreeDecimals(want, a.d);
      if (a.type == TraceArg::Type::String) appendJsonString(want, a.s);
      e.args.push_back(a);
    }
    std::string text;
    JsonTraceSink sink([&](std::string& s) { text += s; }, 1 << 16);
    sink.slice(1, e);
    sink.flush();
    const size_t at = text.find("\"args\":{");
    ASSERT_NE(at, std::string::npos);
    ASSERT_EQ(text.substr(at + 8), want + "}}") << "round " << round;
  }
}

TEST(JsonRenderer, ProcessAndThreadMetadata) {
  auto r = render([](JsonRenderer& e) {
    e.processMeta(kPipelinePid, "00_pipeline");
    e.threadMeta(kPipelinePid, 12, "rank 12");
  });
  EXPECT_EQ(
      r.text,
      ",\n{\"ph\":\"M\",\"name\":\"process_name\",\"pid\":1,\"args\":{\"name\":\"00_pipeline\"}},"
      "\n{\"ph\":\"M\",\"name\":\"process_sort_index\",\"pid\":1,\"args\":{\"sort_index\":1}},"
      "\n{\"ph\":\"M\",\"name\":\"thread_name\",\"pid\":1,\"tid\":12,\"args\":{\"name\":\"rank "
      "12\"}},"
      "\n{\"ph\":\"M\",\"name\":\"thread_sort_index\",\"pid\":1,\"tid\":12,\"args\":{\"sort_"
      "index\":12}}");
  EXPECT_EQ(r.events(true).size(), 4u);
  EXPECT_TRUE(r.warnings.empty());
}

TEST(JsonRenderer, OpEventExactText) {
  EventList d;
  SliceEvent e = op("matmul", 1001234567, 1003234567, 0, 77);
  e.bytes = 4096;
  e.detail = "op_type=matmul";
  d.slices = {e};
  auto r = render([&](JsonRenderer& x) { x.rankRows(1, 9, rowsOf(d), d); }, 1000000000);
  EXPECT_EQ(
      r.text,
      ",\n{\"ph\":\"M\",\"name\":\"process_name\",\"pid\":9,\"args\":{\"name\":"
      "\"08_trainerRank.001:cpu:block:0\"}},"
      "\n{\"ph\":\"M\",\"name\":\"process_sort_index\",\"pid\":9,\"args\":{\"sort_index\":9}},"
      "\n{\"ph\":\"M\",\"name\":\"thread_name\",\"pid\":9,\"tid\":77,\"args\":{\"name\":"
      "\"thread 77\"}},"
      "\n{\"ph\":\"M\",\"name\":\"thread_sort_index\",\"pid\":9,\"tid\":77,\"args\":{\"sort_"
      "index\":77}},"
      "\n{\"ph\":\"X\",\"cat\":\"Op\",\"name\":\"matmul\",\"pid\":9,\"tid\":77,\"ts\":1234.567,"
      "\"dur\":2000,\"args\":{\"name\":\"matmul\",\"mem_bytes\":4096,\"detail_info\":\"op_type="
      "matmul\"}}");
  auto ev = r.events();
  ASSERT_EQ(ev.size(), 3u);
  EXPECT_EQ(keysOf(ev[2]),
            (std::vector<std::string>{"ph", "cat", "name", "pid", "tid", "ts", "dur", "args"}));
  EXPECT_EQ(keysOf(ev[2]["args"]), (std::vector<std::string>{"name", "mem_bytes", "detail_info"}));
  EXPECT_TRUE(r.warnings.empty());
}

TEST(JsonRenderer, MemBytesOnlyWhenPositiveDetailOnlyWhenSet) {
  EventList d;
  d.slices = {op("plain", 10, 20, 0, 1)};
  auto ev = render([&](JsonRenderer& x) { x.rankRows(1, 9, rowsOf(d), d); }).events();
  ASSERT_EQ(ev.size(), 3u);
  EXPECT_EQ(keysOf(ev[2]["args"]), (std::vector<std::string>{"name"}));
  EXPECT_EQ(ev[2]["args"]["name"], "plain");

  d.slices[0].bytes = 1;
  ev = render([&](JsonRenderer& x) { x.rankRows(1, 9, rowsOf(d), d); }).events();
  EXPECT_EQ(keysOf(ev[2]["args"]), (std::vector<std::string>{"name", "mem_bytes"}));
  EXPECT_EQ(ev[2]["args"]["mem_bytes"], 1);

  d.slices[0].bytes = 0;
  d.slices[0].detail = "x";
  ev = render([&](JsonRenderer& x) { x.rankRows(1, 9, rowsOf(d), d); }).events();
  EXPECT_EQ(keysOf(ev[2]["args"]), (std::vector<std::string>{"name", "detail_info"}));
}

TEST(JsonRenderer, TimestampsAreExactMicroseconds) {
  EventList d;
  d.slices = {op("a", 1700000000000000000u + 1234567, 1700000000000000000u + 1234567 + 7, 0, 1)};
  auto r = render([&](JsonRenderer& x) { x.rankRows(1, 9, rowsOf(d), d); }, 1700000000000000000u);
  EXPECT_NE(r.text.find("\"ts\":1234.567,\"dur\":0.007,"), std::string::npos) << r.text;
}

TEST(JsonRenderer, TimestampBeforeOriginIsClampedToZeroAndCounted) {
  EventList d;
  d.slices = {op("early", 500, 1500, 0, 1), op("zero", 0, 2000, 0, 2),
              op("late", 1500, 1600, 0, 3)};
  auto r = render([&](JsonRenderer& x) { x.rankRows(1, 9, rowsOf(d), d); }, 1000);
  auto ev = r.events();
  ASSERT_EQ(ev.size(), 5u);
  EXPECT_EQ(ev[2]["name"], "early");
  EXPECT_EQ(ev[2]["ts"], 0);
  EXPECT_EQ(ev[3]["name"], "zero");
  EXPECT_EQ(ev[3]["ts"], 0);
  EXPECT_EQ(ev[4]["ts"].get<double>(), 0.5);
  for (const auto& e : ev)
    if (e.contains("ts")) {
      EXPECT_GE(e["ts"].get<double>(), 0);
      EXPECT_GE(e["dur"].get<double>(), 0);
    }
  EXPECT_EQ(r.warnings.count(Warn::TimestampBeforeOrigin), 1u);
  EXPECT_EQ(r.warnings.count(Warn::TimestampZero), 1u);
}

TEST(JsonRenderer, EndBeforeStartGivesZeroDurationAndIsCounted) {
  EventList d;
  d.slices = {op("backwards", 2000, 1000, 0, 1)};
  auto r = render([&](JsonRenderer& x) { x.rankRows(1, 9, rowsOf(d), d); });
  auto ev = r.events();
  ASSERT_EQ(ev.size(), 3u);
  EXPECT_EQ(ev[2]["dur"], 0);
  EXPECT_NE(r.text.find("\"dur\":0,"), std::string::npos);
  EXPECT_EQ(r.warnings.count(Warn::EventEndBeforeStart), 1u);
}

// At one ts the longer first (it encloses the shorter, as Perfetto nests).
TEST(JsonRenderer, EventsInARowAreOrderedByTidThenTsLongerFirstThenInputOrder) {
  EventList d;
  d.slices = {op("t2-late", 300, 310, 0, 2),  op("t1-b", 200, 210, 0, 1),
              op("t2-early", 100, 110, 0, 2), op("t1-a", 100, 105, 0, 1),
              op("t1-c", 200, 250, 0, 1),     op("t-neg", 900, 901, 0, -3)};
  auto ev = render([&](JsonRenderer& x) { x.rankRows(1, 9, rowsOf(d), d); }).events();
  std::vector<std::string> names;
  for (size_t i = 2; i < ev.size(); ++i) names.push_back(ev[i]["name"]);
  EXPECT_EQ(names,
            (std::vector<std::string>{"t-neg", "t1-a", "t1-c", "t1-b", "t2-early", "t2-late"}));
}

// Many tids in one row (past the counting pass's limit of 64) and many
// events out of order: the same order as a plain stable sort by (tid, ts).
TEST(JsonRenderer, ManyTidsAndShuffledEventsKeepTheOrder) {
  for (int tids : {3, 64, 65, 200}) {
    EventList d;
    std::vector<std::string> names;
    for (int i = 0; i < 3000; ++i) names.push_back("e" + std::to_string(i));
    uint64_t x = 12345;
    for (int i = 0; i < 3000; ++i) {
      x = x * 6364136223846793005ull + 1442695040888963407ull;
      int64_t tid = static_cast<int64_t>((x >> 33) % static_cast<uint64_t>(tids)) - 5;
      uint64_t ts = 1000 + (x >> 45) % 500;  // many equal timestamps
      d.slices.push_back(op(names[static_cast<size_t>(i)], ts, ts + 1, 0, tid));
    }
    std::vector<size_t> want(d.slices.size());
    for (size_t i = 0; i < want.size(); ++i) want[i] = i;
    std::stable_sort(want.begin(), want.end(), [&](size_t a, size_t b) {
      const auto &p = d.slices[a], &q = d.slices[b];
      return p.tid != q.tid ? p.tid < q.tid : p.startNs < q.startNs;
    });
    auto ev = render([&](JsonRenderer& r) { r.rankRows(1, 9, rowsOf(d), d); }).events();
    ASSERT_EQ(ev.size(), d.slices.size() + 2) << tids;
    for (size_t i = 0; i < want.size(); ++i)
      ASSERT_EQ(ev[i + 2]["name"], std::string(d.slices[want[i]].name)) << tids << " at " << i;
  }
}

// A name used by several events is escaped once, but its fixes count per event.
TEST(JsonRenderer, RepeatedOddNameIsCountedForEveryEvent) {
  EventList d;
  std::string a = "bad\xff", b = "bad\xff";  // two buffers, same text
  d.slices = {op(a, 1, 2, 0, 1), op(b, 3, 4, 0, 1), op(a, 5, 6, 0, 2)};
  auto r = render([&](JsonRenderer& x) { x.rankRows(1, 9, rowsOf(d), d); });
  EXPECT_EQ(r.events().size(), 5u);
  EXPECT_EQ(r.warnings.count(Warn::StringInvalidUtf8), 3u);
}

TEST(JsonRenderer, RowsGetConsecutivePidsAndTheirOwnEvents) {
  EventList d;
  d.slices = {op("kernel", 50, 60, 3, 7, RowKind::Gpu), op("api", 40, 45, -1, 11, RowKind::CudaApi),
              op("cpu1", 30, 35, 1, 11), op("cpu0", 20, 25, 0, 11),
              op("peer", 55, 58, 4, 7, RowKind::Gpu)};
  MemoryEvent m;
  m.place = MemPlace::Pinned;
  m.device = 1;
  m.startNs = 10;
  m.endNs = 90;
  m.bytes = 4096;
  d.memory = {m};
  auto rows = rowsOf(d);
  auto ev = render([&](JsonRenderer& x) { x.rankRows(1, 9, rows, d); }).events();
  std::vector<std::string> procNames;
  std::vector<std::pair<int64_t, std::string>> events;  // (pid, name) of X and C events
  for (const auto& e : ev) {
    if (e["ph"] == "M" && e["name"] == "process_name") {
      procNames.push_back(e["args"]["name"]);
      EXPECT_EQ(e["pid"].get<int64_t>(), 9 + static_cast<int64_t>(procNames.size()) - 1);
    }
    if (e["ph"] == "X" || e["ph"] == "C") events.push_back({e["pid"], e["name"]});
  }
  EXPECT_EQ(procNames, (std::vector<std::string>{
                           "08_trainerRank.001:cpu:block:0", "09_trainerRank.001:cpu:block:1",
                           "10_trainerRank.001:cuda_api", "11_trainerRank.001:gpu:3",
                           "12_trainerRank.001:gpu:4",
                           "13_memory usage on trainerRank.001:cudapinnedplace:1"}));
  EXPECT_EQ(events, (std::vector<std::pair<int64_t, std::string>>{
                        {9, "cpu0"},
                        {10, "cpu1"},
                        {11, "api"},
                        {12, "kernel"},
                        {13, "peer"},
                        {14, "trainerRank.001:cudapinnedplace:1 memory"},
                        {14, "trainerRank.001:cudapinnedplace:1 memory"}}));
}

TEST(JsonRenderer, MemoryCounterEvents) {
  EventList d;
  auto mk = [](int64_t place, uint64_t dev, uint64_t s, uint64_t e, uint64_t b) {
    MemoryEvent m;
    m.place = static_cast<MemPlace>(place);
    m.device = dev;
    m.startNs = s;
    m.endNs = e;
    m.bytes = b;
    return m;
  };
  d.memory = {mk(0, 0, 1000, 3000, 100), mk(0, 0, 2000, 0, 50), mk(1, 0, 2000, 2500, 8)};
  auto r = render([&](JsonRenderer& x) { x.rankRows(3, 20, rowsOf(d), d); }, 1000);
  EXPECT_NE(r.text.find(",\n{\"ph\":\"C\",\"name\":\"trainerRank.003:gpu:0 "
                        "memory\",\"pid\":20,\"ts\":0,\"args\":{"
                        "\"allocated_bytes\":100}}"),
            std::string::npos)
      << r.text;
  auto ev = r.events();
  std::vector<std::tuple<int64_t, double, int64_t>> samples;
  for (const auto& e : ev)
    if (e["ph"] == "C") {
      EXPECT_EQ(keysOf(e), (std::vector<std::string>{"ph", "name", "pid", "ts", "args"}));
      samples.push_back({e["pid"], e["ts"], e["args"]["allocated_bytes"]});
    }
  EXPECT_EQ(samples, (std::vector<std::tuple<int64_t, double, int64_t>>{
                         {20, 0, 100}, {20, 1, 150}, {20, 2, 50}, {21, 1, 8}, {21, 1.5, 0}}));
  EXPECT_TRUE(r.warnings.empty());  // never-freed was counted when the rows were computed
}

TEST(JsonRenderer, SpansOnThePipelineProcess) {
  std::vector<Span> spans = {{Phase::Forward, 0, 2000, 5000}, {Phase::Backward, 0, 6000, 9500}};
  auto r = render([&](JsonRenderer& x) { x.spans(12, spans); }, 1000);
  EXPECT_EQ(r.text,
            ",\n{\"ph\":\"X\",\"cat\":\"pipeline\",\"name\":\"forward\",\"cname\":\"bad\",\"pid\":"
            "1,\"tid\":13,"
            "\"ts\":1,\"dur\":3,\"args\":{\"rank\":12,\"step\":0}},"
            "\n{\"ph\":\"X\",\"cat\":\"pipeline\",\"name\":\"backward\",\"cname\":\"good\",\"pid\":"
            "1,\"tid\":13,"
            "\"ts\":5,\"dur\":3.5,\"args\":{\"rank\":12,\"step\":0}}");
  EXPECT_EQ(r.events().size(), 2u);
}

TEST(JsonRenderer, SpanBeforeOriginIsClamped) {
  std::vector<Span> spans = {{Phase::Forward, 3, 500, 1500}};
  auto r = render([&](JsonRenderer& x) { x.spans(0, spans); }, 1000);
  auto ev = r.events();
  ASSERT_EQ(ev.size(), 1u);
  EXPECT_EQ(ev[0]["ts"], 0);
  EXPECT_GE(ev[0]["dur"].get<double>(), 0);
  EXPECT_EQ(ev[0]["args"]["step"], 3);
  EXPECT_EQ(r.warnings.count(Warn::TimestampBeforeOrigin), 1u);
}

GpuTelemetrySample dcgm(uint64_t ts, int64_t gpu,
                        std::initializer_list<std::pair<int, double>> values) {
  GpuTelemetrySample s;
  s.tsNs = ts;
  s.gpu = gpu;
  for (auto [k, v] : values) {
    s.present |= 1u << k;
    s.values[static_cast<size_t>(k)] = v;
  }
  return s;
}

TEST(JsonRenderer, DcgmCountersForOneGpuWithMissingSeriesLeftOut) {
  std::vector<GpuTelemetrySample> samples = {
      dcgm(3000, 0, {{kGPUTL, 0.57}, {kGRACT, 0.25}, {kSMACT, 0.5}}),
      dcgm(2000, 1, {{kGPUTL, 0.9}, {kGRACT, 0.1}}),  // another GPU
      dcgm(2000, 0, {{kGRACT, 0.125}}),               // GPUTL was N/A
      dcgm(4000, 0, {{kSMACT, 0.5}}),                 // nothing for pid 2 (GPUTL, GRACT)
  };
  auto r = render([&](JsonRenderer& x) { x.dcgmCounters(2, 0, 1, samples); }, 1000);
  EXPECT_EQ(r.text,
            ",\n{\"ph\":\"C\",\"name\":\"trainer 1 GPU 0\",\"pid\":2,\"ts\":1,\"args\":{"
            "\"GRACT\":0.125}},"
            "\n{\"ph\":\"C\",\"name\":\"trainer 1 GPU 0\",\"pid\":2,\"ts\":2,"
            "\"args\":{\"GPUTL\":0.57,\"GRACT\":0.25}}");
  EXPECT_EQ(dcgmCounterCount(2, 0, samples), 2u);
  EXPECT_EQ(dcgmCounterCount(2, 1, samples), 1u);
  EXPECT_EQ(dcgmCounterCount(3, 0, samples), 2u);
  EXPECT_EQ(dcgmCounterCount(4, 0, samples), 0u);
  EXPECT_EQ(r.events().size(), 2u);
}

TEST(JsonRenderer, DcgmSeriesPerPid) {
  GpuTelemetrySample all;
  all.tsNs = 10;
  for (int k = 0; k < kDcgmSeriesCount; ++k) {
    all.present |= 1u << k;
    all.values[static_cast<size_t>(k)] = k / 8.0;
  }
  const std::vector<std::vector<std::string>> want = {{"GPUTL", "GRACT"},
                                                      {"SMACT", "SMOCC"},
                                                      {"FB_USED_RATIO", "DRAMA"},
                                                      {"NVLTX", "NVLRX", "PCITX", "PCIRX"},
                                                      {"FP32A", "FP16A", "TENSO"}};
  for (int64_t pid = 2; pid <= 6; ++pid) {
    auto ev = render([&](JsonRenderer& x) { x.dcgmCounters(pid, 0, 7, {all}); }).events();
    ASSERT_EQ(ev.size(), 1u);
    EXPECT_EQ(ev[0]["name"], "trainer 7 GPU 0");  // whose GPU; the process says what
    EXPECT_EQ(ev[0]["pid"], pid);
    EXPECT_FALSE(ev[0].contains("id"));
    EXPECT_EQ(keysOf(ev[0]["args"]), want[static_cast<size_t>(pid - 2)]);
  }
}

TEST(JsonRenderer, NonFiniteDcgmValueStillValidJson) {
  std::vector<GpuTelemetrySample> samples = {
      dcgm(10, 0, {{kGPUTL, std::numeric_limits<double>::infinity()}})};
  auto ev = render([&](JsonRenderer& x) { x.dcgmCounters(2, 0, 0, samples); }).events();
  ASSERT_EQ(ev.size(), 1u);
  EXPECT_EQ(ev[0]["args"]["GPUTL"], 0);
}

TEST(JsonRenderer, NetCountersKeepTheArgText) {
  NetCounterSample tx;
  tx.tsNs = 1002500000;
  tx.tx = true;
  tx.args = {{"eth0", "1.50"}, {"ib0", "1e3"}, {"odd\"key", "-0"}};
  NetCounterSample rx;
  rx.tsNs = 1001000000;
  rx.tx = false;
  rx.args = {{"eth0", "7"}};
  std::vector<NetCounterSample> samples = {tx, rx};
  auto r = render(
      [&](JsonRenderer& x) {
        x.netCounters(7, 1, samples);
        x.netCounters(8, 1, samples);
      },
      1000000000);
  EXPECT_EQ(r.text,
            ",\n{\"ph\":\"C\",\"name\":\"trainer 1 tx\",\"pid\":7,\"ts\":2500,"
            "\"args\":{\"eth0\":1.50,\"ib0\":1e3,\"odd\\\"key\":-0}},"
            "\n{\"ph\":\"C\",\"name\":\"trainer 1 rx\",\"pid\":8,\"ts\":1000,\"args\":{"
            "\"eth0\":7}}");
  EXPECT_EQ(r.events().size(), 2u);
  EXPECT_EQ(netCounterCount(7, samples), 1u);
  EXPECT_EQ(netCounterCount(8, samples), 1u);
}

TEST(JsonRenderer, CountersAreOrderedByTs) {
  std::vector<NetCounterSample> samples;
  for (uint64_t t : {5000u, 1000u, 3000u, 1000u}) {
    NetCounterSample s;
    s.tsNs = t;
    s.args = {{"n", std::to_string(t)}};
    samples.push_back(s);
  }
  auto ev = render([&](JsonRenderer& x) { x.netCounters(7, 0, samples); }).events();
  ASSERT_EQ(ev.size(), 4u);
  std::vector<double> ts;
  for (const auto& e : ev) ts.push_back(e["ts"]);
  EXPECT_EQ(ts, (std::vector<double>{1, 1, 3, 5}));
}

TEST(JsonRenderer, OddNamesGiveValidJsonAndAreCounted) {
  EventList d;
  d.slices = {op("quote\"back\\slash", 1, 2, 0, 1), op("ctl\x01\n", 1, 2, 0, 2),
              op("bad\xC0\x80utf8", 1, 2, 0, 3)};
  d.slices[1].detail = "tab\there";
  auto r = render([&](JsonRenderer& x) { x.rankRows(1, 9, rowsOf(d), d); });
  auto ev = r.events();
  ASSERT_EQ(ev.size(), 5u);
  EXPECT_EQ(ev[2]["name"], "quote\"back\\slash");
  EXPECT_EQ(ev[3]["name"], "ctl\x01\n");
  EXPECT_EQ(ev[3]["args"]["detail_info"], "tab\there");
  EXPECT_EQ(ev[4]["name"], "bad\xEF\xBF\xBD\xEF\xBF\xBDutf8");
  // Counted once per string of the input (args.name repeats the escaped name): 2 invalid
  // sequences, 2 control chars in the name plus the tab in detail_info.
  EXPECT_EQ(r.warnings.count(Warn::StringInvalidUtf8), 2u);
  EXPECT_EQ(r.warnings.count(Warn::StringControlChar), 3u);
}

TEST(JsonRenderer, SmallPiecesEndAtEventBoundariesAndConcatenateToTheSameText) {
  EventList d;
  for (int i = 0; i < 50; ++i)
    d.slices.push_back(op("op", 100 + static_cast<uint64_t>(i), 200, i % 3, i % 4));
  auto whole = render([&](JsonRenderer& x) { x.rankRows(2, 8, rowsOf(d), d); });
  auto pieces = render([&](JsonRenderer& x) { x.rankRows(2, 8, rowsOf(d), d); }, 0, 100);
  EXPECT_EQ(whole.pieces.size(), 1u);
  EXPECT_GT(pieces.pieces.size(), 10u);
  EXPECT_EQ(pieces.text, whole.text);
  for (const auto& p : pieces.pieces) {
    EXPECT_EQ(p.substr(0, 2), ",\n");
    EXPECT_EQ(p.back(), '}');
  }
}

TEST(JsonRenderer, NothingRenderedNothingSent) {
  auto r = render([](JsonRenderer& x) {
    x.spans(0, {});
    x.netCounters(7, 0, {});
    x.dcgmCounters(2, 0, 0, {});
  });
  EXPECT_TRUE(r.pieces.empty());
  EXPECT_TRUE(r.warnings.empty());
}

// Ops of one thread that overlap without nesting go to the
// thread's overlap lanes, threads of the same row after its own ones, so
// every thread's slices nest (Perfetto's JSON importer spills them else).
TEST(JsonRenderer, OpsThatOverlapWithoutNestingGoToOverlapLanes) {
  EventList d;
  d.slices = {op("a", 100, 200, 0, 1), op("b", 150, 250, 0, 1), op("c", 160, 170, 0, 1),
              op("d", 190, 260, 0, 1), op("e", 255, 300, 0, 1), op("t2", 0, 10, 0, 2)};
  auto r = render([&](JsonRenderer& x) { x.rankRows(1, 9, rowsOf(d), d); });
  std::map<std::string, int64_t> tidOf;
  std::map<int64_t, std::string> threadName;
  std::map<int64_t, int64_t> sortIndex;
  for (const auto& e : r.events(true)) {
    if (e["ph"] == "X") tidOf[e["name"]] = e["tid"];
    if (e["ph"] == "M" && e["name"] == "thread_name") threadName[e["tid"]] = e["args"]["name"];
    if (e["ph"] == "M" && e["name"] == "thread_sort_index")
      sortIndex[e["tid"]] = e["args"]["sort_index"];
  }
  // a, c (nests in a), e (after a and c end) on the thread; b crosses a: lane 1;
  // d crosses a and b: lane 2. Lane tids after the row's largest (2).
  EXPECT_EQ(tidOf["a"], 1);
  EXPECT_EQ(tidOf["c"], 1);
  EXPECT_EQ(tidOf["e"], 1);
  EXPECT_EQ(tidOf["t2"], 2);
  EXPECT_EQ(tidOf["b"], 3);
  EXPECT_EQ(tidOf["d"], 4);
  EXPECT_EQ(threadName[3], "thread 1 (overlap 1)");
  EXPECT_EQ(threadName[4], "thread 1 (overlap 2)");
  EXPECT_EQ(sortIndex[3], 1);
  EXPECT_EQ(sortIndex[4], 1);
  EXPECT_EQ(r.warnings.count(Warn::EventOverlapLane), 2u);
  // The file stays in (tid, ts) order: the lanes come after tid 2.
  std::vector<int64_t> order;
  for (const auto& e : r.events())
    if (e["ph"] == "X") order.push_back(e["tid"]);
  EXPECT_TRUE(std::is_sorted(order.begin(), order.end()));
}

TEST(JsonRenderer, OpsThatNestOrTouchNeedNoLane) {
  EventList d;
  d.slices = {op("outer", 100, 200, 0, 1), op("inner", 120, 200, 0, 1), op("touch", 200, 210, 0, 1),
              op("zero", 210, 210, 0, 1)};
  auto r = render([&](JsonRenderer& x) { x.rankRows(1, 9, rowsOf(d), d); });
  for (const auto& e : r.events())
    if (e["ph"] == "X") {
      EXPECT_EQ(e["tid"], 1) << e["name"];
    }
  EXPECT_EQ(r.warnings.count(Warn::EventOverlapLane), 0u);
}

}  // namespace
}  // namespace xstack
