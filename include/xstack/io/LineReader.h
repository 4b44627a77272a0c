// Tokenizer for the text inputs (DCGM logs, net logs, time files): yields the
// lines of a file one at a time with bounded memory. A UTF-8 BOM at the start
// and a trailing '\r' (CRLF) are removed. A line longer than `maxLineBytes` is
// not buffered: it is reported through `onOverlong` and skipped. A last line
// without '\n' is still yielded, with LineInfo::unterminated set. Line lengths
// exclude the '\n' and a '\r' before it.
#pragma once

#include <cstdint>
#include <functional>
#include <string>
#include <string_view>

#include "xstack/core/Status.h"

namespace xstack {

struct LineInfo {
  uint64_t number = 0;        // 1-based line number
  uint64_t offset = 0;        // byte offset of the line's first byte in the file
  bool unterminated = false;  // last line of the file, without '\n'
};

struct LineReaderOptions {
  uint64_t maxLineBytes = 1 << 20;  // 1 MiB
  uint64_t blockBytes = 1 << 16;    // read(2) size
};

// Calls onLine(line, info) for every line (without the '\n' / "\r\n"), and
// onOverlong(info, lengthSeen) for every line longer than maxLineBytes.
// Opens the file O_NONBLOCK and refuses non-regular files (an Error naming
// the path), so a FIFO never blocks. Returns an Error for I/O failures.
Status readLines(const std::string& path,
                 const std::function<void(std::string_view, const LineInfo&)>& onLine,
                 const std::function<void(const LineInfo&, uint64_t)>& onOverlong,
                 const LineReaderOptions& options = {});

// Same over bytes already in memory (used by tests and fuzz targets).
void splitLines(std::string_view text,
                const std::function<void(std::string_view, const LineInfo&)>& onLine,
                const std::function<void(const LineInfo&, uint64_t)>& onOverlong,
                const LineReaderOptions& options = {});

}  // namespace xstack
