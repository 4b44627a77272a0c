// io/PartShelf.h: parts within the budget stay in memory, the rest go to a
// file per stream and read back the same after seal(), also after their
// pages were released; a folder that cannot be written keeps them in
// memory; puts after seal() and from several threads.
#include <gtest/gtest.h>

#include <cstdlib>
#include <random>
#include <string>
#include <thread>
#include <vector>

#include "../TempDirTest.h"
#include "xstack/io/PartShelf.h"

namespace xstack {
namespace {

std::string randomBytes(size_t n, uint32_t seed) {
  std::mt19937 rng(seed);
  std::string s(n, '\0');
  for (char& c : s) c = static_cast<char>(rng());
  return s;
}

class PartShelfTest : public TempDirTest {};

TEST_F(PartShelfTest, PastTheBudgetPartsSpillAndReadBackAlike) {
  PartShelf shelf(dir_.string(), 100);
  const std::vector<std::string> parts{randomBytes(60, 1), randomBytes(60, 2),
                                       randomBytes(20000, 3), randomBytes(7, 4),
                                       randomBytes(9000, 5)};
  std::vector<size_t> handles;
  for (size_t i = 0; i < parts.size(); ++i) handles.push_back(shelf.put(i % 2, parts[i]));
  EXPECT_EQ(shelf.view(handles[0]), parts[0]);  // in memory: readable before seal()
  shelf.seal();
  EXPECT_EQ(shelf.spilledBytes(), 60u + 20000u + 9000u);  // the 7 bytes fit under the budget
  for (size_t i = 0; i < parts.size(); ++i) EXPECT_EQ(shelf.view(handles[i]), parts[i]) << i;
  // Released pages are read again from the file; a view of other memory is ignored.
  for (size_t h : handles) shelf.release(shelf.view(h));
  shelf.release(parts[2]);
  for (size_t i = 0; i < parts.size(); ++i) EXPECT_EQ(shelf.view(handles[i]), parts[i]) << i;
  // After seal(), a part stays in memory.
  const size_t late = shelf.put(0, randomBytes(5000, 6));
  EXPECT_EQ(shelf.view(late), randomBytes(5000, 6));
  EXPECT_EQ(shelf.spilledBytes(), 60u + 20000u + 9000u);
}

// Spilled parts that cannot be read back (the fault hook "shelf-read": the
// mapping and every pread fail) read as empty, and readBackError() says why,
// naming the scratch folder; the parts in memory still read. A shelf whose
// parts all read has no error.
TEST_F(PartShelfTest, PartsThatCannotBeReadBackAreEmptyAndSayWhy) {
  const std::vector<std::string> parts{randomBytes(40, 1), randomBytes(3000, 2),
                                       randomBytes(500, 3)};
  for (const bool broken : {false, true}) {
    if (broken) ::setenv("XSTACK_INJECT_FAULT", "shelf-read:0", 1);
    PartShelf shelf(dir_.string(), 100);
    std::vector<size_t> handles;
    for (const std::string& p : parts) handles.push_back(shelf.put(0, p));
    shelf.seal();
    ::unsetenv("XSTACK_INJECT_FAULT");
    EXPECT_EQ(shelf.view(handles[0]), parts[0]);  // in memory
    for (size_t i = 1; i < parts.size(); ++i)
      EXPECT_EQ(shelf.view(handles[i]), broken ? std::string() : parts[i]) << i;
    if (!broken) {
      EXPECT_EQ(shelf.readBackError(), "");
      continue;
    }
    EXPECT_NE(shelf.readBackError().find("cannot read back a scratch file in " + dir_.string()),
              std::string::npos)
        << shelf.readBackError();
  }
}

TEST_F(PartShelfTest, AFolderThatCannotBeWrittenKeepsThePartsInMemory) {
  PartShelf shelf((dir_ / "no" / "such").string(), 10);
  const size_t a = shelf.put(0, randomBytes(3000, 7));
  const size_t b = shelf.put(1, randomBytes(50, 8));
  shelf.seal();
  EXPECT_EQ(shelf.spilledBytes(), 0u);
  EXPECT_EQ(shelf.view(a), randomBytes(3000, 7));
  EXPECT_EQ(shelf.view(b), randomBytes(50, 8));
  EXPECT_TRUE(shelf.view(99).empty());  // no such handle
}

TEST_F(PartShelfTest, PutsFromSeveralThreads) {
  PartShelf shelf(dir_.string(), 4096);
  std::vector<std::vector<size_t>> handles(4);
  std::vector<std::thread> threads;
  for (uint32_t t = 0; t < 4; ++t)
    threads.emplace_back([&shelf, &handles, t] {
      for (uint32_t i = 0; i < 50; ++i)
        handles[t].push_back(shelf.put(i % 3, randomBytes(100 + i * 37, t * 1000 + i)));
    });
  for (std::thread& th : threads) th.join();
  shelf.seal();
  EXPECT_GT(shelf.spilledBytes(), 0u);
  for (uint32_t t = 0; t < 4; ++t)
    for (uint32_t i = 0; i < 50; ++i)
      ASSERT_EQ(shelf.view(handles[t][i]), randomBytes(100 + i * 37, t * 1000 + i))
          << t << " " << i;
}

// A store's hold: a 32nd of the rank's budget, never more than 1 MiB (a
// bigger hold only grows the peak), never 0 bytes of a budget of 32 or more.
TEST(StoreHeldBytes, AThirtySecondOfTheBudgetAtMostOneMiB) {
  EXPECT_EQ(storeHeldBytes(uint64_t{1} << 20), uint64_t{32} << 10);  // --memory-mb 1
  EXPECT_EQ(storeHeldBytes(uint64_t{16} << 20), uint64_t{512} << 10);
  EXPECT_EQ(storeHeldBytes(uint64_t{32} << 20), uint64_t{1} << 20);
  EXPECT_EQ(storeHeldBytes(uint64_t{64} << 20), kStoreHeldMaxBytes);  // the default
  EXPECT_EQ(storeHeldBytes(uint64_t{1} << 40), kStoreHeldMaxBytes);
  EXPECT_EQ(storeHeldBytes(32), 1u);
  EXPECT_EQ(storeHeldBytes(0), 0u);
}

}  // namespace
}  // namespace xstack
