#include <gtest/gtest.h>

#include <optional>
#include <string>
#include <utility>

#include "../../TempDirTest.h"
#include "ChromeTestUtil.h"
#include "xstack/source/chrome/EventParser.h"
#include "xstack/source/chrome/TraceReader.h"

namespace xstack::chrome {
namespace {

using test::Collected;
using test::gzipBytes;
using test::readAll;

// Kineto-like, every oddity of FORMAT-NOTES sections 5 and 6 (multi-line).
const std::string kKineto = R"JSON({
  "schemaVersion": 1,
  "deviceProperties": [{"id": 0, "name": "A100 \"SXM\" ]}", "totalGlobalMem": 85031714816}],
  "record_shapes": true, "trace_id": null, "weird": [[], {}, "[{", -1.5e-3, false],
  "displayTimeUnit": "ns",
  "traceEvents": [
  {
    "ph": "X", "cat": "kernel", "name": "ncclKernel_AllReduce_RING_LL_Sum_float(ncclDevComm*, unsigned long, ncclWork*)",
    "pid": 0, "tid": 7, "ts": 1711964646000.123, "dur": 12.5,
    "args": {"External id": 31, "device": 0, "stream": 7, "correlation": 4005,
      "grid": [2, 1, 1], "block": [640, 1, 1], "Collective name": "allreduce",
      "In msg nelems": 1048576, "Out msg nelems": 1048576, "Group size": 2, "dtype": "Float",
      "In split size": "[]", "Process Group Ranks": "[0, 1]", "est. achieved occupancy %": 0}
  },
  {"ph": "X", "cat": "cpu_op", "name": "aten::add", "pid": 123, "tid": 123, "ts": 1727743122123456.789, "dur": 0},
  {"ph": "X", "cat": "Trace", "name": "PyTorch Profiler (0)", "pid": "Spans", "tid": "PyTorch Profiler", "ts": 5, "dur": 607312.0},
  {"ph": "i", "s": "g", "name": "Record Window End", "pid": "", "tid": "", "ts": 9},
  {"ph": "i", "cat": "cpu_instant_event", "s": "t", "name": "[memory]", "pid": 55, "tid": 56, "ts": 10,
   "args": {"Addr": 140000000000000, "Bytes": -512, "Total Allocated": 2048, "Total Reserved": 4096,
            "Device Type": 1, "Device Id": 0}},
  {"ph": "s", "id": 4005, "pid": 55, "tid": 56, "ts": 11, "cat": "ac2g", "name": "ac2g"},
  {"ph": "f", "id": "0x1f", "pid": 0, "tid": 7, "ts": 12, "cat": "ac2g", "name": "ac2g", "bp": "e"},
  {"ph": "X", "cat": "mtia_runtime", "name": "r", "pid": 1, "tid": 2, "ts": 13, "dur": 1, "args": {"stream_id": "108", "stream": "0x0"}},
  {"ph": "X", "cat": "mtia_runtime", "name": "r", "pid": 1, "tid": 2, "ts": 14, "dur": 1, "args": {"stream_id": 102}},
  {"ph": "M", "name": "thread_name", "pid": 0, "tid": 7, "args": {"name": "stream 7 "}},
  {"ph": "Q", "cat": "never_seen", "name": "a\"b\\c\u00e9\ud83d\ude00", "pid": 1, "tid": 1, "ts": 15}
  ],
  "traceName": "x.pt.trace.json",
  "baseTimeNanoseconds": 1711964646000000000,
  "distributedInfo": {"backend": "nccl", "rank": 3, "world_size": 8, "pg_config": [{"ranks": "[0, 1]"}]}
}
)JSON";

// Paddle's new profiler (FORMAT-NOTES section 8).
const std::string kPaddle = R"JSON({
  "schemaVersion": "1.0.1", "displayTimeUnit": "ms", "span_indx": "0",
  "traceEvents": [
  { "name": "ProfileStep#3[12.345 ms]", "pid": 100, "tid": "200(Python)", "ts": 1700000000123, "dur": 12345.678, "ph": "X", "cat": "ProfileStep", "cname": "thread_state_running", "args": {"start_time": "0.000 us", "end_time": "12345.678 us"}},
  { "name": "cudaLaunchKernel[3 us]", "pid": 100, "tid": "201(C++)", "ts": 1700000000200, "dur": 3.000, "ph": "X", "cat": "CudaRuntime", "args": {"correlation id": 77}},
  { "name": "conv[weird]", "pid": 0, "tid": 7, "ts": 1700000000201, "dur": 4.125, "ph": "X", "cat": "Kernel", "args": {"device": 0, "stream": 7, "correlation id": 77}},
  { "name": "[memory]", "ph": "i", "cat": "Allocate", "pid": 100, "tid": "201(C++)", "ts": 1700000000300, "s": "t", "args": {"place": "Place(gpu:0)", "addr": "1234", "increase_bytes": 256, "current_allocated": 1024, "current_reserved": 2048, "peak_allocated": 1024, "peak_reserved": 2048}},
  {}
  ],
  "ExtraInfo": {"1": "thread one"}
}
)JSON";

