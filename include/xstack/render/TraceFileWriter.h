// Writes one trace file's framing on an AtomicFile (io/AtomicFile.h: a
// hidden temporary file, renamed into place only when committed, so no
// reader ever sees it half-written). A run's set of files is committed by
// OutputCommit (io/OutputCommit.h, with file()), not one by one.
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
#include <vector>

#include "xstack/core/Status.h"
#include "xstack/io/AtomicFile.h"

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
    // Raw bytes, no JSON framing: a .pftrace. appendEvents/appendRaw write
    // their bytes unchanged, and finish writes the given bytes unchanged.
    bool raw = false;
  };
  // Creates the temporary file of `name` in `dir` (io/AtomicFile.h) and
  // writes the header.
  Status open(const Folder& dir, const std::string& name, const Options& options);
  // The same in the folder of `finalPath`, looked up by path.
  Status open(const std::string& finalPath, const Options& options);
  Status open(const std::string& finalPath) { return open(finalPath, Options{}); }
  // Appends rendered events (each starting with ",\n"; the comma of the
  // very first event is dropped).
  Status appendEvents(std::string_view text);
  // Appends bytes as given (Options::raw).
  Status appendRaw(std::string_view text) { return writeAll(text); }
  // Writes the closing part with otherData (a compact JSON object; raw mode:
  // the given bytes as they are), syncs and closes the temporary file.
  Status finish(std::string_view otherDataJson);
  // Renames the finished temporary file to the final path.
  Status commit() { return file_.commit(); }
  void abandon() { file_.abandon(); }

  // The file written, for OutputCommit.
  AtomicFile& file() { return file_; }
  // Bytes in the file (compressed size with gzip).
  uint64_t bytesWritten() const { return file_.bytesWritten(); }
  const std::string& finalPath() const { return file_.finalPath(); }
  const std::string& tempPath() const { return file_.tempPath(); }
  bool finished() const { return file_.finished(); }

 private:
  Status writeAll(std::string_view text);
  Status deflateSome(std::string_view text, int flush);

  AtomicFile file_;
  bool first_ = true;
  Options options_;
  struct Gzip;
  std::unique_ptr<Gzip> gz_;
};

}  // namespace xstack
