// InternTables: one iid per distinct text and kind, from 1 in first-use
// order; new entries reported once; a new sequence starts again. Read back
// through the test decoder where the rule is about bytes.
#include <gtest/gtest.h>

#include <string>

#include "SequenceParts.h"
#include "xstack/render/perfetto/InternTables.h"
#include "xstack/render/perfetto/PerfettoSequenceEncoder.h"

namespace xstack::perfetto {
namespace {

TEST(InternTables, SameTextSameIidNewTextNextIid) {
  InternTables t;
  NewInternedEntries fresh;
  EXPECT_EQ(t.category("Op", fresh), 1u);
  EXPECT_EQ(t.category("Runtime", fresh), 2u);
  EXPECT_EQ(t.category("Op", fresh), 1u);  // the last-hit shortcut does not stick
  EXPECT_EQ(t.category("Runtime", fresh), 2u);
  ASSERT_EQ(fresh.categories.size(), 2u);  // each text reported once
  EXPECT_EQ(fresh.categories[0], (std::pair<uint64_t, std::string_view>{1, "Op"}));
  EXPECT_EQ(fresh.categories[1], (std::pair<uint64_t, std::string_view>{2, "Runtime"}));
  // Kinds are separate tables: the same text is iid 1 in each.
  EXPECT_EQ(t.annotationName("Op", fresh), 1u);
  EXPECT_EQ(t.stringValue("Op", fresh), 1u);
  EXPECT_EQ(t.eventName("Op", fresh).name, 1u);
  EXPECT_EQ(t.findCategory("Runtime"), 2u);
  EXPECT_EQ(t.findCategory("absent"), 0u);
  EXPECT_EQ(t.findEventName("absent"), nullptr);
}

// The event-name cache is keyed by the caller's text address: the same text
// at another address is the same name, other text at a reused address is not.
TEST(InternTables, EventNameCacheConfirmsTheText) {
  InternTables t;
  NewInternedEntries fresh;
  std::string a = "matmul", b = "matmul";
  const uint64_t iid = t.eventName(a, fresh).name;
  EXPECT_EQ(t.eventName(b, fresh).name, iid);
  a.replace(0, 6, "conv2d");  // same buffer, same size, other text
  const uint64_t other = t.eventName(a, fresh).name;
  EXPECT_NE(other, iid);
  EXPECT_EQ(t.eventName("matmul", fresh).name, iid);
  EXPECT_EQ(fresh.events.size(), 2u);
}

// Through the encoder: each name is written once per sequence, iids resolve,
// and a second sequence (another chunk) interns everything again from 1.
TEST(InternTables, WrittenOncePerSequenceAndResetBySequence) {
  auto chunk = [](uint32_t seq) {
    std::string out;
    PerfettoSequenceEncoder e(seq, [&](std::string& p) { out += p; });
    for (uint64_t ts = 0; ts < 50; ts += 10) {
      const DebugArg args[] = {DebugArg::ofString("name", "matmul", true),
                               DebugArg::ofString("kind", "gemm", true)};
      e.slice(1, seq, "matmul", "Op", ts, 5, args);  // a thread per chunk, as in a file
      e.instant(1, seq, "mark", "finding", ts + 6, {});
    }
    e.finish();
    return out;
  };
  const test::Decoded d = test::decodeOrFail(chunk(1) + chunk(2));
  ASSERT_EQ(d.slices.size(), 10u);
  for (const test::SliceSeen& s : d.slices) {
    EXPECT_EQ(s.name, "matmul");
    EXPECT_EQ(s.category, "Op");
    EXPECT_EQ(s.args.at("name"), "matmul");
    EXPECT_EQ(s.args.at("kind"), "gemm");
  }
  EXPECT_EQ(d.instants.size(), 10u);
  for (uint32_t seq : {1u, 2u}) {
    const auto& written = d.namesWritten.at(seq);
    for (const char* key : {"event:matmul", "event:mark", "category:Op", "category:finding",
                            "annotation:name", "annotation:kind", "string:matmul", "string:gemm"})
      EXPECT_EQ(written.at(key), 1) << key << " in sequence " << seq;
  }
}

}  // namespace
}  // namespace xstack::perfetto
