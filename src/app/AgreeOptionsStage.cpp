#include "xstack/app/OptionAgreement.h"
#include "xstack/app/ReportStages.h"

namespace xstack {

Expected<ReportOptions> agreeOptionsStage(Comm& comm, const ReportOptions& given,
                                          StageClock& clock) {
  // One allgather of a few hundred bytes: a single piece at any chunk size
  // still in force, and every rank still has the same (default) one here.
  const std::string mine =
      std::string(given.timings ? "1" : "0") + encodeAgreedOptions(given);
  std::vector<std::string> all = comm.allgather(mine);  // collective
  ReportOptions agreed = given;
  agreed.timings = all[0][0] == '1';  // display-only: rank 0 prints, rank 0 decides
  for (auto& text : all) text.erase(0, 1);
  std::vector<std::string> lines = describeOptionMismatch(all);
  clock.mark("agree");
  if (lines.empty()) return agreed;
  std::string message;
  for (const auto& line : lines) message += (message.empty() ? "" : "\nxstack: ") + line;
  return Error{message + "\nxstack: give the same options to every rank"};
}

}  // namespace xstack
