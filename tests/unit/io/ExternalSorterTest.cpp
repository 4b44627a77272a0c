#include <gtest/gtest.h>

#include <filesystem>
#include <random>
#include <vector>

#include "../TempDirTest.h"
#include "xstack/io/ExternalSorter.h"
#include "xstack/io/SpillFile.h"

namespace xstack {
namespace {

struct Keyed {
  uint32_t key = 0;
  uint32_t seq = 0;  // push order, not part of the order: checks stability
};
struct ByKey {
  bool operator()(const Keyed& a, const Keyed& b) const { return a.key < b.key; }
};

std::vector<Keyed> randomRecords(size_t n, uint32_t keys, uint32_t seed) {
  std::mt19937 rng(seed);
  std::vector<Keyed> v(n);
  for (size_t i = 0; i < n; ++i)
    v[i] = {static_cast<uint32_t>(rng() % keys), static_cast<uint32_t>(i)};
  return v;
}

std::vector<Keyed> drain(const ExternalSorter<Keyed, ByKey>& s) {
  std::vector<Keyed> out;
  auto reader = s.read();
  Keyed r;
  while (reader.next(r)) out.push_back(r);
  EXPECT_TRUE(reader.status().ok()) << reader.status().error().message;
  return out;
}

void expectStableSorted(const std::vector<Keyed>& in, const std::vector<Keyed>& got) {
  std::vector<Keyed> want = in;
  std::stable_sort(want.begin(), want.end(), ByKey{});
  ASSERT_EQ(got.size(), want.size());
  for (size_t i = 0; i < want.size(); ++i) {
    ASSERT_EQ(got[i].key, want[i].key) << i;
    ASSERT_EQ(got[i].seq, want[i].seq) << i;
  }
}

class ExternalSorterTest : public TempDirTest {
 protected:
  SpillOptions options(uint64_t memoryBytes) const { return {dir_.string(), memoryBytes}; }
  size_t filesInDir() const {
    size_t n = 0;
    for ([[maybe_unused]] const auto& e : std::filesystem::directory_iterator(dir_)) ++n;
    return n;
  }
};

TEST_F(ExternalSorterTest, BelowTheBudgetNothingIsSpilled) {
  ExternalSorter<Keyed, ByKey> s(options(64 << 20));
  std::vector<Keyed> in = randomRecords(5000, 100, 1);
  for (const Keyed& r : in) s.push(r);
  ASSERT_TRUE(s.finish().ok());
  EXPECT_FALSE(s.spilled());
  EXPECT_EQ(s.size(), in.size());
  expectStableSorted(in, drain(s));
}

TEST_F(ExternalSorterTest, SpilledRunsMergeStablyAndLeaveNoFile) {
  // 1 KiB of budget: runs of 1024 records (the floor), 50 of them, fan-in 2:
  // finish() merges in passes until one reader can hold the runs.
  ExternalSorter<Keyed, ByKey> s(options(1024));
  std::vector<Keyed> in = randomRecords(50'000, 37, 2);
  for (const Keyed& r : in) s.push(r);
  ASSERT_TRUE(s.finish().ok()) << s.status().error().message;
  EXPECT_TRUE(s.spilled());
  EXPECT_LE(s.runCount(), 2u);
  expectStableSorted(in, drain(s));
  expectStableSorted(in, drain(s));  // a second pass reads the same
  EXPECT_EQ(filesInDir(), 0u) << "the scratch file is unlinked";
}

TEST_F(ExternalSorterTest, ManyRunsWithinOneFanIn) {
  // 1 MiB: runs of ~43,690 records, fan-in 16: 5 runs merged by the reader directly.
  ExternalSorter<Keyed, ByKey> s(options(1 << 20));
  std::vector<Keyed> in = randomRecords(200'000, 1000, 3);
  for (const Keyed& r : in) s.push(r);
  ASSERT_TRUE(s.finish().ok());
  EXPECT_GT(s.runCount(), 1u);
  expectStableSorted(in, drain(s));
}

TEST_F(ExternalSorterTest, InputInOrderOrOutOfOrderAtAnyPlaceSortsStably) {
  // Records that come in order are not sorted again (one comparison a push);
  // one record out of order anywhere, first or last included, in memory or in
  // a spilled run, and the batch is sorted as before. Equal keys keep push order.
  const std::vector<Keyed> sorted = [] {
    std::vector<Keyed> v = randomRecords(6000, 50, 4);
    std::stable_sort(v.begin(), v.end(), ByKey{});
    for (size_t i = 0; i < v.size(); ++i) v[i].seq = static_cast<uint32_t>(i);
    return v;
  }();
  for (uint64_t budget : {uint64_t{64} << 20, uint64_t{1024}}) {  // in memory; runs of 1024
    for (size_t at :
         {size_t{0}, size_t{1}, size_t{1023}, size_t{1024}, size_t{3000}, size_t{5999}}) {
      std::vector<Keyed> in = sorted;
      if (at != 0) std::swap(in[at].key, in[at == 5999 ? 0 : at - 1].key);  // one pair out of order
      if (at == 0) std::reverse(in.begin(), in.end());
      ExternalSorter<Keyed, ByKey> s(options(budget));
      for (const Keyed& r : in) s.push(r);
      ASSERT_TRUE(s.finish().ok());
      expectStableSorted(in, drain(s));
    }
    ExternalSorter<Keyed, ByKey> s(options(budget));
    for (const Keyed& r : sorted) s.push(r);
    ASSERT_TRUE(s.finish().ok());
    expectStableSorted(sorted, drain(s));
  }
}

TEST_F(ExternalSorterTest, InputOfAscendingRunsSortsStably) {
  // Input made of k ascending runs (an owner's arrivals of a group, rank after
  // rank): the same records in the same order as a stable sort, in memory and
  // in spilled runs of 1024.
  for (size_t runs : {2, 3, 7, 64, 65, 300}) {
    std::vector<Keyed> in;
    for (size_t r = 0; r < runs; ++r) {
      std::vector<Keyed> run = randomRecords(6000 / runs, 40, static_cast<uint32_t>(10 + r));
      std::stable_sort(run.begin(), run.end(), ByKey{});
      in.insert(in.end(), run.begin(), run.end());
    }
    for (size_t i = 0; i < in.size(); ++i) in[i].seq = static_cast<uint32_t>(i);
    for (uint64_t budget : {uint64_t{64} << 20, uint64_t{1024}}) {
      ExternalSorter<Keyed, ByKey> s(options(budget));
      for (const Keyed& r : in) s.push(r);
      ASSERT_TRUE(s.finish().ok());
      SCOPED_TRACE(testing::Message() << runs << " runs, budget " << budget);
      expectStableSorted(in, drain(s));
    }
  }
}

TEST_F(ExternalSorterTest, EmptyInputHasNoRecords) {
  ExternalSorter<Keyed, ByKey> s(options(1024));
  ASSERT_TRUE(s.finish().ok());
  EXPECT_TRUE(drain(s).empty());
}

TEST_F(ExternalSorterTest, AFolderThatCannotHoldTheSpillIsAnErrorNamingIt) {
  const std::string missing = (dir_ / "no-such-folder").string();
  ExternalSorter<Keyed, ByKey> s(SpillOptions{missing, 1024});
  for (const Keyed& r : randomRecords(5000, 10, 4)) s.push(r);
  Status st = s.finish();
  ASSERT_FALSE(st.ok());
  EXPECT_EQ(st.error().file, missing);
  EXPECT_NE(st.error().message.find("cannot make a scratch file in " + missing), std::string::npos)
      << st.error().message;
  EXPECT_NE(st.error().message.find("--spill-dir"), std::string::npos);
}

TEST_F(ExternalSorterTest, SpillFileReadsBackAcrossItsBuffer) {
  Expected<SpillFile> f = SpillFile::create(dir_.string());
  ASSERT_TRUE(f.ok());
  std::string bytes(700'000, '\0');
  for (size_t i = 0; i < bytes.size(); ++i) bytes[i] = static_cast<char>(i * 7 + 3);
  ASSERT_TRUE(f->append(bytes.substr(0, 100)).ok());
  ASSERT_TRUE(f->append(bytes.substr(100)).ok());
  ASSERT_TRUE(f->flush().ok());
  EXPECT_EQ(f->size(), bytes.size());
  std::string back(300'000, '\0');
  ASSERT_TRUE(f->readAt(250'000, back.data(), back.size()).ok());
  EXPECT_EQ(back, bytes.substr(250'000, 300'000));
  f->dropBuffer();  // flushed: its memory goes, and appending takes it again
  ASSERT_TRUE(f->append(bytes.substr(0, 10)).ok());
  f->dropBuffer();  // not flushed: a no-op, the bytes stay
  ASSERT_TRUE(f->flush().ok());
  EXPECT_EQ(f->size(), bytes.size() + 10);
  std::string tail(10, '\0');
  ASSERT_TRUE(f->readAt(bytes.size(), tail.data(), tail.size()).ok());
  EXPECT_EQ(tail, bytes.substr(0, 10));
  Status past = f->readAt(f->size() - 10, back.data(), 20);
  EXPECT_FALSE(past.ok()) << "a read past the end is an error, not a short read";
  EXPECT_EQ(filesInDir(), 0u);
}

}  // namespace
}  // namespace xstack
