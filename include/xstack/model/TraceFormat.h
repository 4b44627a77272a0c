// The trace formats xstack writes, as far as the plan needs them: which one, and the
// suffix of its files. Everything else about a format is its entry in
// render/OutputFormats.h's table, which takes its suffix from here.
#pragma once

#include <string_view>

namespace xstack {

enum class TraceFormat { Json, Perfetto };

// The suffix of traceFile_<k>_<g> in format `f`.
constexpr std::string_view traceFileSuffix(TraceFormat f) {
  switch (f) {
    case TraceFormat::Json:
      return ".json";
    case TraceFormat::Perfetto:
      return ".pftrace";
  }
  return ".json";
}

}  // namespace xstack
