// What a file was when it was read: the inode it was
// (device, inode), its size and modification time at open, and a 64-bit digest
// of the bytes read. A displayed profile is read twice (the read stage, then
// the rendering); the second read is checked against the first, so that a
// file replaced or still growing in between is an error naming it, never a
// trace that mixes two versions. The digest is no cryptographic hash: it finds
// accidental changes, not crafted collisions.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>

struct stat;

namespace xstack {

// A streaming 64-bit digest of a byte sequence: 8 bytes per step (multiply and
// rotate), the tail byte-wise, finished with the length. The same bytes give
// the same digest however they are split into add() calls.
class ContentDigest {
 public:
  void add(std::string_view bytes);
  uint64_t value() const;

 private:
  void mixWord(uint64_t w);
  uint64_t h_ = 0x9e3779b97f4a7c15ULL;
  uint64_t length_ = 0;
  unsigned char tail_[8] = {};
  unsigned tailSize_ = 0;
};

uint64_t digestOf(std::string_view bytes);

struct FileIdentity {
  bool known = false;  // false: the reader did not record it (nothing is compared)
  uint64_t device = 0, inode = 0;
  uint64_t size = 0;    // at open
  int64_t mtimeNs = 0;  // at open
  uint64_t digest = 0;  // of the bytes read
  bool hasDigest = false;

  static FileIdentity ofStat(const struct stat& st);
};

// The identity of `path` from stat(2), without a digest (not known when it
// cannot be stat'ed).
FileIdentity statIdentity(const std::string& path);

// Empty when `again` can be the file read as `first`, else what differs
// ("its size changed from 120 to 180 bytes", "it was replaced (another inode)",
// "its contents changed (digest ...)"). `sameHost`: both were read on one host
// (device, inode and mtime are compared only then: a copy on another host has
// its own).
std::string identityChange(const FileIdentity& first, const FileIdentity& again, bool sameHost);

// A digest of a sample of the file at `path` (size, its first and last 64 KiB
// and 16 blocks of 4 KiB between them): cheap enough to take for every listed
// file on every host, so that two hosts holding different files under the same
// path and size are told apart. 0 when the file cannot be read.
uint64_t sampleDigestOf(const std::string& path);

}  // namespace xstack
