// The Chrome-trace JSON input family (docs/FORMAT.md section 8): one file
// per training rank written by PyTorch's profiler (Kineto,
// `*.pt.trace.json[.gz]`) or Paddle's new profiler (`*.paddle_trace.json`),
// found by content in --data-dir D/profile (or D itself when it has no
// profile/ folder), as one Source.
#pragma once

#include <cstdint>
#include <optional>
#include <string_view>

#include "xstack/source/Source.h"

namespace xstack {

const Source& chromeSource();

namespace chrome {
// The training rank a file name gives: "rank-N", "rank_N" or "rankN" (any
// case, "rank" not preceded by a letter); the first such. nullopt: none.
std::optional<int64_t> rankFromFileName(std::string_view fileName);
}  // namespace chrome

}  // namespace xstack
