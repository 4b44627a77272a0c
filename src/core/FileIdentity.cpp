#include "xstack/core/FileIdentity.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cstring>
#include <vector>

namespace xstack {

namespace {

constexpr uint64_t kMul = 0x9fb21c651e98df25ULL;

uint64_t rotl(uint64_t x, int r) { return (x << r) | (x >> (64 - r)); }

uint64_t finalMix(uint64_t h) {
  h ^= h >> 33;
  h *= 0xff51afd7ed558ccdULL;
  h ^= h >> 33;
  h *= 0xc4ceb9fe1a85ec53ULL;
  h ^= h >> 33;
  return h;
}

std::string hex(uint64_t v) {
  static const char* d = "0123456789abcdef";
  std::string s(16, '0');
  for (int i = 15; i >= 0; --i, v >>= 4) s[static_cast<size_t>(i)] = d[v & 15];
  return s;
}

}  // namespace

void ContentDigest::mixWord(uint64_t w) { h_ = rotl(h_ ^ (w * kMul), 29) * kMul; }

void ContentDigest::add(std::string_view bytes) {
  length_ += bytes.size();
  const char* p = bytes.data();
  size_t n = bytes.size();
  while (tailSize_ > 0 && tailSize_ < 8 && n > 0) {  // finish a word begun by the last call
    tail_[tailSize_++] = static_cast<unsigned char>(*p++);
    --n;
  }
  if (tailSize_ == 8) {
    uint64_t w = 0;
    std::memcpy(&w, tail_, 8);
    mixWord(w);
    tailSize_ = 0;
  }
  for (; n >= 8; p += 8, n -= 8) {
    uint64_t w = 0;
    std::memcpy(&w, p, 8);
    mixWord(w);
  }
  for (; n > 0; --n) tail_[tailSize_++] = static_cast<unsigned char>(*p++);
}

uint64_t ContentDigest::value() const {
  uint64_t h = h_;
  for (unsigned i = 0; i < tailSize_; ++i) h = rotl(h ^ (tail_[i] * kMul), 7) * kMul;
  return finalMix(h ^ length_);
}

uint64_t digestOf(std::string_view bytes) {
  ContentDigest d;
  d.add(bytes);
  return d.value();
}

FileIdentity FileIdentity::ofStat(const struct stat& st) {
  FileIdentity id;
  id.known = true;
  id.device = static_cast<uint64_t>(st.st_dev);
  id.inode = static_cast<uint64_t>(st.st_ino);
  id.size = static_cast<uint64_t>(st.st_size);
  id.mtimeNs = static_cast<int64_t>(st.st_mtim.tv_sec) * 1'000'000'000 + st.st_mtim.tv_nsec;
  return id;
}

FileIdentity statIdentity(const std::string& path) {
  struct stat st {};
  if (::stat(path.c_str(), &st) != 0) return {};
  return FileIdentity::ofStat(st);
}

std::string identityChange(const FileIdentity& first, const FileIdentity& again, bool sameHost) {
  if (!first.known || !again.known) return {};
  if (first.size != again.size)
    return "its size changed from " + std::to_string(first.size) + " to " +
           std::to_string(again.size) + " bytes";
  if (sameHost && (first.device != again.device || first.inode != again.inode))
    return "it was replaced (another file at the same path)";
  if (first.hasDigest && again.hasDigest && first.digest != again.digest)
    return "its contents changed (digest " + hex(first.digest) + ", now " + hex(again.digest) + ")";
  if (sameHost && first.mtimeNs != again.mtimeNs) return "it was modified (its mtime changed)";
  return {};
}

uint64_t sampleDigestOf(const std::string& path) {
  int fd = ::open(path.c_str(), O_RDONLY | O_NONBLOCK | O_CLOEXEC);
  if (fd < 0) return 0;
  struct stat st {};
  if (::fstat(fd, &st) != 0 || !S_ISREG(st.st_mode)) {
    ::close(fd);
    return 0;
  }
  const uint64_t size = static_cast<uint64_t>(st.st_size);
  constexpr uint64_t kEdge = 64 << 10, kBlock = 4 << 10, kBlocks = 16;
  std::vector<std::pair<uint64_t, uint64_t>> pieces;  // (offset, length)
  if (size <= 2 * kEdge + kBlocks * kBlock) {
    pieces.emplace_back(0, size);
  } else {
    pieces.emplace_back(0, kEdge);
    const uint64_t span = size - 2 * kEdge;
    for (uint64_t i = 0; i < kBlocks; ++i) pieces.emplace_back(kEdge + span * i / kBlocks, kBlock);
    pieces.emplace_back(size - kEdge, kEdge);
  }
  ContentDigest d;
  std::string buf;
  for (auto [off, len] : pieces) {
    buf.resize(len);
    ssize_t n = ::pread(fd, buf.data(), len, static_cast<off_t>(off));
    d.add(std::string_view(buf.data(), n > 0 ? static_cast<size_t>(n) : 0));
  }
  ::close(fd);
  return d.value() | 1;  // never 0 (0: not known)
}

}  // namespace xstack
