// The streaming decoder must agree with protoc's generated parser on every
// field, skip what it does not know, and stop cleanly (never crash, never
// allocate what a length prefix claims) on cut or corrupt bytes.
#include <gtest/gtest.h>

#include <atomic>
#include <cstdlib>
#include <new>
#include <random>
#include <string>
#include <vector>

#include "profiler.pb.h"
#include "xstack/source/paddle/ProfileDecoder.h"

// Largest single allocation made while g_trackAllocations is set (a
// replacement of the global operator new for this test binary; malloc/free
// underneath, so GCC's new/delete pairing check does not apply).
#if defined(__GNUC__) && !defined(__clang__)
#pragma GCC diagnostic ignored "-Wmismatched-new-delete"
#endif
static std::atomic<bool> g_trackAllocations{false};
static std::atomic<size_t> g_largestAllocation{0};

void* operator new(size_t n) {
  if (g_trackAllocations.load(std::memory_order_relaxed)) {
    size_t prev = g_largestAllocation.load(std::memory_order_relaxed);
    while (n > prev && !g_largestAllocation.compare_exchange_weak(prev, n)) {
    }
  }
  if (void* p = std::malloc(n ? n : 1)) return p;
  throw std::bad_alloc();
}
void* operator new[](size_t n) { return operator new(n); }
void operator delete(void* p) noexcept { std::free(p); }
void operator delete[](void* p) noexcept { std::free(p); }
void operator delete(void* p, size_t) noexcept { std::free(p); }
void operator delete[](void* p, size_t) noexcept { std::free(p); }
// The nothrow forms too (std::stable_sort's temporary buffer uses them): every
// form must pair with the free() above, or ASan reports a mismatch.
void* operator new(size_t n, const std::nothrow_t&) noexcept {
  try {
    return operator new(n);
  } catch (...) {
    return nullptr;
  }
}
void* operator new[](size_t n, const std::nothrow_t& t) noexcept { return operator new(n, t); }
void operator delete(void* p, const std::nothrow_t&) noexcept { std::free(p); }
void operator delete[](void* p, const std::nothrow_t&) noexcept { std::free(p); }

