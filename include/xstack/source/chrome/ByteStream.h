// The JSON text of one trace file, in bounded pieces: a plain file, or a gzip
// file (detected by its magic bytes 1f 8b, not by its name) inflated by zlib
// as it is read; concatenated gzip members are one text. Also over bytes in
// memory (tests, fuzzing, sniffing a file's head). Memory: one input piece
// plus zlib's window, whatever the file size.
#pragma once

#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <string_view>

#include "xstack/core/FileIdentity.h"
#include "xstack/source/chrome/ReadError.h"

namespace xstack::chrome {

class ByteStream {
 public:
  // pieceBytes: most bytes one read(2) asks for and one read() returns (>= 1).
  static std::unique_ptr<ByteStream> openFile(const std::string& path, uint64_t pieceBytes,
                                              std::optional<ReadError>& error);
  // `bytes` must outlive the stream; `name` names it in errors.
  static std::unique_ptr<ByteStream> fromMemory(std::string_view bytes, std::string name,
                                                uint64_t pieceBytes);
  ~ByteStream();
  ByteStream(const ByteStream&) = delete;
  ByteStream& operator=(const ByteStream&) = delete;

  // Copies up to min(n, pieceBytes) bytes of JSON text to dst. 0: the end of
  // the text, or a failure (error() is then set).
  uint64_t read(char* dst, uint64_t n);
  const std::optional<ReadError>& error() const { return error_; }
  const std::string& name() const { return name_; }
  bool gzip() const { return gzip_; }
  uint64_t textBytesRead() const { return textBytes_; }
  // A digest of the JSON text read so far (core/FileIdentity.h): a second read
  // of the file is checked against the first.
  uint64_t textDigest() const { return digest_.value(); }

 private:
  struct Zlib;
  ByteStream(std::string name, uint64_t pieceBytes);
  uint64_t readRaw(char* dst, uint64_t n);
  bool detectGzip();
  uint64_t readInflated(char* dst, uint64_t n);
  bool refillRaw();
  uint64_t fail(ReadErrorKind kind, std::string message);

  std::string name_;
  uint64_t piece_;
  int fd_ = -1;
  std::string_view memory_;  // when fd_ < 0
  std::string in_;           // raw bytes read ahead (gzip input, or the sniffed magic)
  uint64_t inPos_ = 0;
  bool rawEnd_ = false;
  bool gzip_ = false;
  bool detected_ = false;
  std::unique_ptr<Zlib> z_;
  uint64_t textBytes_ = 0;
  ContentDigest digest_;
  std::optional<ReadError> error_;
};

}  // namespace xstack::chrome