// The same document on one line: newlines and the indentation after them go.
std::string oneLine(const std::string& text) {
  std::string out;
  for (size_t i = 0; i < text.size(); ++i) {
    if (text[i] != '\n') {
      out += text[i];
      continue;
    }
    while (i + 1 < text.size() && text[i + 1] == ' ') ++i;
  }
  return out;
}

// Offsets differ between layouts: drop them for comparisons across layouts.
std::vector<std::string> withoutOffsets(std::vector<std::string> events) {
  for (std::string& e : events) e = e.substr(e.find(' '));
  return events;
}

TEST(ChromeTraceReader, KinetoFieldsNormalised) {
  Collected c = readAll(kKineto);
  ASSERT_TRUE(c.result.ok()) << c.result.error->text();
  ASSERT_EQ(c.events.size(), 11u);
  const TraceInfo& info = c.result.info;
  EXPECT_EQ(info.events, 11u);
  EXPECT_EQ(info.rank, 3);
  EXPECT_EQ(info.worldSize, 8);
  EXPECT_EQ(info.baseTimeNs, 1711964646000000000);
  EXPECT_EQ(info.schemaVersion, "1");
  EXPECT_TRUE(info.headerAfterEvents);
  EXPECT_FALSE(info.gzip);
  EXPECT_EQ(info.textBytes, kKineto.size());
}

