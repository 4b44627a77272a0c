// The trace formats xstack writes, in one table (the registry of output
// formats): each entry's --format name, file suffix, file framing and the
// sink that encodes one chunk of it. Adding a format is one entry here and its
// sink (a folder under sink/); the plan, the option parser and the write stage
// take everything else from the table.
#pragma once

#include <cstdint>
#include <functional>
#include <memory>
#include <span>
#include <string>
#include <string_view>

#include "xstack/sink/TraceSink.h"

namespace xstack {

enum class TraceFormat { Json, Perfetto };

// Receives a chunk's encoded pieces (the contract of JsonTraceSink::PieceSink).
using PieceSink = std::function<void(std::string&)>;

struct OutputFormat {
  TraceFormat format;
  std::string_view name;    // as in --format
  std::string_view suffix;  // of traceFile_<k>_<g>
  // True: the file is the sinks' bytes as they are (a .pftrace); false: a
  // JSON document whose head and otherData tail TraceFileWriter writes.
  bool rawFile;
  // The sink of chunk `chunkIndex` of a file (Perfetto: packet sequence
  // chunkIndex + 1, from the data, never the rank, so bytes do not depend on np).
  std::unique_ptr<TraceSink> (*makeSink)(size_t chunkIndex, PieceSink pieces, size_t pieceBytes,
                                         std::string buffer);
};

std::span<const OutputFormat> outputFormats();
const OutputFormat& outputFormat(TraceFormat f);
const OutputFormat* outputFormatNamed(std::string_view name);  // nullptr: no such format

}  // namespace xstack
