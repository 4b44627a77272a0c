#include "xstack/render/OutputFormats.h"

#include <algorithm>
#include <array>

#include "xstack/render/json/JsonRenderer.h"
#include "xstack/render/perfetto/PerfettoRenderer.h"

namespace xstack {
namespace {

std::unique_ptr<TraceSink> jsonSink(size_t /*chunkIndex*/, PieceSink pieces, size_t pieceBytes,
                                    std::string buffer) {
  return std::make_unique<JsonTraceSink>(std::move(pieces), pieceBytes, std::move(buffer));
}

std::unique_ptr<TraceSink> perfettoSink(size_t chunkIndex, PieceSink pieces, size_t pieceBytes,
                                        std::string buffer) {
  return std::make_unique<PerfettoTraceSink>(static_cast<uint32_t>(chunkIndex + 1),
                                             std::move(pieces), pieceBytes, std::move(buffer));
}

// A file's tail is small (the extra rows and the metadata): its renderer
// buffers this much at a time, not the pieces' 4 MiB.
constexpr size_t kTailPieceBytes = size_t{64} << 10;

FileTail jsonTail(TimeOrigin origin, size_t /*chunkCount*/, const TraceExtraRows& extra,
                  std::string_view otherDataJson) {
  FileTail t;
  JsonRenderer r(
      origin, [&t](std::string& piece) { t.events += piece; }, kTailPieceBytes);
  r.extraRows(extra);
  r.flush();
  t.closing = otherDataJson;
  return t;
}

FileTail perfettoTail(TimeOrigin origin, size_t chunkCount, const TraceExtraRows& extra,
                      std::string_view otherDataJson) {
  FileTail t;
  PerfettoRenderer r(
      origin, static_cast<uint32_t>(chunkCount + 1),
      [&t](std::string& piece) { t.closing += piece; }, kTailPieceBytes);
  r.extraRows(extra);
  r.metadata(otherDataJson, origin.ns);
  r.flush();
  return t;
}

constexpr std::array<OutputFormat, 2> kFormats{{
    {TraceFormat::Json, "json", traceFileSuffix(TraceFormat::Json), false, 1.0, true, jsonSink,
     jsonTail},
    {TraceFormat::Perfetto, "perfetto", traceFileSuffix(TraceFormat::Perfetto), true, 0.25, false,
     perfettoSink, perfettoTail},
}};

}  // namespace

std::span<const OutputFormat> outputFormats() { return kFormats; }

const OutputFormat& outputFormat(TraceFormat f) {
  for (const OutputFormat& o : kFormats)
    if (o.format == f) return o;
  return kFormats[0];  // unreachable: every TraceFormat has an entry (OutputFormatsTest)
}

const OutputFormat* outputFormatNamed(std::string_view name) {
  for (const OutputFormat& o : kFormats)
    if (o.name == name) return &o;
  return nullptr;
}

double rank0WriteWeightOf(std::span<const TraceFormat> formats) {
  double weight = 0;
  for (TraceFormat f : formats) weight = std::max(weight, outputFormat(f).rank0WriteWeight);
  return weight;
}

namespace {

// Consumes a run of decimal digits at the front of `s`; false when there is none.
bool takeDigits(std::string_view& s) {
  size_t n = 0;
  while (n < s.size() && s[n] >= '0' && s[n] <= '9') ++n;
  s.remove_prefix(n);
  return n > 0;
}

bool takePrefix(std::string_view& s, std::string_view prefix) {
  if (s.substr(0, prefix.size()) != prefix) return false;
  s.remove_prefix(prefix.size());
  return true;
}

}  // namespace

bool isTraceFileName(std::string_view name) {
  if (!takePrefix(name, "traceFile_") || !takeDigits(name) || !takePrefix(name, "_") ||
      !takeDigits(name))
    return false;
  for (const OutputFormat& o : kFormats) {
    std::string_view rest = name;
    if (takePrefix(rest, o.suffix) && (rest.empty() || rest == ".gz")) return true;
  }
  return false;
}

}  // namespace xstack
