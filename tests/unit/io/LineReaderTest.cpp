#include <fcntl.h>
#include <gtest/gtest.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <random>
#include <string>
#include <vector>

#include "xstack/io/LineReader.h"

namespace xstack {
namespace {

namespace fs = std::filesystem;

// What a reader reported: one entry per line, overlong ones as "<overlong N>".
struct Seen {
  std::string text;
  LineInfo info;
  bool overlong = false;
  bool operator==(const Seen& o) const {
    return text == o.text && info.number == o.info.number && info.offset == o.info.offset &&
           info.unterminated == o.info.unterminated && overlong == o.overlong;
  }
};

std::vector<Seen> split(std::string_view text, LineReaderOptions opt = {}) {
  std::vector<Seen> out;
  splitLines(
      text,
      [&](std::string_view l, const LineInfo& i) {
        out.push_back({std::string(l), i});
      },
      [&](const LineInfo& i, uint64_t n) {
        out.push_back({std::to_string(n), i, true});
      },
      opt);
  return out;
}

Expected<std::vector<Seen>> read(const std::string& path, LineReaderOptions opt = {}) {
  std::vector<Seen> out;
  Status s = readLines(
      path,
      [&](std::string_view l, const LineInfo& i) {
        out.push_back({std::string(l), i});
      },
      [&](const LineInfo& i, uint64_t n) {
        out.push_back({std::to_string(n), i, true});
      },
      opt);
  if (!s) return s.error();
  return out;
}

class TempDir {
 public:
  TempDir() {
    std::string tmpl = (fs::temp_directory_path() / "xstack_linereader_XXXXXX").string();
    path_ = ::mkdtemp(tmpl.data());
  }
  ~TempDir() { fs::remove_all(path_); }
  std::string file(const std::string& name, std::string_view content) const {
    std::string p = path_ + "/" + name;
    std::ofstream(p, std::ios::binary) << content;
    return p;
  }
  const std::string& path() const { return path_; }

