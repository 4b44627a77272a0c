// The Chrome-trace JSON input family (docs/FORMAT.md section 8): one file
// per training rank written by PyTorch's profiler (Kineto,
// `*.pt.trace.json[.gz]`) or Paddle's new profiler (`*.paddle_trace.json`),
// found by content in --data-dir D and D/profile (or --profile-dir), as one
// Source.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

#include "xstack/source/Source.h"
#include "xstack/source/chrome/TraceReader.h"

namespace xstack {

const Source& chromeSource();

namespace chrome {
// The training rank a file name gives: "rank-N", "rank_N" or "rankN" (any
// case, "rank" not preceded by a letter); the first such. nullopt: none.
std::optional<int64_t> rankFromFileName(std::string_view fileName);
// `fileName` with "_rank<rank>" before its trace ending (.pt.trace.json[.gz],
// .paddle_trace.json, .json[.gz]; else at its end), a name rankFromFileName
// reads `rank` from: the suggestion for a trace without a rank.
std::string nameWithRank(std::string_view fileName, std::string_view rank);

// The program that wrote a trace, from the keys before its events:
// schemaVersion a number (Kineto: 1) or a string (Paddle: "1.0.1"); else
// Paddle's span_indx; else Kineto's distributedInfo or baseTimeNanoseconds;
// else unknown.
enum class TraceWriter : uint8_t { Unknown, Kineto, Paddle };
TraceWriter traceWriterOf(const TraceInfo& info);
const char* traceWriterName(TraceWriter writer);
}  // namespace chrome

}  // namespace xstack
