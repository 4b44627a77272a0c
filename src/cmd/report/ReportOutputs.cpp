#include "xstack/cmd/report/ReportOutputs.h"

#include <algorithm>
#include <string>
#include <vector>

#include "xstack/analysis/AnalysisRegistry.h"
#include "xstack/render/OutputFormats.h"

namespace xstack {

bool isReportOutputName(std::string_view name) {
  if (isTraceFileName(name)) return true;
  static const std::vector<std::string> analysisFiles = analysisOutputFiles();
  return std::find(analysisFiles.begin(), analysisFiles.end(), name) != analysisFiles.end();
}

}  // namespace xstack
