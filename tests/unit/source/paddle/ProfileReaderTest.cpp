// readProfile: bytes from disk, never blocking, "partial" for a file cut
// after some events, an Error naming the path when nothing is usable.
#include <fcntl.h>
#include <gtest/gtest.h>
#include <sys/stat.h>
#include <unistd.h>

#include <chrono>
#include <filesystem>
#include <fstream>
#include <future>
#include <random>
#include <thread>

#include "../../TempDirTest.h"
#include "profiler.pb.h"
#include "xstack/source/paddle/ProfileReader.h"

namespace xstack {
namespace {

namespace fs = std::filesystem;
namespace pb = paddle::platform::proto;

class ProfileReaderTest : public TempDirTest {
 protected:
};

pb::Profile threeEvents() {
  pb::Profile p;
  for (int i = 0; i < 3; ++i) {
    pb::Event* e = p.add_events();
    e->set_name("op" + std::to_string(i));
    e->set_start_ns(1000 + static_cast<uint64_t>(i) * 10);
    e->set_end_ns(1005 + static_cast<uint64_t>(i) * 10);
    e->set_sub_device_id(1);
  }
  p.set_start_ns(900);
  p.set_end_ns(2000);
  return p;
}

std::string serialized(const pb::Profile& p) {
  std::string s;
  EXPECT_TRUE(p.SerializeToString(&s));
  return s;
}

TEST_F(ProfileReaderTest, CompleteProfile) {
  std::string bytes = serialized(threeEvents());
  auto r = readProfile(write("p.0", bytes));
  ASSERT_TRUE(r.ok()) << r.error().message;
  EXPECT_TRUE(r->partial.empty()) << r->partial;
  EXPECT_EQ(r->fileBytes, bytes.size());
  ASSERT_EQ(r->data.events.size(), 3u);
  EXPECT_EQ(r->data.events[2].name, "op2");
  EXPECT_EQ(r->data.endNs, 2000u);
  // The names point into the buffer the profile owns, which survives a move.
  LoadedProfile moved = std::move(*r);
  EXPECT_EQ(moved.data.events[0].name, "op0");
  EXPECT_GE(moved.data.events[0].name.data(), moved.buffer->data());
}

TEST_F(ProfileReaderTest, EmptyFileIsAnError) {
  std::string p = write("p.0", "");
  auto r = readProfile(p);
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.error().message, p + ": empty file");
}

TEST_F(ProfileReaderTest, MissingFileIsAnErrorNamingThePath) {
  std::string p = (dir_ / "nope.3").string();
  auto r = readProfile(p);
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.error().message.rfind(p + ": cannot open", 0), 0u) << r.error().message;
}

TEST_F(ProfileReaderTest, DirectoryIsNotARegularFile) {
  fs::create_directory(dir_ / "sub.1");
  std::string p = (dir_ / "sub.1").string();
  auto r = readProfile(p);
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.error().message.rfind(p + ": not a regular file", 0), 0u) << r.error().message;
}

TEST_F(ProfileReaderTest, FifoIsAnErrorAtOnceNeverAHang) {
  std::string p = (dir_ / "fifo.2").string();
  ASSERT_EQ(::mkfifo(p.c_str(), 0600), 0);
  std::promise<Expected<LoadedProfile>> done;
  auto result = done.get_future();
  std::thread reader([&] { done.set_value(readProfile(p)); });
  if (result.wait_for(std::chrono::seconds(10)) != std::future_status::ready) {
    ADD_FAILURE() << "readProfile blocked on a FIFO";
    // Unblock it: a writer that opens and closes at once.
    int fd = ::open(p.c_str(), O_RDWR | O_NONBLOCK);
    if (fd >= 0) ::close(fd);
  }
  reader.join();
  auto r = result.get();
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.error().message, p + ": not a regular file (a FIFO)");
}

TEST_F(ProfileReaderTest, CutAtAnEventBoundaryIsPartialWithNoEndNs) {
  pb::Profile p = threeEvents();
  p.clear_start_ns();
  p.clear_end_ns();
  pb::Profile two;
  *two.add_events() = p.events(0);
  *two.add_events() = p.events(1);
  std::string full = serialized(threeEvents());
  std::string cut = serialized(two);
  ASSERT_EQ(full.compare(0, cut.size(), cut), 0);  // a prefix of the real file
  auto r = readProfile(write("p.1", cut));
  ASSERT_TRUE(r.ok()) << r.error().message;
  EXPECT_EQ(r->data.events.size(), 2u);
  EXPECT_EQ(r->partial,
            "no end_ns after 2 events: cut at byte " + std::to_string(cut.size()) + "?");
}