 private:
  std::string path_;
};

TEST(LineReader, SplitsLinesWithNumbersAndOffsets) {
  auto s = split("ab\n\ncd\n");
  ASSERT_EQ(s.size(), 3u);
  EXPECT_EQ(s[0].text, "ab");
  EXPECT_EQ(s[0].info.number, 1u);
  EXPECT_EQ(s[0].info.offset, 0u);
  EXPECT_EQ(s[1].text, "");
  EXPECT_EQ(s[1].info.number, 2u);
  EXPECT_EQ(s[1].info.offset, 3u);
  EXPECT_EQ(s[2].text, "cd");
  EXPECT_EQ(s[2].info.offset, 4u);
  EXPECT_FALSE(s[2].info.unterminated);
}

TEST(LineReader, EmptyInputHasNoLines) {
  EXPECT_TRUE(split("").empty());
  EXPECT_TRUE(split("\xEF\xBB\xBF").empty());
}

TEST(LineReader, LastLineWithoutNewlineIsUnterminated) {
  auto s = split("a\nbc");
  ASSERT_EQ(s.size(), 2u);
  EXPECT_FALSE(s[0].info.unterminated);
  EXPECT_EQ(s[1].text, "bc");
  EXPECT_TRUE(s[1].info.unterminated);
}

TEST(LineReader, StripsCarriageReturnBeforeNewlineOnly) {
  auto s = split("a\r\nb\rc\r\nd\r");
  ASSERT_EQ(s.size(), 3u);
  EXPECT_EQ(s[0].text, "a");
  EXPECT_EQ(s[1].text, "b\rc");
  EXPECT_EQ(s[2].text, "d");
}

TEST(LineReader, StripsBomAtStartOnly) {
  auto s = split("\xEF\xBB\xBFx\n\xEF\xBB\xBFy\n");
  ASSERT_EQ(s.size(), 2u);
  EXPECT_EQ(s[0].text, "x");
  EXPECT_EQ(s[0].info.offset, 3u);  // offsets stay file offsets
  EXPECT_EQ(s[1].text, "\xEF\xBB\xBFy");
  EXPECT_EQ(s[1].info.offset, 5u);
}

TEST(LineReader, KeepsPartialBom) {
  auto s = split("\xEF\xBB");
  ASSERT_EQ(s.size(), 1u);
  EXPECT_EQ(s[0].text, "\xEF\xBB");
}

TEST(LineReader, KeepsNulBytes) {
  auto s = split(std::string_view("a\0b\n", 4));
  ASSERT_EQ(s.size(), 1u);
  EXPECT_EQ(s[0].text, std::string("a\0b", 3));
}

TEST(LineReader, OverlongLinesAreReportedNotYielded) {
  LineReaderOptions opt;
  opt.maxLineBytes = 4;
  auto s = split("abcd\nabcde\r\nxy\nabcd\r\n123456789", opt);
  ASSERT_EQ(s.size(), 5u);
  EXPECT_EQ(s[0].text, "abcd");
  EXPECT_TRUE(s[1].overlong);
  EXPECT_EQ(s[1].text, "5");  // length without "\r\n"
  EXPECT_EQ(s[1].info.number, 2u);
  EXPECT_EQ(s[2].text, "xy");
  EXPECT_EQ(s[2].info.number, 3u);
  EXPECT_EQ(s[3].text, "abcd");  // a '\r' does not count against the limit
  EXPECT_TRUE(s[4].overlong);
  EXPECT_EQ(s[4].text, "9");
  EXPECT_TRUE(s[4].info.unterminated);
}

// The same bytes give the same lines whatever the read(2) block size.
TEST(LineReader, BlockSizeDoesNotChangeLines) {
  TempDir dir;
  std::mt19937 rng(7);
  const char alphabet[] = {'a', 'b', '\n', '\r', '\xEF', '\xBB', '\xBF', '\0'};
  for (int round = 0; round < 50; ++round) {
    std::string text;
    if (round % 3 == 0) text = "\xEF\xBB\xBF";
    int len = static_cast<int>(rng() % 60);
    for (int i = 0; i < len; ++i) text.push_back(alphabet[rng() % sizeof alphabet]);
    LineReaderOptions opt;
    opt.maxLineBytes = rng() % 8;
    const auto expected = split(text, opt);
    const std::string path = dir.file("f" + std::to_string(round), text);
    for (uint64_t block : {1, 2, 3, 5, 64}) {
      opt.blockBytes = block;
      auto got = read(path, opt);
      ASSERT_TRUE(got.ok()) << got.error().message;
      EXPECT_EQ(*got, expected) << "round " << round << " block " << block;
    }
  }
}

TEST(LineReader, ReadsRegularFile) {
  TempDir dir;
  auto got = read(dir.file("a.txt", "\xEF\xBB\xBFone\r\ntwo"));
  ASSERT_TRUE(got.ok());
  ASSERT_EQ(got->size(), 2u);
  EXPECT_EQ((*got)[0].text, "one");
  EXPECT_EQ((*got)[1].text, "two");
  EXPECT_TRUE((*got)[1].info.unterminated);
}

TEST(LineReader, RefusesFifoWithoutBlocking) {
  TempDir dir;
  const std::string fifo = dir.path() + "/pipe";
  ASSERT_EQ(::mkfifo(fifo.c_str(), 0600), 0);
  auto got = read(fifo);
  ASSERT_FALSE(got.ok());
  EXPECT_NE(got.error().message.find(fifo), std::string::npos);
  EXPECT_NE(got.error().message.find("not a regular file (a FIFO)"), std::string::npos);
}

TEST(LineReader, RefusesFolderAndMissingFile) {
  TempDir dir;
  auto folder = read(dir.path());
  ASSERT_FALSE(folder.ok());
  EXPECT_NE(folder.error().message.find("not a regular file (a folder)"), std::string::npos);
  auto missing = read(dir.path() + "/nope");
  ASSERT_FALSE(missing.ok());
  EXPECT_NE(missing.error().message.find(dir.path() + "/nope: cannot open"), std::string::npos);
}

long maxRssKb() {
  rusage u{};
  ::getrusage(RUSAGE_SELF, &u);
  return u.ru_maxrss;
}

// A 100 MiB line is skipped without being held in memory.
TEST(LineReader, HugeLineUsesBoundedMemory) {
  TempDir dir;
  const std::string path = dir.path() + "/huge";
  const uint64_t huge = uint64_t{100} << 20;
  {
    int fd = ::open(path.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0600);
    ASSERT_GE(fd, 0);
    ASSERT_EQ(::ftruncate(fd, static_cast<off_t>(huge)), 0);  // 100 MiB of NUL bytes
    const std::string tail = "\nnext\n";
    ASSERT_EQ(::pwrite(fd, tail.data(), tail.size(), static_cast<off_t>(huge)),
              static_cast<ssize_t>(tail.size()));
    ::close(fd);
  }
  const long before = maxRssKb();
  auto got = read(path);
  const long grownKb = maxRssKb() - before;
  ASSERT_TRUE(got.ok());
  ASSERT_EQ(got->size(), 2u);
  EXPECT_TRUE((*got)[0].overlong);
  EXPECT_EQ((*got)[0].text, std::to_string(huge));
  EXPECT_EQ((*got)[1].text, "next");
  EXPECT_EQ((*got)[1].info.number, 2u);
  EXPECT_EQ((*got)[1].info.offset, huge + 1);
  EXPECT_LT(grownKb, 32 * 1024);
}

}  // namespace
}  // namespace xstack
