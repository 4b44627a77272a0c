#include "xstack/cmd/synth/SynthTraceOut.h"

#include <zlib.h>

#include <charconv>

namespace xstack {

struct SynthTraceOut::Deflate {
  z_stream z{};
  bool ready = false;
};

SynthTraceOut::SynthTraceOut(const std::filesystem::path& path, bool gzip)
    : file_(std::fopen(path.c_str(), "wb")) {
  failed_ = file_ == nullptr;
  if (gzip) {
    deflate_ = std::make_unique<Deflate>();
    // windowBits 15 + 16: a gzip wrapper with zlib's default header (mtime 0, no name).
    deflate_->ready = deflateInit2(&deflate_->z, Z_DEFAULT_COMPRESSION, Z_DEFLATED, 15 + 16, 8,
                                   Z_DEFAULT_STRATEGY) == Z_OK;
    failed_ = failed_ || !deflate_->ready;
  }
  buf_.reserve(kPieceBytes + 4096);
}

SynthTraceOut::~SynthTraceOut() {
  if (deflate_ && deflate_->ready) deflateEnd(&deflate_->z);
  if (file_) std::fclose(file_);
}

SynthTraceOut& SynthTraceOut::integer(int64_t v) {
  char digits[24];
  auto r = std::to_chars(digits, digits + sizeof digits, v);
  return text(std::string_view(digits, static_cast<size_t>(r.ptr - digits)));
}

SynthTraceOut& SynthTraceOut::unsignedInteger(uint64_t v) {
  char digits[24];
  auto r = std::to_chars(digits, digits + sizeof digits, v);
  return text(std::string_view(digits, static_cast<size_t>(r.ptr - digits)));
}

std::string micros3Text(int64_t ns) {
  const bool negative = ns < 0;
  const uint64_t magnitude = negative ? 0 - static_cast<uint64_t>(ns) : static_cast<uint64_t>(ns);
  std::string s = negative ? "-" : "";
  s += std::to_string(magnitude / 1000);
  const auto frac = static_cast<unsigned>(magnitude % 1000);
  s += '.';
  s += static_cast<char>('0' + frac / 100);
  s += static_cast<char>('0' + frac / 10 % 10);
  s += static_cast<char>('0' + frac % 10);
  return s;
}

SynthTraceOut& SynthTraceOut::micros3(int64_t ns) { return text(micros3Text(ns)); }

void SynthTraceOut::flush(bool finish) {
  if (failed_) {
    buf_.clear();
    return;
  }
  if (!deflate_) {
    failed_ = std::fwrite(buf_.data(), 1, buf_.size(), file_) != buf_.size();
    buf_.clear();
    return;
  }
  z_stream& z = deflate_->z;
  z.next_in = reinterpret_cast<Bytef*>(buf_.data());
  z.avail_in = static_cast<uInt>(buf_.size());
  packed_.resize(kPieceBytes);
  int rc = Z_OK;
  do {
    z.next_out = reinterpret_cast<Bytef*>(packed_.data());
    z.avail_out = static_cast<uInt>(packed_.size());
    rc = ::deflate(&z, finish ? Z_FINISH : Z_NO_FLUSH);
    const size_t n = packed_.size() - z.avail_out;
    if (rc == Z_STREAM_ERROR || std::fwrite(packed_.data(), 1, n, file_) != n) failed_ = true;
  } while (!failed_ && (z.avail_in > 0 || (finish && rc != Z_STREAM_END)));
  buf_.clear();
}

bool SynthTraceOut::close() {
  flush(true);
  if (file_ && std::fclose(file_) != 0) failed_ = true;
  file_ = nullptr;
  return !failed_;
}

}  // namespace xstack