TEST_F(ProfileReaderTest, CutMidEventIsPartialNamingTheByteOffset) {
  pb::Profile two;
  *two.add_events() = threeEvents().events(0);
  *two.add_events() = threeEvents().events(1);
  const size_t boundary = serialized(two).size();
  std::string full = serialized(threeEvents());
  std::string cut = full.substr(0, boundary + 4);  // inside the third event
  auto r = readProfile(write("p.1", cut));
  ASSERT_TRUE(r.ok()) << r.error().message;
  EXPECT_EQ(r->data.events.size(), 2u);
  EXPECT_EQ(r->fileBytes, cut.size());
  EXPECT_EQ(r->partial, "cut or corrupt at byte " + std::to_string(boundary) + " of " +
                            std::to_string(cut.size()) +
                            ": event cut short (length runs past end of file)");
}

TEST_F(ProfileReaderTest, CutInsideTheFirstEventIsNotAProfile) {
  std::string full = serialized(threeEvents());
  std::string p = write("p.1", full.substr(0, 5));
  auto r = readProfile(p);
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.error().message.rfind(p + ": not a profile (byte 0 of 5: ", 0), 0u)
      << r.error().message;
}

TEST_F(ProfileReaderTest, TextFileIsNotAProfile) {
  std::string p = write("p.4", "# Entity GPUTL GRACT\nGPU 0 1 2\n");
  auto r = readProfile(p);
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.error().message.rfind(p + ": not a profile", 0), 0u) << r.error().message;
}

TEST_F(ProfileReaderTest, OnlyHeaderFieldsWithoutEventsIsNotAProfileUnlessEnded) {
  pb::Profile onlyStart;
  onlyStart.set_start_ns(5);
  std::string p = write("p.5", serialized(onlyStart));
  auto r = readProfile(p);
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.error().message, p + ": not a profile (no events and no end_ns)");

  // A profile that recorded nothing but ended properly is sound and empty.
  pb::Profile ended;
  ended.set_start_ns(5);
  ended.set_end_ns(6);
  auto e = readProfile(write("p.6", serialized(ended)));
  ASSERT_TRUE(e.ok()) << e.error().message;
  EXPECT_TRUE(e->partial.empty());
  EXPECT_TRUE(e->data.events.empty());
}

TEST_F(ProfileReaderTest, MemoryEventsOnlyAreUsable) {
  pb::Profile p;
  pb::MemEvent* m = p.add_mem_events();
  m->set_start_ns(1);
  m->set_bytes(10);
  auto r = readProfile(write("p.7", serialized(p)));
  ASSERT_TRUE(r.ok()) << r.error().message;
  EXPECT_EQ(r->data.memEvents.size(), 1u);
  EXPECT_NE(r->partial.find("no end_ns"), std::string::npos);
}

TEST_F(ProfileReaderTest, HugeLengthPrefixIsAnError) {
  std::string p = write("p.8", std::string("\x0a\xff\xff\xff\xff\x07", 6));
  auto r = readProfile(p);
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.error().message,
            p + ": not a profile (byte 0 of 6: event cut short (length runs past end of file))");
}

// Regression: profiles are kept between reading and rendering; when they
// were memory-mapped, a file truncated in between killed the rank (SIGBUS).
TEST_F(ProfileReaderTest, FileTruncatedAfterReadingDoesNotCrash) {
  pb::Profile big;
  for (int i = 0; i < 5000; ++i) {
    pb::Event* e = big.add_events();
    e->set_name("an event with a long enough name " + std::to_string(i));
    e->set_start_ns(1);
    e->set_end_ns(2);
  }
  big.set_end_ns(3);
  std::string p = write("p.0", serialized(big));
  EXPECT_EXIT(
      {
        auto r = readProfile(p);
        if (!r.ok()) std::_Exit(2);
        std::filesystem::resize_file(p, 0);  // the file is rewritten in place
        size_t sum = 0;
        for (const auto& e : r->data.events)
          for (char c : e.name) sum += static_cast<unsigned char>(c);
        std::_Exit(sum ? 0 : 3);
      },
      ::testing::ExitedWithCode(0), "");
}