TEST(ChromeTraceReader, KinetoOdditiesFieldByField) {
  int n = 0;
  ReadResult r = readTraceBytes(kKineto, "k.json", [&](const TraceEvent& e) {
    switch (n++) {
      case 0:
        EXPECT_EQ(e.ph, 'X');
        EXPECT_EQ(e.cat, "kernel");
        EXPECT_EQ(e.ts.ns, 1711964646000123);
        EXPECT_EQ(e.dur.ns, 12500);
        EXPECT_EQ(e.argInt(ArgKey::Device), 0);
        EXPECT_EQ(e.argInt(ArgKey::Stream), 7);
        EXPECT_EQ(e.argInt(ArgKey::Correlation), 4005);
        EXPECT_EQ(e.argInt(ArgKey::ExternalId), 31);
        EXPECT_EQ(e.argText(ArgKey::CollectiveName), "allreduce");
        EXPECT_EQ(e.argInt(ArgKey::InMsgNelems), 1048576);
        EXPECT_EQ(e.argInt(ArgKey::OutMsgNelems), 1048576);
        EXPECT_EQ(e.argInt(ArgKey::GroupSize), 2);
        EXPECT_EQ(e.argText(ArgKey::Dtype), "Float");
        EXPECT_EQ(e.argText(ArgKey::ProcessGroupRanks), "[0, 1]");
        EXPECT_EQ(e.arg(ArgKey::ProcessGroupRanks)->rawValue, "\"[0, 1]\"");
        ASSERT_EQ(e.args.size(), 14u);
        EXPECT_EQ(e.args[4].key, "grid");
        EXPECT_EQ(e.args[4].rawValue, "[2, 1, 1]");
        EXPECT_EQ(e.args[4].kind, JsonKind::Array);
        break;
      case 1:
        EXPECT_EQ(e.ts.ns, 1727743122123456789);
        EXPECT_TRUE(e.dur.present);
        EXPECT_EQ(e.dur.ns, 0);
        EXPECT_TRUE(e.pid.numeric);
        EXPECT_EQ(e.pid.value, 123);
        EXPECT_TRUE(e.args.empty());
        break;
      case 2:
        EXPECT_FALSE(e.pid.numeric);
        EXPECT_EQ(e.pid.text, "Spans");
        EXPECT_EQ(e.tid.text, "PyTorch Profiler");
        EXPECT_EQ(e.dur.ns, 607312000);
        break;
      case 3:
        EXPECT_FALSE(e.hasCat);
        EXPECT_FALSE(e.dur.present);
        EXPECT_TRUE(e.pid.present);
        EXPECT_FALSE(e.pid.numeric);
        EXPECT_EQ(e.pid.text, "");
        EXPECT_EQ(e.scope, "g");
        break;
      case 4:
        EXPECT_EQ(e.name, "[memory]");
        EXPECT_EQ(e.scope, "t");
        EXPECT_EQ(e.argInt(ArgKey::MemoryBytes), -512);
        EXPECT_EQ(e.argInt(ArgKey::TotalAllocated), 2048);
        EXPECT_EQ(e.argInt(ArgKey::TotalReserved), 4096);
        EXPECT_EQ(e.argInt(ArgKey::DeviceType), 1);
        EXPECT_EQ(e.argInt(ArgKey::DeviceId), 0);
        EXPECT_EQ(e.argInt(ArgKey::Bytes), std::nullopt);
        break;
      case 5:
        EXPECT_TRUE(e.id.numeric);
        EXPECT_EQ(e.id.value, 4005);
        EXPECT_TRUE(e.bp.empty());
        break;
      case 6:
        EXPECT_TRUE(e.id.numeric);  // a hex string id
        EXPECT_EQ(e.id.value, 31);
        EXPECT_EQ(e.id.text, "0x1f");
        EXPECT_EQ(e.bp, "e");
        break;
      case 7:
        EXPECT_EQ(argRawToInt(e.args[0]), 108);
        EXPECT_EQ(e.argInt(ArgKey::Stream), 0);  // "0x0"
        break;
      case 8:
        EXPECT_EQ(argRawToInt(e.args[0]), 102);
        break;
      case 9:
        EXPECT_EQ(e.ph, 'M');
        EXPECT_FALSE(e.ts.present);
        EXPECT_EQ(e.argText(ArgKey::Name), "stream 7 ");
        break;
      case 10:
        EXPECT_EQ(e.ph, 'Q');
        EXPECT_EQ(e.cat, "never_seen");
        EXPECT_EQ(e.name, "a\"b\\c\xc3\xa9\xf0\x9f\x98\x80");
        break;
      default:
        ADD_FAILURE() << "extra event";
    }
  });
  ASSERT_TRUE(r.ok()) << r.error->text();
  EXPECT_EQ(n, 11);
}

TEST(ChromeTraceReader, PaddleSuffixTrailingObjectAndExtraInfo) {
  std::vector<std::string> names, tids;
  std::vector<std::optional<int64_t>> corr;
  std::vector<int64_t> ts, dur;
  std::string place;
  std::optional<int64_t> allocated;
  ReadResult r = readTraceBytes(kPaddle, "p.json", [&](const TraceEvent& e) {
    names.emplace_back(e.name);
    tids.emplace_back(std::to_string(e.tid.value) + "|" + std::string(e.tid.text));
    corr.push_back(e.argInt(ArgKey::Correlation));
    ts.push_back(e.ts.ns);
    dur.push_back(e.dur.ns);
    if (e.name == "[memory]") {
      place = std::string(e.argText(ArgKey::Place));
      allocated = e.argInt(ArgKey::CurrentAllocated);
    }
  });
  ASSERT_TRUE(r.ok()) << r.error->text();
  EXPECT_EQ(r.info.schemaVersion, "1.0.1");
  EXPECT_EQ(r.info.events, 4u);
  EXPECT_EQ(r.info.emptyObjects, 1u);
  EXPECT_FALSE(r.info.rank.has_value());
  EXPECT_FALSE(r.info.baseTimeNs.has_value());
  EXPECT_EQ(names, (std::vector<std::string>{"ProfileStep#3", "cudaLaunchKernel", "conv[weird]",
                                             "[memory]"}));
  EXPECT_EQ(tids[0], "200|200(Python)");
  EXPECT_EQ(tids[1], "201|201(C++)");
  EXPECT_EQ(corr[1], 77);
  EXPECT_EQ(corr[2], 77);
  EXPECT_EQ(ts[0], 1700000000123000);
  EXPECT_EQ(dur[0], 12345678);
  EXPECT_EQ(dur[2], 4125);
  EXPECT_EQ(place, "Place(gpu:0)");
  EXPECT_EQ(allocated, 1024);
}

