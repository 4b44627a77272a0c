// Writes one trace file so that no reader ever sees it half-written: the
// text goes to a hidden temporary file in the same folder
// (".<name>.tmp.<pid>"), and commit() renames it over the final path only
// after everything was written and synced. Until then an older file at the
// final path stays untouched; abandon() (or the destructor) removes the
// temporary file.
//
// Layout written: {"traceEvents":[ <events> ],"displayTimeUnit":"ns","otherData":{...}}
//
// Options: `gzip` streams the text through zlib into a .gz file (Perfetto and
// chrome://tracing open it); `fsync` syncs the file before the rename, for
// crash durability (the rename alone already keeps readers from ever seeing
// a partial file).
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <string_view>

#include "xstack/core/Status.h"

namespace xstack {

class TraceFileWriter {
 public:
  TraceFileWriter();
  ~TraceFileWriter();
  TraceFileWriter(const TraceFileWriter&) = delete;
  TraceFileWriter& operator=(const TraceFileWriter&) = delete;
  TraceFileWriter(TraceFileWriter&& o) noexcept;
  TraceFileWriter& operator=(TraceFileWriter&& o) noexcept;

  struct Options {
    bool gzip = false;
    int gzipLevel = 1;  // zlib level: 1 is fast and already shrinks traces ~8x
    bool fsync = false;
  };
  // Creates the temporary file and writes the header.
  Status open(const std::string& finalPath, const Options& options);
  Status open(const std::string& finalPath) { return open(finalPath, Options{}); }
  // Appends rendered events (each starting with ",\n"; the comma of the
  // very first event is dropped).
  Status appendEvents(std::string_view text);
  // Writes the closing part with otherData (a compact JSON object), syncs
  // and closes the temporary file.
  Status finish(std::string_view otherDataJson);
  // Renames the finished temporary file to the final path.
  Status commit();
  void abandon();

  // Bytes in the file (compressed size with gzip).
  uint64_t bytesWritten() const { return bytes_; }
  const std::string& finalPath() const { return final_; }

 private:
  Status writeAll(std::string_view text);
  Status writeRaw(const char* p, size_t n);
  Status deflateSome(std::string_view text, int flush);

  std::string final_, temp_;
  int fd_ = -1;
  bool first_ = true;
  bool finished_ = false;
  uint64_t bytes_ = 0;
  Options options_;
  struct Gzip;
  std::unique_ptr<Gzip> gz_;
};

}  // namespace xstack
