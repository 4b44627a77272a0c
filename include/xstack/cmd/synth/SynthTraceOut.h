// The text of one synthesized Chrome-trace JSON file (`xstack synth --format
// kineto|paddle-json`), streamed to the file in pieces of about 256 KiB,
// plain or gzip. Memory: one piece, whatever the file's size. The gzip
// stream has no name and no time in its header (zlib's defaults, level 6):
// the same text gives the same bytes.
#pragma once

#include <cstdint>
#include <cstdio>
#include <filesystem>
#include <memory>
#include <string>
#include <string_view>

namespace xstack {

class SynthTraceOut {
 public:
  SynthTraceOut(const std::filesystem::path& path, bool gzip);
  ~SynthTraceOut();
  SynthTraceOut(const SynthTraceOut&) = delete;
  SynthTraceOut& operator=(const SynthTraceOut&) = delete;

  SynthTraceOut& text(std::string_view s) {
    buf_.append(s);
    if (buf_.size() >= kPieceBytes) flush(false);
    return *this;
  }
  SynthTraceOut& integer(int64_t v);
  SynthTraceOut& unsignedInteger(uint64_t v);
  // ns as microseconds with exactly three decimals: 1234567 -> "1234.567",
  // 5 -> "0.005", -1500 -> "-1.500".
  SynthTraceOut& micros3(int64_t ns);

  // Writes the rest and closes the file; false when the file could not be
  // opened or any write (or the close) failed.
  bool close();

 private:
  static constexpr size_t kPieceBytes = 256 << 10;
  struct Deflate;
  void flush(bool finish);
  std::FILE* file_ = nullptr;
  std::unique_ptr<Deflate> deflate_;  // null: plain text
  std::string buf_, packed_;
  bool failed_ = false;
};

// micros3's text of `ns` (for names such as Paddle's "[12.345 ms]").
std::string micros3Text(int64_t ns);

}  // namespace xstack