namespace xstack {
namespace {

namespace pb = paddle::platform::proto;

// Hand-written wire format, for what the generated classes cannot produce.
void putVarint(std::string& s, uint64_t v) {
  while (v >= 0x80) {
    s.push_back(static_cast<char>((v & 0x7f) | 0x80));
    v >>= 7;
  }
  s.push_back(static_cast<char>(v));
}
void putTag(std::string& s, uint32_t field, uint32_t wireType) {
  putVarint(s, (uint64_t{field} << 3) | wireType);
}
void putLen(std::string& s, uint32_t field, const std::string& payload) {
  putTag(s, field, 2);
  putVarint(s, payload.size());
  s += payload;
}

pb::Event* addEvent(pb::Profile& p, pb::Event::EventType type, const std::string& name,
                    uint64_t start, uint64_t end, int64_t device, int64_t sub) {
  pb::Event* e = p.add_events();
  e->set_type(type);
  e->set_name(name);
  e->set_start_ns(start);
  e->set_end_ns(end);
  e->set_device_id(device);
  e->set_sub_device_id(sub);
  return e;
}

pb::MemEvent* addMem(pb::Profile& p, pb::MemEvent::Place place, uint32_t device, uint64_t start,
                     uint64_t end, uint64_t bytes) {
  pb::MemEvent* m = p.add_mem_events();
  m->set_place(place);
  m->set_device_id(device);
  m->set_start_ns(start);
  m->set_end_ns(end);
  m->set_bytes(bytes);
  m->set_thread_id(4242);
  m->set_alloc_in("alloc site");
  m->set_free_in("free site");
  return m;
}

// A small profile with every field set somewhere.
pb::Profile sampleProfile() {
  pb::Profile p;
  addEvent(p, pb::Event::CPU, "matmul_v2", 1700000000000000100u, 1700000000000009100u, 0, 12345)
      ->set_detail_info("op_type=matmul");
  addEvent(p, pb::Event::CPU, "cudaLaunchKernel", 1700000000000001000u, 1700000000000002000u, -1,
           12345);
  addEvent(p, pb::Event::GPUKernel, "volta_sgemm", 1700000000000003000u, 1700000000000008000u, 3,
           7);
  pb::Event* cp = addEvent(p, pb::Event::GPUKernel, "GpuMemcpyAsync:CPU->GPU", 1700000000000008500u,
                           1700000000000009000u, 3, 13);
  cp->mutable_memcopy()->set_bytes(1u << 20);
  addEvent(p, pb::Event::CPU, "marker/compute/MarkerCUDA", 1700000000000000050u,
           1700000000000000060u, 0, 12345)
      ->set_detail_info("marker_forward_B");
  p.set_start_ns(1700000000000000000u);
  p.set_end_ns(1700000000000010000u);
  addMem(p, pb::MemEvent::CUDAPlace, 3, 1700000000000000200u, 1700000000000000900u, 4096);
  addMem(p, pb::MemEvent::CPUPlace, 0, 1700000000000000300u, 0, 1);
  addMem(p, pb::MemEvent::CUDAPinnedPlace, 0xFFFFFFFFu, 5, 4, 123456789012345u);
  return p;
}

void expectSameAsProtoc(const std::string& bytes) {
  pb::Profile ref;
  ASSERT_TRUE(ref.ParseFromString(bytes));
  ProfileData d;
  Status r = decodeProfile(bytes, d);
  ASSERT_TRUE(r.ok()) << r.error().message << " at " << r.error().offset.value_or(0);
  EXPECT_TRUE(r.error().message.empty());
  ASSERT_EQ(d.events.size(), static_cast<size_t>(ref.events_size()));
  for (int i = 0; i < ref.events_size(); ++i) {
    const pb::Event& e = ref.events(i);
    const ProfileEvent& x = d.events[static_cast<size_t>(i)];
    SCOPED_TRACE("event " + std::to_string(i));
    EXPECT_EQ(x.name, e.name());
    EXPECT_EQ(x.detail, e.detail_info());
    EXPECT_EQ(x.startNs, e.start_ns());
    EXPECT_EQ(x.endNs, e.end_ns());
    EXPECT_EQ(x.deviceId, e.device_id());
    EXPECT_EQ(x.subDeviceId, e.sub_device_id());
    EXPECT_EQ(x.memcopyBytes, e.memcopy().bytes());
    EXPECT_EQ(x.type, static_cast<int64_t>(e.type()));
  }
  ASSERT_EQ(d.memEvents.size(), static_cast<size_t>(ref.mem_events_size()));
  for (int i = 0; i < ref.mem_events_size(); ++i) {
    const pb::MemEvent& m = ref.mem_events(i);
    const ProfileMemEvent& x = d.memEvents[static_cast<size_t>(i)];
    SCOPED_TRACE("mem event " + std::to_string(i));
    EXPECT_EQ(x.startNs, m.start_ns());
    EXPECT_EQ(x.endNs, m.end_ns());
    EXPECT_EQ(x.bytes, m.bytes());
    EXPECT_EQ(x.place, static_cast<int64_t>(m.place()));
    EXPECT_EQ(x.threadId, m.thread_id());
    EXPECT_EQ(x.deviceId, uint64_t{m.device_id()});
  }
  EXPECT_EQ(d.hasStartNs, ref.has_start_ns());
  EXPECT_EQ(d.hasEndNs, ref.has_end_ns());
  EXPECT_EQ(d.startNs, ref.start_ns());
  EXPECT_EQ(d.endNs, ref.end_ns());
}

TEST(ProfileDecoder, AgreesWithProtocFieldByField) {
  std::string bytes;
  ASSERT_TRUE(sampleProfile().SerializeToString(&bytes));
  expectSameAsProtoc(bytes);

  ProfileData d;
  ASSERT_TRUE(decodeProfile(bytes, d).ok());
  ASSERT_EQ(d.events.size(), 5u);
  EXPECT_EQ(d.events[0].name, "matmul_v2");
  EXPECT_EQ(d.events[0].detail, "op_type=matmul");
  EXPECT_EQ(d.events[0].subDeviceId, 12345);
  EXPECT_EQ(d.events[1].deviceId, -1);
  EXPECT_EQ(d.events[2].type, 1);
  EXPECT_EQ(d.events[2].deviceId, 3);
  EXPECT_EQ(d.events[3].memcopyBytes, 1u << 20);
  EXPECT_EQ(d.events[4].detail, "marker_forward_B");
  ASSERT_EQ(d.memEvents.size(), 3u);
  EXPECT_EQ(d.memEvents[1].place, 1);
  EXPECT_EQ(d.memEvents[1].endNs, 0u);
  EXPECT_EQ(d.memEvents[2].place, 2);
  EXPECT_EQ(d.memEvents[2].deviceId, 0xFFFFFFFFu);
  EXPECT_EQ(d.memEvents[2].bytes, 123456789012345u);
  EXPECT_EQ(d.memEvents[0].threadId, 4242u);
  EXPECT_EQ(d.startNs, 1700000000000000000u);
  EXPECT_EQ(d.endNs, 1700000000000010000u);
  EXPECT_TRUE(d.hasStartNs);
  EXPECT_TRUE(d.hasEndNs);
}

TEST(ProfileDecoder, NamesAreViewsIntoTheBuffer) {
  std::string bytes;
  ASSERT_TRUE(sampleProfile().SerializeToString(&bytes));
  ProfileData d;
  ASSERT_TRUE(decodeProfile(bytes, d).ok());
  for (const ProfileEvent& e : d.events) {
    EXPECT_GE(e.name.data(), bytes.data());
    EXPECT_LE(e.name.data() + e.name.size(), bytes.data() + bytes.size());
  }
}

TEST(ProfileDecoder, EmptyInputIsAnEmptyProfile) {
  ProfileData d;
  Status r = decodeProfile("", d);
  EXPECT_TRUE(r.ok());
  EXPECT_TRUE(d.events.empty());
  EXPECT_FALSE(d.hasStartNs);
  EXPECT_FALSE(d.hasEndNs);
}

TEST(ProfileDecoder, UnsetFieldsKeepTheirDefaults) {
  pb::Profile p;
  p.add_events()->set_name("bare");
  p.add_mem_events();
  std::string bytes;
  ASSERT_TRUE(p.SerializeToString(&bytes));
  expectSameAsProtoc(bytes);
  ProfileData d;
  ASSERT_TRUE(decodeProfile(bytes, d).ok());
  EXPECT_EQ(d.events[0].deviceId, 0);
  EXPECT_EQ(d.events[0].type, 0);
  EXPECT_TRUE(d.events[0].detail.empty());
  EXPECT_EQ(d.events[0].memcopyBytes, 0u);
}

TEST(ProfileDecoder, NegativeAndExtremeIntegers) {
  pb::Profile p;
  for (int64_t dev : {int64_t{-1}, int64_t{-5}, INT64_MIN, INT64_MAX, int64_t{0}}) {
    addEvent(p, pb::Event::CPU, "x", UINT64_MAX, 0, dev, dev == INT64_MIN ? INT64_MAX : -dev);
  }
  std::string bytes;
  ASSERT_TRUE(p.SerializeToString(&bytes));
  expectSameAsProtoc(bytes);
  ProfileData d;
  ASSERT_TRUE(decodeProfile(bytes, d).ok());
  EXPECT_EQ(d.events[0].deviceId, -1);
  EXPECT_EQ(d.events[1].deviceId, -5);
  EXPECT_EQ(d.events[1].subDeviceId, 5);
  EXPECT_EQ(d.events[2].deviceId, INT64_MIN);
  EXPECT_EQ(d.events[3].deviceId, INT64_MAX);
  EXPECT_EQ(d.events[0].startNs, UINT64_MAX);
}

TEST(ProfileDecoder, UnknownFieldsOfEveryWireTypeAreSkipped) {
  pb::Profile p = sampleProfile();
  auto addUnknown = [](google::protobuf::UnknownFieldSet* u) {
    u->AddVarint(20, 99);
    u->AddFixed64(21, 0x0123456789abcdefull);
    u->AddFixed32(22, 0xdeadbeef);
    u->AddLengthDelimited(23, "unknown payload");
    u->AddVarint(1000, UINT64_MAX);
  };
  addUnknown(p.mutable_unknown_fields());
  addUnknown(p.mutable_events(0)->mutable_unknown_fields());
  addUnknown(p.mutable_events(3)->mutable_memcopy()->mutable_unknown_fields());
  addUnknown(p.mutable_mem_events(0)->mutable_unknown_fields());
  std::string bytes;
  ASSERT_TRUE(p.SerializeToString(&bytes));
  expectSameAsProtoc(bytes);
}

TEST(ProfileDecoder, KnownFieldNumbersWithAnotherWireTypeAreSkipped) {
  // An event whose name (field 1) came as a varint, and a profile whose
  // start_ns (field 2) came as fixed64: both unknown to the schema's parser.
  std::string ev;
  putTag(ev, 1, 0);
  putVarint(ev, 77);
  putLen(ev, 1, "real name");
  putTag(ev, 2, 0);
  putVarint(ev, 10);
  std::string bytes;
  putLen(bytes, 1, ev);
  putTag(bytes, 2, 1);
  bytes += std::string(8, '\x01');
  putTag(bytes, 3, 0);
  putVarint(bytes, 20);
  expectSameAsProtoc(bytes);
  ProfileData d;
  Status r = decodeProfile(bytes, d);
  ASSERT_TRUE(r.ok()) << r.error().message;
  ASSERT_EQ(d.events.size(), 1u);
  EXPECT_EQ(d.events[0].name, "real name");
  EXPECT_EQ(d.events[0].startNs, 10u);
  EXPECT_FALSE(d.hasStartNs);
  EXPECT_TRUE(d.hasEndNs);
  EXPECT_EQ(d.endNs, 20u);
}

TEST(ProfileDecoder, UnknownEventTypeIsKeptAsIs) {
  // protoc files an unknown enum value away; the decoder keeps the number so
  // that the event can be counted as event_unknown_type.
  std::string ev;
  putLen(ev, 1, "odd");
  putTag(ev, 8, 0);
  putVarint(ev, 7);
  std::string bytes;
  putLen(bytes, 1, ev);
  ProfileData d;
  ASSERT_TRUE(decodeProfile(bytes, d).ok());
  ASSERT_EQ(d.events.size(), 1u);
  EXPECT_EQ(d.events[0].type, 7);
}

TEST(ProfileDecoder, RepeatedScalarFieldKeepsTheLastLikeProtoc) {
  std::string ev;
  putLen(ev, 1, "first");
  putTag(ev, 2, 0);
  putVarint(ev, 1);
  putLen(ev, 1, "second");
  putTag(ev, 2, 0);
  putVarint(ev, 2);
  std::string bytes;
  putLen(bytes, 1, ev);
  expectSameAsProtoc(bytes);
}

// A group by hand: start tag, a field of each scalar wire type, a nested
// group of another number, end tag.
std::string unknownGroup(uint32_t field, int nesting) {
  std::string g;
  putTag(g, field, 3);
  putTag(g, 7, 0);
  putVarint(g, 300);
  putTag(g, 8, 1);
  g += std::string(8, '\x02');
  putTag(g, 9, 5);
  g += std::string(4, '\x03');
  putLen(g, 10, "inside a group");
  if (nesting > 0) g += unknownGroup(field + 1, nesting - 1);
  putTag(g, 4, 3);  // an empty group
  putTag(g, 4, 4);
  putTag(g, field, 4);
  return g;
}

TEST(ProfileDecoder, UnknownGroupsAreSkippedLikeProtoc) {
  // Groups (deprecated, legal in proto2) at the top level, inside an event,
  // inside its memcopy and inside a memory event, some under a known field
  // number; every event after them must survive, as in protobuf's parse.
  std::string memcopy;
  memcopy += unknownGroup(5, 2);
  putTag(memcopy, 1, 0);
  putVarint(memcopy, 4096);
  std::string ev;
  ev += unknownGroup(1, 1);  // field 1 (name) as a group: unknown to the schema
  putLen(ev, 1, "after a group");
  putTag(ev, 2, 0);
  putVarint(ev, 11);
  ev += unknownGroup(15, 3);
  putLen(ev, 7, memcopy);
  std::string mem;
  mem += unknownGroup(12, 0);
  putTag(mem, 3, 0);
  putVarint(mem, 77);
  std::string bytes;
  bytes += unknownGroup(9, 4);
  putLen(bytes, 1, ev);
  bytes += unknownGroup(1, 0);
  putLen(bytes, 4, mem);
  bytes += unknownGroup(2, 5);
  putTag(bytes, 3, 0);
  putVarint(bytes, 99);
  pb::Profile later = sampleProfile();
  std::string tail;
  ASSERT_TRUE(later.SerializeToString(&tail));
  bytes += tail;
  expectSameAsProtoc(bytes);
  ProfileData d;
  ASSERT_TRUE(decodeProfile(bytes, d).ok());
  ASSERT_EQ(d.events.size(), 1u + static_cast<size_t>(later.events_size()));
  EXPECT_EQ(d.events[0].name, "after a group");
  EXPECT_EQ(d.events[0].memcopyBytes, 4096u);
  EXPECT_EQ(d.memEvents[0].bytes, 77u);
}

TEST(ProfileDecoder, DeeplyNestedGroupsAgreeWithProtoc) {
  for (int depth : {1, 50, 98}) {
    std::string bytes;
    for (int i = 0; i < depth; ++i) putTag(bytes, 20 + static_cast<uint32_t>(i), 3);
    for (int i = depth - 1; i >= 0; --i) putTag(bytes, 20 + static_cast<uint32_t>(i), 4);
    putTag(bytes, 3, 0);
    putVarint(bytes, 5);
    SCOPED_TRACE(depth);
    expectSameAsProtoc(bytes);
  }
  // Far deeper than any limit: protobuf refuses it, and so does the decoder
  // (an error, no recursion, no crash).
  std::string deep;
  for (int i = 0; i < 100000; ++i) putTag(deep, 20, 3);
  for (int i = 0; i < 100000; ++i) putTag(deep, 20, 4);
  pb::Profile ref;
  EXPECT_FALSE(ref.ParseFromString(deep));
  ProfileData d;
  EXPECT_FALSE(decodeProfile(deep, d).ok());
}

TEST(ProfileDecoder, BrokenGroupsAreErrorsLikeProtoc) {
  std::vector<std::string> cases;
  std::string mismatched;  // start 9, end 10
  putTag(mismatched, 9, 3);
  putTag(mismatched, 10, 4);
  cases.push_back(mismatched);
  std::string unterminated;
  putTag(unterminated, 9, 3);
  putTag(unterminated, 1, 0);
  putVarint(unterminated, 1);
  cases.push_back(unterminated);
  std::string stray;  // an end tag with no group open
  putTag(stray, 9, 4);
  cases.push_back(stray);
  std::string badInside;  // wire type 6 inside a group
  putTag(badInside, 9, 3);
  putTag(badInside, 1, 6);
  putTag(badInside, 9, 4);
  cases.push_back(badInside);
  std::string cutInside;  // a length that runs past the end, inside a group
  putTag(cutInside, 9, 3);
  putTag(cutInside, 1, 2);
  putVarint(cutInside, 50);
  cases.push_back(cutInside);
  for (size_t i = 0; i < cases.size(); ++i) {
    SCOPED_TRACE(i);
    pb::Profile ref;
    EXPECT_FALSE(ref.ParseFromString(cases[i]));
    ProfileData d;
    Status r = decodeProfile(cases[i], d);
    EXPECT_FALSE(r.ok());
    EXPECT_EQ(r.error().offset, 0u);
  }
}

TEST(ProfileDecoder, UnterminatedGroupsAndBadWireTypesAreErrorsNotCrashes) {
  for (uint32_t wt : {3u, 4u, 6u, 7u}) {
    std::string bytes;
    pb::Profile p;
    addEvent(p, pb::Event::CPU, "kept", 1, 2, 0, 0);
    ASSERT_TRUE(p.SerializeToString(&bytes));
    const size_t cut = bytes.size();
    putTag(bytes, 9, wt);
    ProfileData d;
    Status r = decodeProfile(bytes, d);
    EXPECT_FALSE(r.ok()) << wt;
    EXPECT_EQ(r.error().offset, cut) << wt;
    EXPECT_FALSE(r.error().message.empty());
    EXPECT_EQ(d.events.size(), 1u);
  }
  // Field number 0 is never valid.
  std::string zero;
  putTag(zero, 0, 0);
  putVarint(zero, 1);
  ProfileData d;
  Status r = decodeProfile(zero, d);
  EXPECT_FALSE(r.ok());
  EXPECT_EQ(r.error().offset, 0u);
}

TEST(ProfileDecoder, MalformedEventReportsItsOffsetAndKeepsEarlierEvents) {
  pb::Profile p;
  addEvent(p, pb::Event::CPU, "good", 1, 2, 0, 0);
  std::string bytes;
  ASSERT_TRUE(p.SerializeToString(&bytes));
  const size_t at = bytes.size();
  std::string bad;
  putTag(bad, 2, 0);
  bad.push_back('\x80');  // varint cut inside the event
  putLen(bytes, 1, bad);
  ProfileData d;
  Status r = decodeProfile(bytes, d);
  EXPECT_FALSE(r.ok());
  EXPECT_EQ(r.error().offset, at);
  EXPECT_EQ(r.error().message, "malformed event");
  ASSERT_EQ(d.events.size(), 1u);
  EXPECT_EQ(d.events[0].name, "good");
}

TEST(ProfileDecoder, OverlongVarintIsAnError) {
  std::string bytes;
  putTag(bytes, 2, 0);
  bytes += std::string(10, '\xff');
  bytes.push_back('\x01');
  ProfileData d;
  Status r = decodeProfile(bytes, d);
  EXPECT_FALSE(r.ok());
  EXPECT_EQ(r.error().offset, 0u);
}

// Top-level field boundaries of a serialized profile: each field serialized
// alone, in protoc's order (events, start_ns, end_ns, mem_events).
struct Field {
  size_t begin, end;
  int kind;  // 1 event, 2 start/end, 4 mem event
};

TEST(ProfileDecoder, TruncationAtEveryByteKeepsEverythingBeforeTheCut) {
  pb::Profile full = sampleProfile();
  std::string bytes;
  ASSERT_TRUE(full.SerializeToString(&bytes));

  std::vector<Field> fields;
  std::string rebuilt;
  auto addField = [&](const pb::Profile& one, int kind) {
    std::string s;
    ASSERT_TRUE(one.SerializeToString(&s));
    fields.push_back({rebuilt.size(), rebuilt.size() + s.size(), kind});
    rebuilt += s;
  };
  for (const auto& e : full.events()) {
    pb::Profile one;
    *one.add_events() = e;
    addField(one, 1);
  }
  {
    pb::Profile one;
    one.set_start_ns(full.start_ns());
    addField(one, 2);
  }
  {
    pb::Profile one;
    one.set_end_ns(full.end_ns());
    addField(one, 2);
  }
  for (const auto& m : full.mem_events()) {
    pb::Profile one;
    *one.add_mem_events() = m;
    addField(one, 4);
  }
  ASSERT_EQ(rebuilt, bytes);

  for (size_t cut = 0; cut <= bytes.size(); ++cut) {
    SCOPED_TRACE("cut at " + std::to_string(cut));
    ProfileData d;
    std::string_view part(bytes.data(), cut);
    Status r = decodeProfile(part, d);
    size_t events = 0, mems = 0;
    bool boundary = cut == 0;
    size_t cutField = 0;
    for (const Field& f : fields) {
      if (f.end <= cut) {
        events += f.kind == 1;
        mems += f.kind == 4;
      }
      if (f.end == cut) boundary = true;
      if (f.begin < cut && cut < f.end) cutField = f.begin;
    }
    EXPECT_EQ(d.events.size(), events);
    EXPECT_EQ(d.memEvents.size(), mems);
    if (boundary) {
      EXPECT_TRUE(r.ok()) << r.error().message;
    } else {
      EXPECT_FALSE(r.ok());
      EXPECT_FALSE(r.error().message.empty());
      EXPECT_EQ(r.error().offset, cutField);
      EXPECT_LT(r.error().offset.value_or(UINT64_MAX), cut);
    }
    // The events that were kept are the first ones, intact.
    for (size_t i = 0; i < d.events.size(); ++i)
      EXPECT_EQ(d.events[i].name, full.events(static_cast<int>(i)).name());
  }
}

TEST(ProfileDecoder, HugeLengthPrefixIsAnErrorWithoutAllocation) {
  // Field 1 (event, length-delimited) claiming 2 GiB - 1, in a 6-byte file;
  // and a 5-byte one whose length varint is itself cut.
  const std::string claims2GiB("\x0a\xff\xff\xff\xff\x07", 6);
  const std::string fiveBytes("\x0a\xff\xff\xff\xff", 5);
  const std::string memEvent("\x22\x80\x80\x80\x80\x08", 6);
  for (const std::string& bytes : {claims2GiB, fiveBytes, memEvent}) {
    ProfileData d;
    g_largestAllocation = 0;
    g_trackAllocations = true;
    Status r = decodeProfile(bytes, d);
    g_trackAllocations = false;
    EXPECT_FALSE(r.ok());
    EXPECT_EQ(r.error().offset, 0u);
    EXPECT_NE(r.error().message.find("cut short"), std::string::npos) << r.error().message;
    EXPECT_TRUE(d.events.empty());
    EXPECT_LT(g_largestAllocation.load(), size_t{1} << 16);
  }
}

TEST(ProfileDecoder, RandomBytesNeverCrash) {
  std::mt19937_64 rng(12345);
  std::string good;
  ASSERT_TRUE(sampleProfile().SerializeToString(&good));
  for (int iter = 0; iter < 10000; ++iter) {
    std::string bytes;
    if (iter % 2 == 0) {
      bytes.resize(rng() % 64);
      for (char& c : bytes) c = static_cast<char>(rng());
    } else {
      bytes = good;  // a valid profile with a few bytes flipped
      for (int k = 0; k < 3; ++k) bytes[rng() % bytes.size()] = static_cast<char>(rng());
    }
    ProfileData d;
    Status r = decodeProfile(bytes, d);
    if (!r.ok()) {
      EXPECT_LT(r.error().offset.value_or(UINT64_MAX), bytes.size());
      EXPECT_FALSE(r.error().message.empty());
    }
    for (const ProfileEvent& e : d.events) {
      if (e.name.empty()) continue;  // an unset name is an empty view, not into the buffer
      EXPECT_GE(e.name.data(), bytes.data());
      EXPECT_LE(e.name.data() + e.name.size(), bytes.data() + bytes.size());
    }
  }
}

TEST(ProfileDecoder, AppendsToExistingData) {
  std::string bytes;
  ASSERT_TRUE(sampleProfile().SerializeToString(&bytes));
  ProfileData d;
  ASSERT_TRUE(decodeProfile(bytes, d).ok());
  ASSERT_TRUE(decodeProfile(bytes, d).ok());
  EXPECT_EQ(d.events.size(), 10u);
  EXPECT_EQ(d.memEvents.size(), 6u);
}

}  // namespace
}  // namespace xstack