TEST(ChromeTraceReader, SuffixStripOnlyForDurations) {
  EXPECT_EQ(stripDurationSuffix("a[1.2 ms]"), "a");
  EXPECT_EQ(stripDurationSuffix("a[12 us]"), "a");
  EXPECT_EQ(stripDurationSuffix("a[1.2 s]"), "a[1.2 s]");
  EXPECT_EQ(stripDurationSuffix("a[x ms]"), "a[x ms]");
  EXPECT_EQ(stripDurationSuffix("[1 ms]"), "[1 ms]");
  EXPECT_EQ(stripDurationSuffix("a[1. ms]"), "a[1. ms]");
  ReadOptions keepNames;
  keepNames.stripDurationSuffix = false;
  std::string name;
  readTraceBytes(
      kPaddle, "p.json",
      [&](const TraceEvent& e) {
        if (name.empty()) name = e.name;
      },
      keepNames);
  EXPECT_EQ(name, "ProfileStep#3[12.345 ms]");
}

TEST(ChromeTraceReader, HeaderBeforeOrAfterEvents) {
  const std::string before =
      R"({"baseTimeNanoseconds": 1000, "distributedInfo": {"rank": 2}, "traceEvents": [{"ts": 1}]})";
  const std::string after =
      R"({"traceEvents": [{"ts": 1}], "distributedInfo": {"rank": "2", "world_size": 4}, "baseTimeNanoseconds": 1000})";
  Collected b = readAll(before);
  Collected a = readAll(after);
  ASSERT_TRUE(b.result.ok() && a.result.ok());
  EXPECT_EQ(b.result.info.baseTimeNs, 1000);
  EXPECT_EQ(a.result.info.baseTimeNs, 1000);
  EXPECT_EQ(b.result.info.rank, 2);
  EXPECT_EQ(a.result.info.rank, 2);
  EXPECT_EQ(a.result.info.worldSize, 4);
  EXPECT_FALSE(b.result.info.headerAfterEvents);
  EXPECT_TRUE(a.result.info.headerAfterEvents);
}

// A time base is an integer count of ns >= 0: a number that is an exact integer, or a
// string of digits. Anything else is a problem of the file, never a base of 0.
TEST(ChromeTraceReader, TheBaseIsAnIntegerCountOfNs) {
  const std::pair<const char*, std::optional<int64_t>> kCases[] = {
      {"1711964646000000000", 1711964646000000000},
      {"1711964646000000000.0", 1711964646000000000},
      {"1.711964646e18", 1711964646000000000},
      {"17e0", 17},
      {"0", 0},
      {"\"1711964646000000000\"", 1711964646000000000},
      {"1e30", std::nullopt},
      {"12.5", std::nullopt},
      {"-5", std::nullopt},
      {"\"abc\"", std::nullopt},
      {"\"0x1f\"", std::nullopt},
      {"\"12.0\"", std::nullopt},
      {"\"\"", std::nullopt},
      {"null", std::nullopt},
      {"true", std::nullopt},
      {"{}", std::nullopt},
  };
  for (const auto& [text, want] : kCases) {
    Collected c = readAll(std::string(R"({"baseTimeNanoseconds": )") + text +
                          R"(, "traceEvents": [{"ts": 1}]})");
    ASSERT_TRUE(c.result.ok()) << text;
    EXPECT_TRUE(c.result.info.hasBaseTimeKey) << text;
    EXPECT_EQ(c.result.info.baseTimeNs, want) << text;
    if (want) {
      EXPECT_EQ(c.result.info.baseTimeProblem, "") << text;
    } else {
      EXPECT_NE(c.result.info.baseTimeProblem.find(std::string("baseTimeNanoseconds ") + text +
                                                   " is not an integer count of ns"),
                std::string::npos)
          << c.result.info.baseTimeProblem;
    }
  }
  Collected none = readAll(R"({"traceEvents": [{"ts": 1}]})");
  EXPECT_FALSE(none.result.info.hasBaseTimeKey);
  EXPECT_EQ(none.result.info.baseTimeProblem, "");
}

// Two different bases in one file: a problem naming both (the first is kept, not used);
// the same value twice is fine.
TEST(ChromeTraceReader, TwoDifferentBasesAreAProblem) {
  Collected two = readAll(
      R"({"baseTimeNanoseconds": 1000, "traceEvents": [{"ts": 1}], "baseTimeNanoseconds": 2000})");
  ASSERT_TRUE(two.result.ok());
  EXPECT_EQ(two.result.info.baseTimeProblem, "two different baseTimeNanoseconds, 1000 and 2000");
  Collected same = readAll(
      R"({"baseTimeNanoseconds": 1000, "traceEvents": [{"ts": 1}], "baseTimeNanoseconds": "1000"})");
  EXPECT_EQ(same.result.info.baseTimeProblem, "");
  EXPECT_EQ(same.result.info.baseTimeNs, 1000);
}

