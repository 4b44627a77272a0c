#include "xstack/source/chrome/ByteStream.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>
#include <zlib.h>

#include <algorithm>
#include <cerrno>
#include <cstring>

namespace xstack::chrome {

struct ByteStream::Zlib {
  z_stream z{};
  bool open = false;
  bool memberEnded = false;  // the last member's end was reached
  std::string corrupt;       // inflate's complaint, reported after the bytes before it
  ~Zlib() {
    if (open) inflateEnd(&z);
  }
};

ByteStream::ByteStream(std::string name, uint64_t pieceBytes)
    : name_(std::move(name)), piece_(std::max<uint64_t>(pieceBytes, 1)) {}

ByteStream::~ByteStream() {
  if (fd_ >= 0) ::close(fd_);
}

std::unique_ptr<ByteStream> ByteStream::openFile(const std::string& path, uint64_t pieceBytes,
                                                 std::optional<ReadError>& error) {
  int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC | O_NONBLOCK);
  struct stat st {};
  if (fd < 0 || ::fstat(fd, &st) != 0 || !S_ISREG(st.st_mode)) {
    std::string why = fd < 0 ? std::strerror(errno) : "not a regular file";
    if (fd >= 0) ::close(fd);
    error = ReadError{ReadErrorKind::Io, path, 0, "cannot read: " + why};
    return nullptr;
  }
  std::unique_ptr<ByteStream> s(new ByteStream(path, pieceBytes));
  s->fd_ = fd;
  return s;
}

std::unique_ptr<ByteStream> ByteStream::fromMemory(std::string_view bytes, std::string name,
                                                   uint64_t pieceBytes) {
  std::unique_ptr<ByteStream> s(new ByteStream(std::move(name), pieceBytes));
  s->memory_ = bytes;
  return s;
}

uint64_t ByteStream::fail(ReadErrorKind kind, std::string message) {
  if (!error_) error_ = ReadError{kind, name_, textBytes_, std::move(message)};
  return 0;
}

// Raw (possibly compressed) bytes from the file or the memory.
uint64_t ByteStream::readRaw(char* dst, uint64_t n) {
  n = std::min(n, piece_);
  if (fd_ < 0) {
    n = std::min<uint64_t>(n, memory_.size());
    std::memcpy(dst, memory_.data(), n);
    memory_.remove_prefix(n);
    return n;
  }
  for (;;) {
    ssize_t got = ::read(fd_, dst, n);
    if (got >= 0) return static_cast<uint64_t>(got);
    if (errno != EINTR)
      return fail(ReadErrorKind::Io, std::string("read: ") + std::strerror(errno));
  }
}

// Reads ahead the first two raw bytes into in_ and looks for the gzip magic.
bool ByteStream::detectGzip() {
  detected_ = true;
  char head[2];
  uint64_t have = 0;
  while (have < 2) {
    uint64_t got = readRaw(head + have, 2 - have);
    if (got == 0) break;
    have += got;
  }
  if (error_) return false;
  in_.assign(head, have);
  rawEnd_ = have < 2;
  gzip_ = have == 2 && static_cast<unsigned char>(head[0]) == 0x1f &&
          static_cast<unsigned char>(head[1]) == 0x8b;
  if (!gzip_) return true;
  z_ = std::make_unique<Zlib>();
  if (inflateInit2(&z_->z, 16 + MAX_WBITS) != Z_OK) {
    fail(ReadErrorKind::BadGzip, "zlib inflateInit2 failed");
    return false;
  }
  z_->open = true;
  return true;
}

// One more piece of compressed input into in_ (false at its end).
bool ByteStream::refillRaw() {
  if (rawEnd_) return false;
  in_.resize(piece_);
  uint64_t got = readRaw(in_.data(), piece_);
  in_.resize(got);
  inPos_ = 0;
  if (got == 0) rawEnd_ = true;
  return got > 0;
}

// Inflates into dst. At the end of the input inflate is still called: it may
// hold decoded bytes that a small dst could not take yet.
uint64_t ByteStream::readInflated(char* dst, uint64_t n) {
  z_stream& z = z_->z;
  if (!z_->corrupt.empty()) return fail(ReadErrorKind::BadGzip, z_->corrupt);
  for (;;) {
    if (inPos_ == in_.size() && !refillRaw() && error_) return 0;
    const bool inputDone = inPos_ == in_.size() && rawEnd_;
    if (z_->memberEnded) {
      if (inputDone) return 0;  // the clean end of the last member
      inflateReset(&z);         // another member follows: one more stream
      z_->memberEnded = false;
    }
    z.next_in = reinterpret_cast<Bytef*>(in_.data() + inPos_);
    z.avail_in = static_cast<uInt>(in_.size() - inPos_);
    z.next_out = reinterpret_cast<Bytef*>(dst);
    z.avail_out = static_cast<uInt>(n);
    const uint64_t before = inPos_;
    const int rc = inflate(&z, Z_NO_FLUSH);
    inPos_ = in_.size() - z.avail_in;
    const uint64_t produced = n - z.avail_out;
    if (rc == Z_STREAM_END) z_->memberEnded = true;
    if (rc != Z_OK && rc != Z_STREAM_END && rc != Z_BUF_ERROR) {
      z_->corrupt = std::string("corrupt gzip data: ") + (z.msg ? z.msg : "inflate failed");
      // What was decoded before the bad data is handed out; the next call fails.
      return produced > 0 ? produced : fail(ReadErrorKind::BadGzip, z_->corrupt);
    }
    if (produced > 0) return produced;
    if (z_->memberEnded) continue;
    if (inputDone)
      return fail(ReadErrorKind::Truncated, "gzip stream cut short (no end of stream)");
    if (rc == Z_BUF_ERROR && inPos_ == before && inPos_ < in_.size()) {
      return fail(ReadErrorKind::BadGzip, "inflate made no progress");
    }
  }
}

uint64_t ByteStream::read(char* dst, uint64_t n) {
  if (error_ || n == 0) return 0;
  if (!detected_ && !detectGzip()) return 0;
  n = std::min(n, piece_);
  uint64_t got = 0;
  if (gzip_) {
    got = readInflated(dst, n);
  } else if (inPos_ < in_.size()) {
    got = std::min<uint64_t>(n, in_.size() - inPos_);
    std::memcpy(dst, in_.data() + inPos_, got);
    inPos_ += got;
  } else if (!rawEnd_) {
    got = readRaw(dst, n);
  }
  textBytes_ += got;
  digest_.add(std::string_view(dst, got));
  return got;
}

}  // namespace xstack::chrome