TEST_F(ProfileReaderTest, RandomBytesGiveAnErrorOrAPartialProfileNeverACrash) {
  std::mt19937_64 rng(7);
  std::string good = serialized(threeEvents());
  for (int i = 0; i < 200; ++i) {
    std::string bytes;
    if (i % 2) {
      bytes.resize(1 + rng() % 300);
      for (char& c : bytes) c = static_cast<char>(rng());
    } else {
      bytes = good.substr(0, 1 + rng() % good.size());
      bytes[rng() % bytes.size()] = static_cast<char>(rng());
    }
    std::string p = write("r." + std::to_string(i), bytes);
    auto r = readProfile(p);
    if (r.ok()) {
      EXPECT_EQ(r->fileBytes, bytes.size());
      if (!r->partial.empty()) {
        EXPECT_TRUE(r->partial.rfind("cut or corrupt at byte ", 0) == 0 ||
                    r->partial.rfind("no end_ns", 0) == 0)
            << r->partial;
      }
    } else {
      EXPECT_EQ(r.error().message.rfind(p + ": ", 0), 0u) << r.error().message;
    }
  }
}

// The streaming reader (readProfileInto, what `report` uses) fails, or
// reports a partial file, exactly as readProfile does, delivers the same
// events, and reuses one buffer across files of different sizes.
TEST_F(ProfileReaderTest, StreamingReaderAgreesWithReadProfileOnEveryKindOfFile) {
  std::string whole = serialized(threeEvents());
  pb::Profile memOnly;
  memOnly.add_mem_events()->set_bytes(5);
  pb::Profile noEnd = threeEvents();
  noEnd.clear_end_ns();
  std::mt19937 rng(11);
  std::string noise(300, '\0');
  for (char& c : noise) c = static_cast<char>(rng());
  const std::vector<std::pair<std::string, std::string>> files = {
      {"whole", whole},
      {"cut_mid", whole.substr(0, whole.size() - 3)},
      {"cut_first", whole.substr(0, 5)},
      {"no_end", serialized(noEnd)},
      {"mem_only", serialized(memOnly)},
      {"text", "hello, this is not a profile\n"},
      {"empty", ""},
      {"noise", noise},
  };
  struct Collect final : ProfileSink {
    std::vector<std::string> names;
    size_t mem = 0;
    void onEvent(const ProfileEvent& e) override { names.emplace_back(e.name); }
    void onMemEvent(const ProfileMemEvent&) override { ++mem; }
  };
  std::unique_ptr<FileBuffer> buffer;  // reused across all files
  for (const auto& [name, bytes] : files) {
    SCOPED_TRACE(name);
    std::string path = write("p." + name, bytes);
    auto whole = readProfile(path);
    Collect got;
    auto streamed = readProfileInto(path, buffer, got);
    ASSERT_EQ(whole.ok(), streamed.ok());
    if (!whole.ok()) {
      EXPECT_EQ(whole.error().message, streamed.error().message);
      continue;
    }
    EXPECT_EQ(whole->partial, streamed->partial);
    EXPECT_EQ(whole->fileBytes, streamed->fileBytes);
    ASSERT_EQ(got.names.size(), whole->data.events.size());
    for (size_t i = 0; i < got.names.size(); ++i)
      EXPECT_EQ(got.names[i], whole->data.events[i].name);
    EXPECT_EQ(got.mem, whole->data.memEvents.size());
  }
  // The missing file: the same error naming the path.
  Collect none;
  auto missing = readProfileInto((dir_ / "nope.1").string(), buffer, none);
  ASSERT_FALSE(missing.ok());
  EXPECT_EQ(missing.error().message, readProfile((dir_ / "nope.1").string()).error().message);
}

