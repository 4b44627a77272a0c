// A file is known by more than (path, size): its inode,
// mtime and a digest of its bytes; two reads of a changed file differ.
#include <gtest/gtest.h>
#include <sys/stat.h>
#include <unistd.h>

#include <chrono>
#include <cstdio>
#include <string>

#include "../TempDirTest.h"
#include "xstack/core/FileIdentity.h"
#include "xstack/io/FileBytes.h"

namespace xstack {
namespace {

TEST(ContentDigest, TheSameBytesGiveTheSameDigestHoweverSplit) {
  std::string bytes;
  for (int i = 0; i < 1000; ++i) bytes += static_cast<char>(i * 7 + 3);
  const uint64_t whole = digestOf(bytes);
  for (size_t cut : {0, 1, 3, 7, 8, 9, 15, 16, 17, 500, 999, 1000}) {
    ContentDigest d;
    d.add(std::string_view(bytes).substr(0, cut));
    d.add(std::string_view(bytes).substr(cut));
    EXPECT_EQ(d.value(), whole) << cut;
  }
  ContentDigest bytewise;
  for (char c : bytes) bytewise.add(std::string_view(&c, 1));
  EXPECT_EQ(bytewise.value(), whole);
}

TEST(ContentDigest, OneChangedByteOrLengthChangesIt) {
  std::string a(4096, 'x');
  const uint64_t base = digestOf(a);
  for (size_t at : {0, 7, 8, 2048, 4095}) {
    std::string b = a;
    b[at] = 'y';
    EXPECT_NE(digestOf(b), base) << at;
  }
  EXPECT_NE(digestOf(a + std::string(1, '\0')), base);
  EXPECT_NE(digestOf(""), digestOf(std::string(1, '\0')));
}

FileIdentity ident(uint64_t dev, uint64_t ino, uint64_t size, int64_t mtime, uint64_t digest) {
  FileIdentity id;
  id.known = true;
  id.device = dev;
  id.inode = ino;
  id.size = size;
  id.mtimeNs = mtime;
  id.digest = digest;
  id.hasDigest = true;
  return id;
}

TEST(FileIdentityChange, EachDifferenceIsNamed) {
  const FileIdentity a = ident(1, 2, 100, 5, 9);
  EXPECT_EQ(identityChange(a, a, true), "");
  EXPECT_EQ(identityChange(a, ident(1, 2, 180, 5, 9), true),
            "its size changed from 100 to 180 bytes");
  EXPECT_EQ(identityChange(a, ident(1, 3, 100, 5, 9), true),
            "it was replaced (another file at the same path)");
  EXPECT_EQ(identityChange(a, ident(1, 2, 100, 6, 9), true), "it was modified (its mtime changed)");
  EXPECT_NE(identityChange(a, ident(1, 2, 100, 5, 10), true).find("its contents changed"),
            std::string::npos);
}

TEST(FileIdentityChange, OnAnotherHostOnlySizeAndDigestCount) {
  const FileIdentity a = ident(1, 2, 100, 5, 9);
  EXPECT_EQ(identityChange(a, ident(7, 8, 100, 6, 9), false), "");
  EXPECT_NE(identityChange(a, ident(7, 8, 100, 6, 10), false), "");
  EXPECT_NE(identityChange(a, ident(7, 8, 101, 6, 9), false), "");
  EXPECT_EQ(identityChange(FileIdentity{}, a, true), "");  // not recorded: nothing to compare
}

class FileIdentityFiles : public TempDirTest {};

TEST_F(FileIdentityFiles, AFileReplacedBetweenTwoReadsIsSeen) {
  const std::string p = write("profile_rank.0", std::string(5000, 'a'));
  auto first = FileBuffer::open(p);
  ASSERT_TRUE(first);
  const FileIdentity one = (*first)->identity();
  EXPECT_TRUE(one.known && one.hasDigest);
  EXPECT_EQ(one.digest, digestOf(std::string(5000, 'a')));
  auto same = FileBuffer::open(p);
  ASSERT_TRUE(same);
  EXPECT_EQ(identityChange(one, (*same)->identity(), true), "");

  const std::string tmp = write("new", std::string(5000, 'b'));  // same size, new inode
  ASSERT_EQ(std::rename(tmp.c_str(), p.c_str()), 0);
  auto again = FileBuffer::open(p);
  ASSERT_TRUE(again);
  EXPECT_NE(identityChange(one, (*again)->identity(), true), "");
  // Even where inode and mtime cannot be compared (another host), the digest tells.
  EXPECT_NE(identityChange(one, (*again)->identity(), false), "");
}

TEST_F(FileIdentityFiles, AGrowingFileIsSeen) {
  const std::string p = write("profile_rank.0", std::string(100, 'a'));
  auto first = FileBuffer::open(p);
  ASSERT_TRUE(first);
  write("profile_rank.0", std::string(150, 'a'));
  auto again = FileBuffer::open(p);
  ASSERT_TRUE(again);
  EXPECT_EQ(identityChange((*first)->identity(), (*again)->identity(), true),
            "its size changed from 100 to 150 bytes");
}

TEST_F(FileIdentityFiles, SampleDigestTellsCopiesFromDifferentFilesOfOneSize) {
  std::string big(3 << 20, 'z');
  const std::string a = write("a", big);
  const std::string b = write("b", big);
  EXPECT_NE(sampleDigestOf(a), 0u);
  EXPECT_EQ(sampleDigestOf(a), sampleDigestOf(b));
  big[10] = 'q';  // in the first 64 KiB
  EXPECT_NE(sampleDigestOf(write("c", big)), sampleDigestOf(a));
  big[10] = 'z';
  big[big.size() - 3] = 'q';  // in the last 64 KiB
  EXPECT_NE(sampleDigestOf(write("d", big)), sampleDigestOf(a));
  const std::string small = write("s", "hello");
  EXPECT_NE(sampleDigestOf(small), sampleDigestOf(write("t", "hellp")));
  EXPECT_EQ(sampleDigestOf((dir_ / "missing").string()), 0u);
}

}  // namespace
}  // namespace xstack