// distributedInfo.rank is an integer >= 0; -1 or 1.5 is said, never taken for "no rank".
TEST(ChromeTraceReader, ARankIsAnIntegerZeroOrMore) {
  const std::pair<const char*, std::optional<int64_t>> kCases[] = {
      {"3", 3}, {"\"3\"", 3}, {"3.0", 3}, {"-1", std::nullopt}, {"1.5", std::nullopt},
      {"\"x\"", std::nullopt}, {"null", std::nullopt}};
  for (const auto& [text, want] : kCases) {
    Collected c = readAll(std::string(R"({"distributedInfo": {"rank": )") + text +
                          R"(}, "traceEvents": [{"ts": 1}]})");
    ASSERT_TRUE(c.result.ok()) << text;
    EXPECT_EQ(c.result.info.rank, want) << text;
    EXPECT_EQ(c.result.info.rankProblem,
              want ? std::string() : std::string("distributedInfo.rank ") + text + " is not a rank")
        << text;
  }
}

// deviceProperties: only its length is kept (GPUs the process saw); a value
// of another shape is skipped, never fatal.
TEST(ChromeTraceReader, DevicePropertiesCountsTheGpusSeen) {
  const std::string eight =
      R"({"deviceProperties": [{"id": 0}, {"id": 1, "name": "A100"}, {}, {}, {}, {}, {}, {"id": 7}],
          "traceEvents": []})";
  EXPECT_EQ(readAll(eight).result.info.visibleGpus, 8);
  EXPECT_EQ(readAll(R"({"deviceProperties": [], "traceEvents": []})").result.info.visibleGpus, 0);
  Collected odd = readAll(R"({"deviceProperties": {"gpus": 4}, "traceEvents": [{"ts": 1}]})");
  ASSERT_TRUE(odd.result.ok()) << odd.result.error->text();
  EXPECT_EQ(odd.result.info.visibleGpus, 0);
  EXPECT_EQ(odd.events.size(), 1u);
  EXPECT_FALSE(readAll(R"({"deviceProperties": [1 2], "traceEvents": []})").result.ok());
}

TEST(ChromeTraceReader, OneLineEqualsMultiLine) {
  for (const std::string* doc : {&kKineto, &kPaddle}) {
    Collected multi = readAll(*doc);
    Collected single = readAll(oneLine(*doc));
    ASSERT_TRUE(single.result.ok()) << single.result.error->text();
    EXPECT_EQ(withoutOffsets(multi.events), withoutOffsets(single.events));
  }
}

// Chunk boundaries inside strings, numbers and escapes: tiny read pieces
// (plain and gzip) give exactly what one big piece gives, offsets included.
TEST(ChromeTraceReader, TinyReadPiecesGiveTheSameEvents) {
  for (const std::string& doc : {kKineto, kPaddle, oneLine(kKineto)}) {
    Collected big = readAll(doc);
    ASSERT_TRUE(big.result.ok());
    const std::string gz = gzipBytes(doc);
    for (uint64_t piece = 1; piece <= 7; ++piece) {
      Collected plain = readAll(doc, piece);
      ASSERT_TRUE(plain.result.ok()) << piece << ": " << plain.result.error->text();
      EXPECT_EQ(plain.events, big.events) << "piece " << piece;
      Collected zipped = readAll(gz, piece);
      ASSERT_TRUE(zipped.result.ok()) << piece << ": " << zipped.result.error->text();
      EXPECT_EQ(zipped.events, big.events) << "gzip piece " << piece;
      EXPECT_TRUE(zipped.result.info.gzip);
      EXPECT_EQ(zipped.result.info.textBytes, doc.size());
    }
  }
}

