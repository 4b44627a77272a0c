// Reads the encoder's bytes back with real protobuf (test-only schema subset
// tests/perfetto/perfetto_subset.proto) and checks the rules of docs/FORMAT.md
// section 7: tracks defined before use, iids resolve per sequence, BEGIN/END
// balanced and nested per track, counter values only on counter tracks,
// zero ts and zero values present, names byte-equal, bytes independent of
// how the output is cut.
#include <gtest/gtest.h>

#include <algorithm>
#include <map>
#include <nlohmann/json.hpp>
#include <random>
#include <set>
#include <string>
#include <tuple>
#include <vector>

#include "../../../perfetto/PftraceDecoder.h"
#include "xstack/core/TextWriting.h"
#include "xstack/render/perfetto/PerfettoSequenceEncoder.h"
#include "xstack/render/perfetto/ProtoWriter.h"

namespace xstack::perfetto {
namespace {

namespace pb = xstack_test::perfetto;

using test::CounterSeen;
using test::Decoded;
using test::SliceSeen;

// Decodes and fails the test on every broken rule.
Decoded decode(const std::string& bytes) {
  Decoded d = test::decode(bytes);
  for (const std::string& e : d.errors) ADD_FAILURE() << e;
  return d;
}

// Encodes with `body`, cutting pieces at `pieceBytes`; returns all bytes.
template <typename Body>
std::string encode(uint32_t seq, Body body, size_t pieceBytes = 4 << 20, size_t* pieces = nullptr) {
  std::string all;
  size_t n = 0;
  PerfettoSequenceEncoder enc(
      seq,
      [&](std::string& piece) {
        all += piece;
        ++n;
      },
      pieceBytes);
  body(enc);
  enc.finish();
  if (pieces) *pieces = n;
  return all;
}

const std::string kFFFD = "\xEF\xBF\xBD";

TEST(ProtoWriter, LengthsArePatchedCanonically) {
  for (size_t len : {0u, 1u, 127u, 128u, 300u, 16383u, 16384u, 70000u}) {
    std::string out;
    ProtoWriter w(out);
    auto m = w.beginMessage(60);  // a TrackDescriptor inside a TracePacket
    w.varintField(1, 42);
    w.bytesField(2, std::string(len, 'x'));
    w.endMessage(m);
    pb::TracePacket p;
    ASSERT_TRUE(p.ParseFromString(out)) << len;
    EXPECT_EQ(p.track_descriptor().uuid(), 42u);
    EXPECT_EQ(p.track_descriptor().name(), std::string(len, 'x'));
    EXPECT_EQ(out, p.SerializeAsString()) << "not canonical at " << len;
  }
}

TEST(ProtoWriter, VarintsAndDoublesMatchProtobuf) {
  for (uint64_t v : {0ull, 1ull, 127ull, 128ull, 1ull << 35, ~0ull}) {
    std::string out;
    ProtoWriter w(out);
    w.varintField(11, v);
    w.int64Field(30, -5);
    w.doubleField(44, 0.0);
    pb::TrackEvent want;
    want.set_track_uuid(v);
    want.set_counter_value(-5);
    want.set_double_counter_value(0.0);
    EXPECT_EQ(out, want.SerializeAsString()) << v;
    EXPECT_EQ(varintSize(v), out.size() - 23) << v;  // tags 1+2+2, -5: 10, double: 8
  }
}

TEST(PerfettoSequenceEncoder, RoundTripsTracksSlicesCountersInstantsMetadata) {
  std::string bytes = encode(7, [](PerfettoSequenceEncoder& e) {
    e.process(12, "12_rank0 gpu0", 12);
    e.thread(12, 7, "stream 7", 7);
    std::vector<DebugArg> args{DebugArg::ofString("name", "gemm", true),
                               DebugArg::ofUint("mem_bytes", 0)};
    e.slice(12, 7, "gemm", "Op", 0, 1500, args);
    e.slice(12, 7, "gemm", "Op", 2000, 0, args);
    e.instant(12, 7, "finding", "analysis", 2500, {});
    e.counter(1, "01_gpuUtility", 0, "GPUTL", 0, 0.0, {CounterUnit::Builtin::Unspecified, "ratio"});
    e.counter(13, "Memory", std::nullopt, "allocated_bytes", 10, int64_t{0},
              {CounterUnit::Builtin::SizeBytes, ""});
    std::vector<DebugArg> meta{DebugArg::ofString("version", "0.1.0"),
                               DebugArg::ofString("warnings", "{}")};
    e.metadata(meta);
  });
  Decoded d = decode(bytes);
  ASSERT_EQ(d.slices.size(), 2u);
  std::sort(d.slices.begin(), d.slices.end());
  EXPECT_EQ(d.slices[0].track, threadTrackUuid(12, 7));
  EXPECT_EQ(d.slices[0].ts, 0u);
  EXPECT_EQ(d.slices[0].dur, 1500u);
  EXPECT_EQ(d.slices[0].name, "gemm");
  EXPECT_EQ(d.slices[0].category, "Op");
  EXPECT_EQ(d.slices[0].args.at("name"), "gemm");
  EXPECT_EQ(d.slices[0].args.at("mem_bytes"), "0");
  EXPECT_EQ(d.slices[1].dur, 0u);
  ASSERT_EQ(d.instants.size(), 1u);  // the finding; the metadata is not in the timeline
  EXPECT_EQ(d.instants[0].name, "finding");
  EXPECT_EQ(d.instants[0].ts, 2500u);
  EXPECT_EQ(d.metadata.at("xstack.version"), "0.1.0");
  EXPECT_EQ(d.metadata.at("xstack.warnings"), "{}");
  ASSERT_EQ(d.counters.size(), 2u);
  EXPECT_EQ(d.counters[0].ts, 0u);
  EXPECT_EQ(d.counters[0].value, 0.0);
  EXPECT_TRUE(d.counters[0].isDouble);
  EXPECT_FALSE(d.counters[1].isDouble);
  const auto& gpu = d.tracks.at(d.counters[0].track);
  EXPECT_EQ(gpu.name(), "01_gpuUtility id: 0 GPUTL");
  EXPECT_EQ(gpu.parent_uuid(), processTrackUuid(1));
  EXPECT_EQ(gpu.counter().unit_name(), "ratio");
  const auto& mem = d.tracks.at(d.counters[1].track);
  EXPECT_EQ(mem.name(), "Memory allocated_bytes");
  EXPECT_EQ(mem.counter().unit(), pb::CounterDescriptor::UNIT_SIZE_BYTES);
  EXPECT_EQ(d.tracks.at(processTrackUuid(12)).process().process_name(), "12_rank0 gpu0");
  EXPECT_EQ(d.tracks.at(threadTrackUuid(12, 7)).thread().thread_name(), "stream 7");
  EXPECT_EQ(d.tracks.at(threadTrackUuid(12, 7)).thread().pid(), 12);
  // Each name written once in the sequence.
  for (const auto& [name, count] : d.namesWritten[7]) EXPECT_EQ(count, 1) << name;
}

// Today's ordering fields (docs/FORMAT.md section 7): the UI ignores the legacy
// sort index, so a process track orders its children EXPLICIT and every process and thread track
// carries sibling_order_rank = the JSON's sort index (clamped to int32), beside the legacy one.
TEST(PerfettoSequenceEncoder, TracksCarryTodaysOrderingFields) {
  const int64_t big = int64_t{5} << 30;  // beyond int32
  std::string bytes = encode(3, [&](PerfettoSequenceEncoder& e) {
    e.process(12, "11_trainerRank.000:gpu:0", 12);
    e.thread(12, 7, "stream 7", 7);
    e.thread(12, 13, "stream 0", 0);  // a remapped tid keeps its input id as sort index
    e.thread(12, 14, "stream 9", big);
    e.process(40, "39_far", -big);
  });
  Decoded d = decode(bytes);
  const auto& proc = d.tracks.at(processTrackUuid(12));
  EXPECT_EQ(proc.child_ordering(), pb::TrackDescriptor::EXPLICIT);
  ASSERT_TRUE(proc.has_sibling_order_rank());
  EXPECT_EQ(proc.sibling_order_rank(), 12);
  EXPECT_EQ(proc.process().legacy_sort_index(), 12);
  const auto& t7 = d.tracks.at(threadTrackUuid(12, 7));
  EXPECT_FALSE(t7.has_child_ordering());
  EXPECT_EQ(t7.sibling_order_rank(), 7);
  EXPECT_EQ(t7.thread().legacy_sort_index(), 7);
  EXPECT_EQ(d.tracks.at(threadTrackUuid(12, 13)).sibling_order_rank(), 0);
  EXPECT_EQ(d.tracks.at(threadTrackUuid(12, 14)).sibling_order_rank(), INT32_MAX);
  EXPECT_EQ(d.tracks.at(processTrackUuid(40)).sibling_order_rank(), INT32_MIN);
}

TEST(PerfettoSequenceEncoder, NestedSlicesStayOnTheThreadTrack) {
  std::string bytes = encode(3, [](PerfettoSequenceEncoder& e) {
    e.thread(2, 1, "t", 1);
    e.slice(2, 1, "outer", "c", 100, 100, {});
    e.slice(2, 1, "inner", "c", 100, 100, {});  // same span: a child
    e.slice(2, 1, "leaf", "c", 150, 0, {});
    e.slice(2, 1, "next", "c", 200, 10, {});  // starts where outer ends
  });
  Decoded d = decode(bytes);
  ASSERT_EQ(d.slices.size(), 4u);
  for (const auto& s : d.slices) EXPECT_EQ(s.track, threadTrackUuid(2, 1)) << s.name;
  std::sort(d.slices.begin(), d.slices.end());
  EXPECT_EQ(d.slices.back().name, "next");
  EXPECT_EQ(d.slices.back().ts, 200u);
}

// Chrome JSON allows X events of one tid that overlap without nesting;
// Perfetto's BEGIN/END cannot express them on one track. The overlapping
// slice goes to an overlap lane: a child track of the thread, same name.
TEST(PerfettoSequenceEncoder, OverlappingSlicesGoToALaneWithExactTimes) {
  std::string bytes = encode(3, [](PerfettoSequenceEncoder& e) {
    e.thread(2, 1, "stream 1", 1);
    e.slice(2, 1, "a", "Op", 0, 10, {});
    e.slice(2, 1, "b", "Op", 5, 10, {});  // overlaps a
    e.slice(2, 1, "c", "Op", 6, 20, {});  // overlaps a and b
    e.slice(2, 1, "d", "Op", 7, 1, {});   // nests in b? no: b is on lane 1, a on 0: fits a
  });
  Decoded d = decode(bytes);
  ASSERT_EQ(d.slices.size(), 4u);
  std::map<std::string, SliceSeen> by;
  for (const auto& s : d.slices) by[s.name] = s;
  EXPECT_EQ(by["a"].track, threadTrackUuid(2, 1));
  EXPECT_EQ(by["d"].track, threadTrackUuid(2, 1));
  EXPECT_NE(by["b"].track, by["a"].track);
  EXPECT_NE(by["c"].track, by["b"].track);
  EXPECT_NE(by["c"].track, by["a"].track);
  for (auto n : {"b", "c"}) {
    const auto& lane = d.tracks.at(by[n].track);
    EXPECT_EQ(lane.parent_uuid(), threadTrackUuid(2, 1));
    EXPECT_EQ(lane.name(), "stream 1");
  }
  EXPECT_EQ(by["a"].ts, 0u);
  EXPECT_EQ(by["a"].dur, 10u);
  EXPECT_EQ(by["b"].ts, 5u);
  EXPECT_EQ(by["b"].dur, 10u);
  EXPECT_EQ(by["c"].dur, 20u);
  EXPECT_EQ(by["d"].dur, 1u);
}

TEST(PerfettoSequenceEncoder, NamesAreValidUtf8AsTheJsonWriterDecodesThem) {
  const std::string odd = std::string("op\x01\xC3(\xF0\x9F\x98", 9) + "\xED\xA0\x80 \"q\"\\";
  std::string json;
  appendJsonString(json, odd);
  const std::string fromJson = nlohmann::json::parse(json).get<std::string>();
  JsonTextStats stats;
  std::string bytes;
  {
    PerfettoSequenceEncoder e(1, [&](std::string& p) { bytes += p; });
    e.process(4, odd, 4);
    e.thread(4, 0, odd, 0);
    std::vector<DebugArg> args{DebugArg::ofString(odd, odd), DebugArg::ofString("n", odd, true)};
    e.slice(4, 0, odd, odd, 1, 1, args);
    e.counter(4, odd, 3, odd, 1, 1.5, {CounterUnit::Builtin::Unspecified, odd});
    e.finish();
    stats = e.textStats();
  }
  EXPECT_GT(stats.invalidUtf8, 0u);
  EXPECT_NE(fromJson.find(kFFFD), std::string::npos);
  Decoded d = decode(bytes);
  ASSERT_EQ(d.slices.size(), 1u);
  EXPECT_EQ(d.slices[0].name, fromJson);
  EXPECT_EQ(d.slices[0].category, fromJson);
  EXPECT_EQ(d.slices[0].args.at(fromJson), fromJson);
  EXPECT_EQ(d.slices[0].args.at("n"), fromJson);
  EXPECT_EQ(d.tracks.at(processTrackUuid(4)).process().process_name(), fromJson);
  EXPECT_EQ(d.tracks.at(threadTrackUuid(4, 0)).thread().thread_name(), fromJson);
  const auto& ct = d.tracks.at(d.counters.at(0).track);
  EXPECT_EQ(ct.name(), fromJson + " id: 3 " + fromJson);
  EXPECT_EQ(ct.counter().unit_name(), fromJson);
}

// Random rows: every slice comes back with its exact name, ts and dur, and
// the bytes do not depend on where the output is cut into pieces.
TEST(PerfettoSequenceEncoder, RandomRowsRoundTripAndCutsDoNotChangeBytes) {
  std::mt19937_64 rng(11);
  struct In {
    int64_t tid;
    std::string name;
    uint64_t ts, dur;
  };
  std::vector<In> in;
  for (int64_t tid = 0; tid < 4; ++tid) {
    uint64_t ts = 0;
    for (int k = 0; k < 300; ++k) {
      ts += rng() % 3 == 0 ? 0 : rng() % 50;
      in.push_back({tid, "op" + std::to_string(rng() % 17), ts, rng() % 4 == 0 ? 0 : rng() % 120});
    }
  }
  auto body = [&](PerfettoSequenceEncoder& e) {
    e.process(9, "09_row", 9);
    for (int64_t tid = 0; tid < 4; ++tid) e.thread(9, tid, "stream " + std::to_string(tid), tid);
    for (const In& s : in) {
      std::vector<DebugArg> args{DebugArg::ofString("name", s.name, true)};
      e.slice(9, s.tid, s.name, "Op", s.ts, s.dur, args);
      if (s.ts % 7 == 0)
        e.counter(9, "Memory", std::nullopt, "allocated_bytes", s.ts, static_cast<int64_t>(s.dur),
                  {CounterUnit::Builtin::SizeBytes, ""});
    }
  };
  size_t pieces = 0;
  const std::string whole = encode(42, body);
  for (size_t cut : {1u, 7u, 100u, 4096u}) {
    EXPECT_EQ(encode(42, body, cut, &pieces), whole) << cut;
    if (cut == 1) {
      EXPECT_GT(pieces, 1000u);
    }
  }
  Decoded d = decode(whole);
  ASSERT_EQ(d.slices.size(), in.size());
  std::multiset<std::tuple<int64_t, std::string, uint64_t, uint64_t>> want, got;
  for (const In& s : in) want.emplace(s.tid, s.name, s.ts, s.dur);
  for (const SliceSeen& s : d.slices) {
    uint64_t thread =
        d.tracks.at(s.track).has_thread() ? s.track : d.tracks.at(s.track).parent_uuid();
    int64_t tid = d.tracks.at(thread).thread().tid();
    got.emplace(tid, s.name, s.ts, s.dur);
    EXPECT_EQ(s.args.at("name"), s.name);
  }
  EXPECT_EQ(got, want);
  for (const auto& [name, count] : d.namesWritten[42]) EXPECT_EQ(count, 1) << name;
}

// opSlice (with its fast path) writes exactly what slice() writes with the
// same args, through every case that leaves the fast path: new names, other
// threads, overlap lanes, counters and instants in between (default track
// switches), long and invalid-UTF-8 details, mem_bytes 0 and large, big ts.
TEST(PerfettoSequenceEncoder, OpSliceIsSliceWithOpArgs) {
  std::mt19937_64 rng(5);
  struct In {
    int64_t tid;
    uint32_t nameId;
    uint64_t ts, dur, mem;
    std::string detail;
    int extra;  // 0 none, 1 counter, 2 instant after the slice
  };
  std::vector<std::string> names;
  for (int k = 0; k < 40; ++k)
    names.push_back(k % 9 == 0 ? "bad\xC3(" + std::to_string(k) : "op" + std::to_string(k));
  std::vector<In> in;
  for (int64_t tid = 0; tid < 3; ++tid) {
    uint64_t ts = tid == 2 ? (uint64_t{1} << 40) : 0;
    for (int k = 0; k < 2000; ++k) {
      ts += rng() % 4 == 0 ? 0 : rng() % 300;
      std::string detail;
      if (rng() % 5 == 0) detail = std::string(rng() % 3 == 0 ? 200 : 10, 'd');
      if (rng() % 17 == 0) detail += "\xFF\xFE";
      const uint64_t mem = rng() % 4 == 0 ? (rng() % 2 ? rng() : rng() % 100) : 0;
      in.push_back({tid, static_cast<uint32_t>(rng() % names.size()), ts,
                    rng() % 4 == 0 ? 0 : rng() % 900, mem, detail, static_cast<int>(rng() % 23)});
    }
  }
  std::stable_sort(in.begin(), in.end(), [](const In& a, const In& b) { return a.tid < b.tid; });
  auto body = [&](PerfettoSequenceEncoder& e, bool fast) {
    e.process(4, "04_row", 4);
    for (const In& s : in) {
      if (s.tid != 0 && s.ts % 1000 == 0) e.thread(4, s.tid, "stream", s.tid);
      const std::string& name = names[s.nameId];
      if (fast) {
        e.opSlice(4, s.tid, {s.nameId, name, s.ts, s.dur, s.mem, s.detail, {}});
      } else {
        std::vector<DebugArg> args{DebugArg::ofString("name", name, true)};
        if (s.mem) args.push_back(DebugArg::ofUint("mem_bytes", s.mem));
        if (!s.detail.empty()) args.push_back(DebugArg::ofString("detail_info", s.detail));
        e.slice(4, s.tid, name, "Op", s.ts, s.dur, args);
      }
      if (s.extra == 1)
        e.counter(4, "Memory", std::nullopt, "allocated_bytes", s.ts, static_cast<int64_t>(s.mem),
                  {CounterUnit::Builtin::SizeBytes, ""});
      if (s.extra == 2) e.instant(4, s.tid, "mark", "finding", s.ts, {});
    }
  };
  const std::string general = encode(3, [&](PerfettoSequenceEncoder& e) { body(e, false); });
  const std::string fast = encode(3, [&](PerfettoSequenceEncoder& e) { body(e, true); });
  ASSERT_EQ(fast.size(), general.size());
  EXPECT_TRUE(fast == general);
  Decoded d = decode(fast);
  EXPECT_EQ(d.slices.size(), in.size());
  // A name id reused for another text after resetOpNames() is not confused.
  const std::string reuse = encode(3, [&](PerfettoSequenceEncoder& e) {
    e.opSlice(4, 0, {0, "first", 10, 5, 0, {}, {}});
    e.opSlice(4, 0, {0, "first", 20, 5, 0, {}, {}});
    e.resetOpNames();
    e.opSlice(4, 0, {0, "second", 30, 5, 0, {}, {}});
    e.opSlice(4, 0, {0, "second", 40, 5, 0, {}, {}});
  });
  std::vector<std::string> seen;
  for (const SliceSeen& s : decode(reuse).slices) seen.push_back(s.name);
  EXPECT_EQ(seen, (std::vector<std::string>{"first", "first", "second", "second"}));
}

// Chunks are independent sequences: encoded apart and concatenated in
// output order they form one valid trace, whoever encoded each.
TEST(PerfettoSequenceEncoder, ChunksConcatenateIntoOneTrace) {
  auto chunkA = [](PerfettoSequenceEncoder& e) {
    e.process(1, "01_gpuUtility", 1);
    e.counter(1, "01_gpuUtility", 0, "GPUTL", 5, 0.25,
              {CounterUnit::Builtin::Unspecified, "ratio"});
  };
  auto chunkB = [](PerfettoSequenceEncoder& e) {  // same process, other id
    e.counter(1, "01_gpuUtility", 1, "GPUTL", 5, 0.5, {CounterUnit::Builtin::Unspecified, "ratio"});
    e.slice(20, 3, "x", "Op", 0, 5, {});
  };
  const std::string file = encode(1, chunkA) + encode(2, chunkB);
  Decoded d = decode(file);
  EXPECT_EQ(d.counters.size(), 2u);
  EXPECT_NE(d.counters[0].track, d.counters[1].track);
  EXPECT_EQ(d.tracks.at(processTrackUuid(1)).process().process_name(), "01_gpuUtility");
  EXPECT_EQ(d.slices.size(), 1u);
  EXPECT_EQ(encode(1, chunkA) + encode(2, chunkB), file);
}

TEST(PerfettoSequenceEncoder, RejectsUnsortedSlicesAndSequenceZero) {
  EXPECT_THROW(PerfettoSequenceEncoder(0, [](std::string&) {}), std::invalid_argument);
  PerfettoSequenceEncoder e(1, [](std::string&) {});
  e.slice(1, 1, "a", "c", 10, 1, {});
  EXPECT_THROW(e.slice(1, 1, "b", "c", 9, 1, {}), std::logic_error);
}

TEST(PerfettoSequenceEncoder, UuidsAreDistinctAcrossKinds) {
  std::set<uint64_t> seen;
  for (int64_t pid : {0, 1, 7, 1000, (1 << 20) - 1, 1 << 20, -1}) {
    EXPECT_TRUE(seen.insert(processTrackUuid(pid)).second) << pid;
    for (int64_t tid : {0, 1, 5, (1 << 24) - 1, 1 << 24})
      EXPECT_TRUE(seen.insert(threadTrackUuid(pid, tid)).second) << pid << " " << tid;
    EXPECT_TRUE(seen.insert(counterTrackUuid(pid, "Memory allocated_bytes")).second);
  }
  EXPECT_FALSE(seen.count(0));
}

}  // namespace
}  // namespace xstack::perfetto
