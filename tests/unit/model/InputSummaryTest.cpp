// The summaries gathered on every rank survive their binary encoding.
#include <gtest/gtest.h>

#include "xstack/model/InputSummary.h"

namespace xstack {
namespace {

TEST(InputSummary, EncodeDecodeRoundTrip) {
  InputSummary a;
  a.file = {InputKind::Time, 3, 7, "/data/time/time.txt.7.3", 123};
  a.reader = 5;
  a.readerHost = "node\"7";
  a.status = InputStatus::Partial;
  a.problem = "byte 120 of 300: event cut short";
  a.minTs = 1700000000002464134u;
  a.events = 10;
  a.memEvents = 4;
  a.warnings.add(Warn::MarkerUnmatchedEnd, 2, "example dropped");
  a.warnings.add(Warn::MemoryNeverFreed, 1);
  a.rows = {{RowKind::CpuBlock, 0}, {RowKind::CudaApi, -1}, {RowKind::MemPinned, 1}};
  a.spanCount = 8;
  a.counterEvents[{CounterGroup::MemUtility, 1}] = 99;
  a.counterEvents[{CounterGroup::NetTx, 0}] = UINT64_MAX;
  InputSummary b;
  b.file = {InputKind::Profile, 0, 0, "p.0", 0};
  auto back = decodeSummaries(encodeSummaries({a, b})).value();
  ASSERT_EQ(back.size(), 2u);
  const InputSummary& x = back[0];
  EXPECT_EQ(x.file.kind, InputKind::Time);
  EXPECT_EQ(x.file.id, 3);
  EXPECT_EQ(x.file.gpu, 7);
  EXPECT_EQ(x.file.path, a.file.path);
  EXPECT_EQ(x.file.bytes, 123u);
  EXPECT_EQ(x.reader, 5);
  EXPECT_EQ(x.readerHost, "node\"7");
  EXPECT_EQ(x.status, InputStatus::Partial);
  EXPECT_EQ(x.problem, a.problem);
  EXPECT_EQ(x.minTs, a.minTs);
  EXPECT_EQ(x.events, 10u);
  EXPECT_EQ(x.memEvents, 4u);
  EXPECT_EQ(x.warnings.count(Warn::MarkerUnmatchedEnd), 2u);
  EXPECT_EQ(x.warnings.count(Warn::MemoryNeverFreed), 1u);
  EXPECT_EQ(x.warnings.total(), 3u);
  EXPECT_EQ(x.rows, a.rows);
  EXPECT_EQ(x.spanCount, 8u);
  EXPECT_EQ(x.counters(CounterGroup::MemUtility, 1), 99u);
  EXPECT_EQ(x.counters(CounterGroup::NetTx), UINT64_MAX);
  EXPECT_EQ(x.counters(CounterGroup::GpuUtility, 1), 0u);
  EXPECT_EQ(back[1].file.path, "p.0");
  EXPECT_TRUE(back[1].warnings.empty());
  EXPECT_TRUE(decodeSummaries(encodeSummaries({})).value().empty());
}

TEST(InputSummary, StatusNames) {
  EXPECT_STREQ(statusName(InputStatus::Ok), "ok");
  EXPECT_STREQ(statusName(InputStatus::Partial), "partial");
  EXPECT_STREQ(statusName(InputStatus::Failed), "failed");
}

TEST(InputSummary, InvalidUtf8PathSurvives) {
  InputSummary a;
  a.file.path = "/data/prof\xC0ile.1";
  a.problem = "\xFF";
  auto back = decodeSummaries(encodeSummaries({a})).value();
  ASSERT_EQ(back.size(), 1u);
  EXPECT_EQ(back[0].file.path, a.file.path);
  EXPECT_EQ(back[0].problem, a.problem);
}

// A summary naming a warning kind this build does not know (or bytes that are
// no such message) decodes to an Error, not to a Warn out of range.
TEST(InputSummary, UnknownWarningKindIsAnError) {
  InputSummary a;
  a.file.path = "p.3";
  a.warnings.add(Warn::TimestampZero, 2);
  std::string bytes = encodeSummaries({a});
  const size_t at = bytes.find("timestamp_zero");
  ASSERT_NE(at, std::string::npos);
  bytes.replace(at, 14, "no_such_kind__");  // the same length: still a well-formed message
  const auto back = decodeSummaries(bytes);
  ASSERT_FALSE(back.ok());
  EXPECT_EQ(back.error().message,
            "gathered summary of p.3: unknown warning kind \"no_such_kind__\"");
  EXPECT_FALSE(decodeSummaries("\xc1").ok());  // not this wire version
  EXPECT_FALSE(decodeSummaries("").ok());
}

// Every cut of a message, and every byte of it changed, decodes to an Error or
// to summaries, never to a throw or a crash; a cut message is always an Error.
TEST(InputSummary, TruncatedOrGarbledMessageIsAnErrorNotAThrow) {
  InputSummary a;
  a.file = {InputKind::Profile, 2, 0, "/data/p.2", 40};
  a.readerHost = "h";
  a.warnings.add(Warn::MarkerUnmatchedEnd, 2, "p.2: ts 4: example");
  a.rows = {{RowKind::Gpu, 1}};
  a.counterEvents[{CounterGroup::NetRx, 0}] = 5;
  a.gpuDevices = {0, 1};
  a.identity.known = true;
  a.identity.digest = 77;
  const std::string bytes = encodeSummaries({a, a});
  ASSERT_TRUE(decodeSummaries(bytes).ok());
  for (size_t n = 0; n < bytes.size(); ++n) {
    const auto cut = decodeSummaries(bytes.substr(0, n));
    ASSERT_FALSE(cut.ok()) << n;
    EXPECT_EQ(cut.error().message.rfind("gathered summar", 0), 0u) << cut.error().message;
  }
  for (size_t i = 0; i < bytes.size(); ++i)
    for (int bit : {0x01, 0x80, 0xff}) {
      std::string bad = bytes;
      bad[i] = static_cast<char>(bad[i] ^ bit);
      EXPECT_NO_THROW((void)decodeSummaries(bad)) << i;
    }
  const std::string longer = bytes + "x";
  EXPECT_FALSE(decodeSummaries(longer).ok());
}

}  // namespace
}  // namespace xstack