// A sparse file (zeros) is rejected at byte 0 after its first piece, not
// read whole: the buffer holds 64 KiB, whatever the file's size (before: all of it).
TEST_F(ProfileReaderTest, SparseFileIsRejectedAfterItsFirstPiece) {
  const std::string p = (dir_ / "sparse.0").string();
  std::ofstream(p).close();
  fs::resize_file(p, uint64_t{256} << 20);
  std::unique_ptr<FileBuffer> buffer;
  struct None final : ProfileSink {
    void onEvent(const ProfileEvent&) override {}
    void onMemEvent(const ProfileMemEvent&) override {}
  } none;
  auto r = readProfileInto(p, buffer, none);
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.error().message,
            p + ": not a profile (byte 0 of 268435456: bad field (number 0, wire type 0))");
  ASSERT_NE(buffer, nullptr);
  EXPECT_LE(buffer->size(), size_t{64} << 10);
  EXPECT_EQ(buffer->fileSize(), uint64_t{256} << 20);
  auto whole = readProfile(p);  // the same through the other reader
  ASSERT_FALSE(whole.ok());
  EXPECT_EQ(whole.error().message, r.error().message);
}

// A profile with a sparse tail: partial, the events before the zeros kept, the offset and
// the file's size as a whole read gives them, and only the first piece read.
TEST_F(ProfileReaderTest, ProfileWithASparseTailIsPartialAndReadInPart) {
  const std::string bytes = serialized(threeEvents());
  const std::string p = write("tail.0", bytes);
  fs::resize_file(p, uint64_t{256} << 20);
  auto r = readProfile(p);
  ASSERT_TRUE(r.ok()) << r.error().message;
  EXPECT_EQ(r->data.events.size(), 3u);
  EXPECT_EQ(r->partial, "cut or corrupt at byte " + std::to_string(bytes.size()) +
                            " of 268435456: bad field (number 0, wire type 0)");
  EXPECT_EQ(r->fileBytes, uint64_t{256} << 20);
  EXPECT_LE(r->buffer->size(), size_t{64} << 10);
}

// The check never changes what is decoded: a profile of many pieces, cut or followed by
// junk at many places, decodes to the same events and the same error as a whole read.
TEST_F(ProfileReaderTest, PrefixCheckDecodesAsAWholeRead) {
  pb::Profile big;
  for (int i = 0; i < 40000; ++i) {
    pb::Event* e = big.add_events();
    e->set_name("an event with a long enough name " + std::to_string(i));
    e->set_start_ns(1);
    e->set_end_ns(2);
  }
  big.set_end_ns(3);
  const std::string good = serialized(big);  // about 2 MiB: several pieces
  ASSERT_GT(good.size(), size_t{1} << 20);
  std::mt19937_64 rng(5);
  for (int i = 0; i < 12; ++i) {
    std::string bytes = good.substr(0, i == 0 ? good.size() : rng() % good.size());
    if (i % 3 == 1) bytes += std::string(1 + rng() % 100000, '\0');
    if (i % 3 == 2) bytes += std::string("\x0a\xff\xff\xff\xff\x07junk", 10);
    const std::string p = write("c." + std::to_string(i), bytes);
    SCOPED_TRACE(bytes.size());
    auto plain = FileBuffer::open(p);
    ASSERT_TRUE(plain.ok());
    ProfileData a, b;
    Status ra = decodeProfile((*plain)->view(), a);
    ProfilePrefixCheck check;
    auto checked = FileBuffer::open(p, nullptr, &check);
    ASSERT_TRUE(checked.ok());
    EXPECT_EQ((*checked)->fileSize(), bytes.size());
    Status rb = decodeProfile((*checked)->view(), b);
    EXPECT_EQ(ra.ok(), rb.ok());
    EXPECT_EQ(ra.error().offset, rb.error().offset);
    EXPECT_EQ(ra.error().message, rb.error().message);
    EXPECT_EQ(a.events.size(), b.events.size());
    EXPECT_EQ(a.hasEndNs, b.hasEndNs);
  }
}

