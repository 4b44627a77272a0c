// io/SpillFile.h's SpillMapping::release: the pages reading a part may have
// mapped leave the process' resident memory (the mapping's Rss in
// /proc/self/smaps), and every byte reads back the same.
#include <gtest/gtest.h>

#include <cstdint>
#include <fstream>
#include <sstream>
#include <string>

#include "../TempDirTest.h"
#include "xstack/io/SpillFile.h"

namespace xstack {
namespace {

// The resident KiB of the mapping that starts at `start` (its smaps "Rss:"), or -1.
int64_t residentKib(const void* start) {
  std::ifstream smaps("/proc/self/smaps");
  const auto want = reinterpret_cast<uintptr_t>(start);
  std::string line;
  bool inside = false;
  while (std::getline(smaps, line)) {
    uintptr_t from = 0;
    if (std::istringstream head(line); head >> std::hex >> from && head.get() == '-') {
      inside = from == want;
      continue;
    }
    if (inside && line.rfind("Rss:", 0) == 0) return std::stoll(line.substr(4));
  }
  return -1;
}

std::string patterned(size_t n) {
  std::string s(n, '\0');
  for (size_t i = 0; i < n; ++i) s[i] = static_cast<char>(i * 131 + i / 4096);
  return s;
}

class SpillMappingTest : public TempDirTest {};

// Parts read one after another and released after each (as the analyses
// read their per-rank parts) leave nothing resident: not their edges, nor
// the pages the kernel's fault-around mapped beyond them.
TEST_F(SpillMappingTest, PartsReleasedAfterReadingLeaveNothingResident) {
  // Neither whole pages nor aligned; 4.4 MB in all: more than one large folio.
  const size_t partBytes = 11000;
  const std::string bytes = patterned(400 * partBytes);
  Expected<SpillFile> file = SpillFile::create(dir_.string());
  ASSERT_TRUE(file) << file.error().message;
  ASSERT_TRUE(file->append(bytes));
  Expected<SpillMapping> mapping = file->map();
  ASSERT_TRUE(mapping) << mapping.error().message;
  const std::string_view all = mapping->bytes();
  ASSERT_EQ(residentKib(all.data()) >= 0, true) << "no /proc/self/smaps entry for the mapping";
  for (size_t p = 0; p < 400; ++p) {
    const std::string_view part = all.substr(p * partBytes, partBytes);
    ASSERT_EQ(part, std::string_view(bytes).substr(p * partBytes, partBytes)) << p;
    mapping->release(part);
  }
  EXPECT_EQ(residentKib(all.data()), 0);
  ASSERT_EQ(all, bytes);  // every byte read back from the file
  const int64_t whole = residentKib(all.data());
  EXPECT_GT(whole, 0);
  mapping->release(std::string_view(bytes).substr(0, partBytes));  // not the mapping's: ignored
  EXPECT_EQ(residentKib(all.data()), whole);
  mapping->release(all.substr(5 * partBytes, 1));  // one byte: its neighbours' pages go too
  EXPECT_LT(residentKib(all.data()), whole);
  mapping->release(all);
  EXPECT_EQ(residentKib(all.data()), 0);
}

}  // namespace
}  // namespace xstack