// Memory is bounded by the largest event, not by the document: 200k events
// (about 20 MB) need the same buffer as a few, and one big event grows it
// to about twice its size.
TEST(ChromeTraceReader, BufferBoundedByTheLargestEvent) {
  const std::string event =
      R"({"ph": "X", "cat": "kernel", "name": "k", "pid": 0, "tid": 7, "ts": 1.5, "dur": 2.250},)";
  std::string many = R"({"traceEvents": [)";
  for (int i = 0; i < 200000; ++i) many += event;
  std::string few = many.substr(0, 17 + 10 * event.size());
  many.back() = ']';
  few.back() = ']';
  many += "}";
  few += "}";
  ReadOptions options;
  options.readBytes = 64 << 10;
  uint64_t n = 0;
  ReadResult big = readTraceBytes(
      many, "many", [&](const TraceEvent&) { ++n; }, options);
  ReadResult small = readTraceBytes(
      few, "few", [&](const TraceEvent&) {}, options);
  ASSERT_TRUE(big.ok() && small.ok());
  EXPECT_EQ(n, 200000u);
  EXPECT_GT(many.size(), 15u << 20);
  EXPECT_EQ(big.info.bufferBytes, small.info.bufferBytes);
  EXPECT_LE(big.info.bufferBytes, 4 * options.readBytes);
  const std::string huge = R"({"traceEvents": [{"name": ")" + std::string(1 << 20, 'x') + R"("}]})";
  ReadResult one = readTraceBytes(
      huge, "huge", [](const TraceEvent&) {}, options);
  ASSERT_TRUE(one.ok());
  EXPECT_GE(one.info.bufferBytes, 1u << 20);
  EXPECT_LE(one.info.bufferBytes, 3 * ((1u << 20) + options.readBytes));
}

class ChromeTraceFileTest : public TempDirTest {};

TEST_F(ChromeTraceFileTest, GzipDetectedByContentNotName) {
  std::string plainPath = write("a.json.gz", kKineto);  // plain despite the name
  std::string gzPath = write("b.json", gzipBytes(kKineto));
  uint64_t plainEvents = 0, gzEvents = 0;
  ReadResult p = readTrace(plainPath, [&](const TraceEvent&) { ++plainEvents; });
  ReadResult g = readTrace(gzPath, [&](const TraceEvent&) { ++gzEvents; });
  ASSERT_TRUE(p.ok() && g.ok());
  EXPECT_FALSE(p.info.gzip);
  EXPECT_TRUE(g.info.gzip);
  EXPECT_EQ(plainEvents, 11u);
  EXPECT_EQ(gzEvents, 11u);
  ReadResult h = readTraceHeader(gzPath);
  ASSERT_TRUE(h.ok());
  EXPECT_EQ(h.info.rank, 3);
  EXPECT_EQ(h.info.events, 0u);
  EXPECT_EQ(h.info.baseTimeNs, 1711964646000000000);
}

TEST_F(ChromeTraceFileTest, ConcatenatedGzipMembersAreOneText) {
  std::string half = kPaddle.substr(0, 200);
  std::string path = write("c.json.gz", gzipBytes(half) + gzipBytes(kPaddle.substr(200)));
  uint64_t n = 0;
  ReadResult r = readTrace(path, [&](const TraceEvent&) { ++n; });
  ASSERT_TRUE(r.ok()) << r.error->text();
  EXPECT_EQ(n, 4u);
}

TEST_F(ChromeTraceFileTest, SniffFilesByContent) {
  EXPECT_EQ(sniffTraceFile(write("a.bin", gzipBytes(kKineto))), SniffResult::Trace);
  EXPECT_EQ(sniffTraceFile(write("p.json", kPaddle)), SniffResult::Trace);
  EXPECT_EQ(sniffTraceFile(write("gen_info.json", R"({"a": 1})")), SniffResult::NotTrace);
  EXPECT_EQ(sniffTraceFile(write("cut.json", R"({"a": [1, 2)")), SniffResult::NotTrace);
  EXPECT_EQ(sniffTraceFile(write("late.json", kKineto), 40), SniffResult::Unknown);
  EXPECT_EQ(sniffTraceFile((dir_ / "none").string()), SniffResult::NotTrace);
}

TEST_F(ChromeTraceFileTest, MissingFileIsAnIoError) {
  ReadResult r = readTrace((dir_ / "none.json").string(), [](const TraceEvent&) {});
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.error->kind, ReadErrorKind::Io);
  EXPECT_NE(r.error->text().find("none.json"), std::string::npos);
  ReadResult d = readTrace(dir_.string(), [](const TraceEvent&) {});
  ASSERT_FALSE(d.ok());
  EXPECT_EQ(d.error->kind, ReadErrorKind::Io);
}

}  // namespace
}  // namespace xstack::chrome
