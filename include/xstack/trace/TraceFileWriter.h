// Writes one trace file so that no reader ever sees it half-written: the
// text goes to a hidden temporary file in the same folder
// (".<name>.tmp.<pid>"), and commit() renames it over the final path only
// after everything was written and synced. Until then an older file at the
// final path stays untouched; abandon() (or the destructor) removes the
// temporary file.
//
// Layout written: {"traceEvents":[ <events> ],"displayTimeUnit":"ns","otherData":{...}}
#pragma once

#include <cstdint>
#include <string>
#include <string_view>

#include "xstack/core/Status.h"

namespace xstack {

class TraceFileWriter {
 public:
  TraceFileWriter() = default;
  ~TraceFileWriter();
  TraceFileWriter(const TraceFileWriter&) = delete;
  TraceFileWriter& operator=(const TraceFileWriter&) = delete;
  TraceFileWriter(TraceFileWriter&& o) noexcept;
  TraceFileWriter& operator=(TraceFileWriter&& o) noexcept;

  // Creates the temporary file and writes the header.
  Status open(const std::string& finalPath);
  // Appends rendered events (each starting with ",\n"; the comma of the
  // very first event is dropped).
  Status appendEvents(std::string_view text);
  // Writes the closing part with otherData (a compact JSON object), syncs
  // and closes the temporary file.
  Status finish(std::string_view otherDataJson);
  // Renames the finished temporary file to the final path.
  Status commit();
  void abandon();

  uint64_t bytesWritten() const { return bytes_; }
  const std::string& finalPath() const { return final_; }

 private:
  Status writeAll(std::string_view text);

  std::string final_, temp_;
  int fd_ = -1;
  bool first_ = true;
  bool finished_ = false;
  uint64_t bytes_ = 0;
};

}  // namespace xstack
