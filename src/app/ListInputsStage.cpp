#include <exception>
#include <stdexcept>

#include "xstack/app/ReportStages.h"
#include "xstack/core/FaultInjection.h"
#include "xstack/source/SourceRegistry.h"

namespace xstack {

ListedInputs listInputsStage(ReportRun& run) {
  ListedInputs out;
  const Source& source = defaultSource();
  out.dirs = source.resolveDirs(run.options.dataDir, run.options.dirs);
  try {
    if (faultInjected("list", run.comm.rank())) throw std::runtime_error("injected listing fault");
    out.listing = source.list(out.dirs);
  } catch (const std::exception& e) {  // this rank contributes no files; the others go on
    out.listing = InputListing{};
    out.listing.skipped.push_back("rank " + std::to_string(run.comm.rank()) +
                                  ": listing failed: " + e.what());
    out.listingFailed = true;
  }
  run.clock.mark("list");
  return out;
}

}  // namespace xstack
