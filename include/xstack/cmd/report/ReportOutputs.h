// Which files in --out are `xstack report`'s own outputs: the trace files of
// every registered format (render/OutputFormats.h) and the files the registered
// analyses declare (analysis/AnalysisRegistry.h). OutputCommit
// (io/) is given this predicate; it names no output file itself.
#pragma once

#include <string_view>

namespace xstack {

bool isReportOutputName(std::string_view name);

}  // namespace xstack
