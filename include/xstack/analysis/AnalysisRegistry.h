// The analyses `xstack report` runs, in order. Adding an analysis = a folder
// src/analysis/<name>/ (and include/xstack/analysis/<name>/) with an Analysis
// implementation (analysis/Analysis.h), plus one line in AnalysisRegistry.cpp.
#pragma once

#include <string>
#include <string_view>
#include <vector>

#include "xstack/analysis/Analysis.h"

namespace xstack {

// Every registered analysis, in registration order: the order of their parts
// in LocalInput::analyses, of their files and of their summary lines.
const std::vector<const Analysis*>& registeredAnalyses();
// The analysis named `name`, or nullptr.
const Analysis* findAnalysis(std::string_view name);
// Every file name any registered analysis writes in --out, in registry order:
// the analysis outputs that are xstack's (io/OutputCommit).
std::vector<std::string> analysisOutputFiles();

}  // namespace xstack
