#include "xstack/app/ReportOutputs.h"

#include <array>

#include "xstack/sink/OutputFormats.h"

namespace xstack {
namespace {

// The analysis files a run commits with its traces.
constexpr std::array<std::string_view, 5> kAnalysisFiles{"steps.csv", "ranks.csv", "kernels.csv",
                                                         "findings.json", "report.html"};

}  // namespace

bool isReportOutputName(std::string_view name) {
  if (isTraceFileName(name)) return true;
  for (std::string_view a : kAnalysisFiles)
    if (a == name) return true;
  return false;
}

}  // namespace xstack
