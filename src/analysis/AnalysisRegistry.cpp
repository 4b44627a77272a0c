#include "xstack/analysis/AnalysisRegistry.h"

#include "xstack/analysis/collectives/CollectivesAnalysis.h"
#include "xstack/analysis/kernels/KernelsAnalysis.h"
#include "xstack/analysis/steps/StepsAnalysis.h"

namespace xstack {

const std::vector<const Analysis*>& registeredAnalyses() {
  static const std::vector<const Analysis*> kAnalyses = {
      &stepsAnalysis(),  // step table, GPU breakdown, stragglers: steps/ranks.csv, findings, report
      &kernelsAnalysis(),      // per-name kernel stats: kernels.csv
      &collectivesAnalysis(),  // who waits for whom: collectives.csv, waits.csv
  };
  return kAnalyses;
}

const Analysis* findAnalysis(std::string_view name) {
  for (const Analysis* a : registeredAnalyses())
    if (a->name() == name) return a;
  return nullptr;
}

std::vector<std::string> analysisOutputFiles() {
  std::vector<std::string> names;
  for (const Analysis* a : registeredAnalyses())
    for (std::string& n : a->outputFiles()) names.push_back(std::move(n));
  return names;
}

}  // namespace xstack