// A sparse file whose first field claims to be one event of nearly all of it: the event is
// walked inside as it arrives and rejected at its first byte; the error is the one a
// whole read gives ("malformed event" at byte 0), after 64 KiB read.
TEST_F(ProfileReaderTest, AHugeEventOfZerosIsRejectedInsideAfterItsFirstPiece) {
  const uint64_t size = uint64_t{256} << 20;
  std::string head = "\x0a";
  for (uint64_t n = size - 5; n; n >>= 7)
    head.push_back(static_cast<char>((n & 0x7f) | (n > 0x7f ? 0x80 : 0)));
  ASSERT_EQ(head.size(), 5u);  // tag and a 4-byte length: the event ends at the file's end
  const std::string p = write("huge.0", head);
  fs::resize_file(p, size);
  std::unique_ptr<FileBuffer> buffer;
  struct None final : ProfileSink {
    void onEvent(const ProfileEvent&) override {}
    void onMemEvent(const ProfileMemEvent&) override {}
  } none;
  auto r = readProfileInto(p, buffer, none);
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.error().message, p + ": not a profile (byte 0 of 268435456: malformed event)");
  EXPECT_LE(buffer->size(), size_t{64} << 10);
  auto whole = readProfile(p);
  ASSERT_FALSE(whole.ok());
  EXPECT_EQ(whole.error().message, r.error().message);
}

// Large events (names of 5 MiB, walked inside) whole, cut, or corrupt at many places inside
// and after: the same events and the same error as a whole read.
TEST_F(ProfileReaderTest, PrefixCheckOfLargeEventsDecodesAsAWholeRead) {
  pb::Profile p = threeEvents();
  p.mutable_events(1)->set_name(std::string(5 << 20, 'n'));
  p.add_mem_events()->set_alloc_in(std::string(5 << 20, 'a'));
  p.mutable_events(2)->set_detail_info(std::string(6 << 20, 'd'));
  const std::string good = serialized(p);
  std::mt19937_64 rng(9);
  for (int i = 0; i < 16; ++i) {
    std::string bytes = good;
    if (i % 4 == 1) bytes = good.substr(0, rng() % good.size());
    if (i % 4 == 2) bytes[rng() % bytes.size()] = static_cast<char>(i % 8 == 2 ? 0 : 0x07);
    if (i % 4 == 3)
      std::fill_n(bytes.begin() + static_cast<long>(rng() % (bytes.size() - 64)), 64, '\xff');
    const std::string path = write("l." + std::to_string(i), bytes);
    SCOPED_TRACE(i);
    auto plain = FileBuffer::open(path);
    ASSERT_TRUE(plain.ok());
    ProfileData a, b;
    const Status ra = decodeProfile((*plain)->view(), a);
    ProfilePrefixCheck check;
    auto checked = FileBuffer::open(path, nullptr, &check);
    ASSERT_TRUE(checked.ok());
    const Status rb = decodeChecked((*checked)->view(), check, b);
    EXPECT_EQ(ra.ok(), rb.ok());
    EXPECT_EQ(ra.error().offset, rb.error().offset);
    EXPECT_EQ(ra.error().message, rb.error().message);
    ASSERT_EQ(a.events.size(), b.events.size());
    for (size_t k = 0; k < a.events.size(); ++k) EXPECT_EQ(a.events[k].name, b.events[k].name);
    EXPECT_EQ(a.memEvents.size(), b.memEvents.size());
    EXPECT_EQ(a.hasEndNs, b.hasEndNs);
  }
  // The tag after event 1's name (its start_ns) made 0: rejected inside, reading stopped
  // within a piece (4 MiB) of it, the error as a whole read gives it.
  std::string bad = good;
  bad[good.find(std::string(5 << 20, 'n')) + (5 << 20)] = '\0';
  const std::string path = write("l.bad", bad);
  ProfilePrefixCheck check;
  auto checked = FileBuffer::open(path, nullptr, &check);
  ASSERT_TRUE(checked.ok());
  ASSERT_TRUE(check.rejected().has_value());
  EXPECT_LE((*checked)->size(), good.find(std::string(5 << 20, 'n')) + (5 << 20) + (4 << 20));
  EXPECT_EQ((*checked)->fileSize(), bad.size());
  ProfileData a, b;
  const Status ra = decodeProfile(bad, a);
  const Status rb = decodeChecked((*checked)->view(), check, b);
  ASSERT_FALSE(ra.ok());
  EXPECT_EQ(ra.error().message, "malformed event");
  EXPECT_EQ(rb.error().message, ra.error().message);
  EXPECT_EQ(rb.error().offset, ra.error().offset);
  EXPECT_EQ(b.events.size(), a.events.size());
}

}  // namespace
}  // namespace xstack
