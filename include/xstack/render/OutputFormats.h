// The trace formats xstack writes, in one table (the registry of output
// formats): each entry's --format name, file suffix, file framing and the
// sink that encodes one chunk of it. Adding a format is one entry here and its
// sink (a folder under render/); the plan, the option parser and the write stage
// take everything else from the table.
#pragma once

#include <cstdint>
#include <functional>
#include <memory>
#include <span>
#include <string>
#include <string_view>

#include "xstack/core/TimeUnits.h"
#include "xstack/model/TraceFormat.h"
#include "xstack/render/TraceEvents.h"
#include "xstack/render/TraceSink.h"

namespace xstack {

// Receives a chunk's encoded pieces (the contract of JsonTraceSink::PieceSink).
using PieceSink = std::function<void(std::string&)>;

// What ends a file, after its last chunk: `events` are appended as the
// file's last events (JSON); `closing` is what TraceFileWriter::finish takes
// (JSON: the otherData object; Perfetto: a last packet sequence).
struct FileTail {
  std::string events;
  std::string closing;
};

struct OutputFormat {
  TraceFormat format;
  std::string_view name;    // as in --format
  std::string_view suffix;  // of traceFile_<k>_<g>
  // True: the file is the sinks' bytes as they are (a .pftrace); false: a
  // JSON document whose head and otherData tail TraceFileWriter writes.
  bool rawFile;
  // Rank 0's load for writing a chunk of this format against rendering it
  // (plan/RenderAssignment.h). JSON 1: every share of the rendering given to
  // rank 0 made 2 ranks on 2 cores slower. Perfetto 0.25: a third of the
  // JSON's bytes to write and a costlier render, so rank 0 takes about 3/8
  // of the rendering on 2 ranks (the standard set, 2 ranks on 2 cores, 8
  // interleaved runs: weight 1 -> 0.479 s, 0.33 -> 0.420 s, 0.25 -> 0.414 s,
  // 0 -> 0.423 s; docs/PERFORMANCE.md). The bytes do not depend on it.
  double rank0WriteWeight;
  // True: a chunk's bytes depend only on what it draws, not on its place in
  // the file (JSON), so a chunk drawn alike in two files is the same bytes
  // and may be copied (RenderedTracks); false: they depend on its index
  // (Perfetto's packet sequence).
  bool chunkBytesStandAlone;
  // The sink of chunk `chunkIndex` of a file (Perfetto: packet sequence
  // chunkIndex + 1, from the data, never the rank, so bytes do not depend on np).
  std::unique_ptr<TraceSink> (*makeSink)(size_t chunkIndex, PieceSink pieces, size_t pieceBytes,
                                         std::string buffer);
  // The end of a file of `chunkCount` chunks: the findings rows `extra` and
  // the run's metadata `otherDataJson` (one value for every format; the JSON
  // writes it as otherData, Perfetto as the debug annotations of one
  // metadata packet in sequence chunkCount + 1).
  FileTail (*fileTail)(TimeOrigin origin, size_t chunkCount, const TraceExtraRows& extra,
                       std::string_view otherDataJson);
};

std::span<const OutputFormat> outputFormats();
const OutputFormat& outputFormat(TraceFormat f);
const OutputFormat* outputFormatNamed(std::string_view name);  // nullptr: no such format
// Rank 0's write weight when it writes every format of `formats`: the
// largest of theirs (rank 0 writes each file of each format).
double rank0WriteWeightOf(std::span<const TraceFormat> formats);
// True for the name of a trace file of any format: traceFile_<k>_<g><suffix>,
// or that with ".gz" (--compress); k and g decimal.
bool isTraceFileName(std::string_view name);

}  // namespace xstack
