#include "xstack/app/OptionAgreement.h"
#include "xstack/app/ReportStages.h"

namespace xstack {

Status agreeOptionsStage(ReportRun& run) {
  // One allgather of a few hundred bytes: a single piece at any chunk size
  // still in force, and every rank still has the same (default) one here.
  const std::string mine =
      std::string(run.options.timings ? "1" : "0") + encodeAgreedOptions(run.options);
  std::vector<std::string> all = run.comm.allgather(mine);
  run.options.timings = all[0][0] == '1';  // display-only: rank 0 prints, rank 0 decides
  for (auto& text : all) text.erase(0, 1);
  std::vector<std::string> lines = describeOptionMismatch(all);
  run.clock.mark("agree");
  if (lines.empty()) return {};
  std::string message;
  for (const auto& line : lines) message += (message.empty() ? "" : "\nxstack: ") + line;
  return Error{message + "\nxstack: give the same options to every rank"};
}

}  // namespace xstack
