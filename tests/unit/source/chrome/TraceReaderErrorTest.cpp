// Typed errors of the Chrome-trace reader, and the sniff of a file's head.
#include <gtest/gtest.h>

#include "ChromeTestUtil.h"
#include "xstack/source/chrome/TraceReader.h"

namespace xstack::chrome {
namespace {

using test::Collected;
using test::gzipBytes;
using test::readAll;

struct ErrorCase {
  const char* text;
  ReadErrorKind kind;
  uint64_t offset;
};

TEST(ChromeTraceReaderErrors, KindAndOffset) {
  const ErrorCase cases[] = {
      {"", ReadErrorKind::Truncated, 0},
      {"   ", ReadErrorKind::Truncated, 3},
      {"hello", ReadErrorKind::NotJson, 0},
      {"[{\"ph\": \"X\"}]", ReadErrorKind::NotTraceObject, 0},
      {"  42", ReadErrorKind::NotTraceObject, 2},
      {"{}", ReadErrorKind::NoTraceEvents, 2},
      {R"({"a": [1, 2]})", ReadErrorKind::NoTraceEvents, 13},
      {R"({"traceEvents": 5})", ReadErrorKind::TraceEventsNotArray, 16},
      {R"({"traceEvents": {"ph": "X"}})", ReadErrorKind::TraceEventsNotArray, 16},
      {R"({"traceEvents": [{}, 1]})", ReadErrorKind::EventNotObject, 21},
      {R"({"traceEvents": [[]]})", ReadErrorKind::EventNotObject, 17},
      {R"({"traceEvents": [{"ph": "X", "ts": 1)", ReadErrorKind::Truncated, 36},
      {R"({"traceEvents": [{"name": "ab)", ReadErrorKind::Truncated, 29},
      {R"({"traceEvents": [{"ph": "X"})", ReadErrorKind::Truncated, 28},
      {R"({"traceEvents": [{"ph": "X"}] )", ReadErrorKind::Truncated, 30},
      {R"({"traceEvents": [{"ph": "X" "ts": 1}]})", ReadErrorKind::NotJson, 28},
      {R"({"traceEvents": [{"ts": 01}]})", ReadErrorKind::NotJson, 25},
      {R"({"traceEvents": [{"name": "\q"}]})", ReadErrorKind::NotJson, 30},
      {R"({"traceEvents": [{"a": [}]})", ReadErrorKind::NotJson, 24},
      {R"({"traceEvents": [{"args": {"k": "\u0zz"}}]})", ReadErrorKind::NotJson, 39},
      {R"({"traceEvents": [{"args": {"k": "a\"}}]})", ReadErrorKind::Truncated, 40},
      {R"({"traceEvents": [] "x": 1})", ReadErrorKind::NotJson, 19},
      {R"({"traceEvents": []} x)", ReadErrorKind::NotJson, 20},
      {R"({"traceEvents": [], x: 1})", ReadErrorKind::NotJson, 20},
      {R"({"traceEvents": [], "baseTimeNanoseconds": 1e})", ReadErrorKind::NotJson, 43},
  };
  for (const ErrorCase& c : cases) {
    for (uint64_t piece : {1, 3, 65536}) {
      Collected r = readAll(c.text, piece);
      ASSERT_FALSE(r.result.ok()) << c.text;
      EXPECT_EQ(readErrorKindName(r.result.error->kind), std::string(readErrorKindName(c.kind)))
          << c.text << " piece " << piece << ": " << r.result.error->text();
      EXPECT_EQ(r.result.error->offset, c.offset) << c.text << ": " << r.result.error->text();
      EXPECT_EQ(r.result.error->file, "mem.json");
    }
  }
}

TEST(ChromeTraceReaderErrors, EventsBeforeAnErrorAreDelivered) {
  Collected r = readAll(R"({"traceEvents": [{"ts": 1}, {"ts": 2}, 7]})");
  ASSERT_FALSE(r.result.ok());
  EXPECT_EQ(r.events.size(), 2u);
  EXPECT_EQ(r.result.info.events, 2u);
}

TEST(ChromeTraceReaderErrors, EventOverTheCapNamesItsOffset) {
  std::string big(300, 'x');
  std::string doc = R"({"traceEvents": [{"ts": 1}, {"name": ")" + big + R"("}]})";
  Collected r = readAll(doc, 7, 256);
  ASSERT_FALSE(r.result.ok());
  EXPECT_EQ(r.result.error->kind, ReadErrorKind::EventTooLarge);
  EXPECT_EQ(r.result.error->offset, 28u);
  EXPECT_NE(r.result.error->text().find("mem.json: byte 28:"), std::string::npos);
  EXPECT_EQ(r.events.size(), 1u);
  // A huge top-level value that is skipped is not capped.
  std::string skipped = R"({"pg": [")" + std::string(5000, 'y') + R"("], "traceEvents": []})";
  EXPECT_TRUE(readAll(skipped, 7, 256).result.ok());
}

TEST(ChromeTraceReaderErrors, GzipCutShortAndCorrupt) {
  const std::string doc = R"({"traceEvents": [{"ts": 1}, {"ts": 2}, {"ts": 3}]})";
  const std::string gz = gzipBytes(doc);
  for (uint64_t piece : {1, 5, 65536}) {
    Collected cut = readAll(gz.substr(0, gz.size() - 4), piece);  // CRC/size trailer missing
    ASSERT_FALSE(cut.result.ok());
    EXPECT_EQ(cut.result.error->kind, ReadErrorKind::Truncated) << cut.result.error->text();
    EXPECT_EQ(cut.events.size(), 3u);
    // Every decoded byte comes out, also through pieces smaller than what inflate holds.
    EXPECT_EQ(cut.result.info.textBytes, doc.size()) << piece;
    EXPECT_EQ(cut.result.error->offset, doc.size()) << piece;
    Collected early = readAll(gz.substr(0, gz.size() / 2), piece);
    ASSERT_FALSE(early.result.ok());
    EXPECT_EQ(early.result.error->kind, ReadErrorKind::Truncated);
  }
  std::string corrupt = gz;
  for (size_t i = 10; i < corrupt.size() - 8; ++i) corrupt[i] = static_cast<char>(0xff);
  Collected bad = readAll(corrupt);
  ASSERT_FALSE(bad.result.ok());
  EXPECT_EQ(bad.result.error->kind, ReadErrorKind::BadGzip);
}

TEST(ChromeTraceReaderErrors, UnknownPhAndCatAreNotErrors) {
  Collected r = readAll(R"({"traceEvents": [{"ph": "Z", "cat": "?"}, {"ph": ""}, {"ph": 5}]})");
  ASSERT_TRUE(r.result.ok());
  EXPECT_EQ(r.events.size(), 3u);
}

TEST(ChromeTraceReaderErrors, BomAndWhitespaceAreAccepted) {
  Collected r = readAll("\xEF\xBB\xBF \r\n\t{\"traceEvents\" : [ {\"ts\":1} ] }\n");
  ASSERT_TRUE(r.result.ok()) << r.result.error->text();
  EXPECT_EQ(r.events.size(), 1u);
}

TEST(ChromeTraceSniff, FindsTraceEventsAfterOtherKeys) {
  EXPECT_EQ(sniffTrace(R"({"traceEvents": [)"), SniffResult::Trace);
  EXPECT_EQ(
      sniffTrace(R"({"schemaVersion": 1, "deviceProperties": [{"name": "x]"}], "traceEvents": )"
                 R"([{"ph": "X", "na)"),
      SniffResult::Trace);
  EXPECT_EQ(sniffTrace(R"({"schemaVersion": "1.0.1", "displayTimeUnit": "ms", "traceEvents": [])"),
            SniffResult::Trace);
  const std::string gz = gzipBytes(R"({"a": 1, "traceEvents": [{"ts": 1}]})");
  EXPECT_EQ(sniffTrace(gz.substr(0, gz.size() - 8)), SniffResult::Trace);  // no gzip trailer
  EXPECT_EQ(sniffTrace(gz.substr(0, 12)), SniffResult::Unknown);
}

TEST(ChromeTraceSniff, RejectsOtherDocumentsAndWaitsOnShortHeads) {
  EXPECT_EQ(sniffTrace(R"({"name": "gen_info", "x": [1]})"), SniffResult::NotTrace);
  EXPECT_EQ(sniffTrace(R"([{"ph": "X"}])"), SniffResult::NotTrace);
  EXPECT_EQ(sniffTrace("\x08\x96\x01 protobuf"), SniffResult::NotTrace);
  EXPECT_EQ(sniffTrace(R"({"traceEvents": 5})"), SniffResult::NotTrace);
  EXPECT_EQ(sniffTrace(""), SniffResult::Unknown);
  EXPECT_EQ(sniffTrace(R"({"distributedInfo": {"pg_config": [[0, 1, 2)"), SniffResult::Unknown);
  EXPECT_EQ(sniffTrace(R"({"traceEv)"), SniffResult::Unknown);
}

}  // namespace
}  // namespace xstack::chrome
