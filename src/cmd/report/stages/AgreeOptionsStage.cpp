#include "xstack/cmd/report/OptionAgreement.h"
#include "xstack/cmd/report/stages/ReportStages.h"
#include "xstack/transport/TypedMessages.h"

namespace xstack {

namespace {

// The agreement's message: rank 0's --timings decides for all (display only),
// then the options that must agree.
struct OptionsMessage {
  bool timings = false;
  AgreedOptions options;
};

void writeOptions(wire::Writer& w, const OptionsMessage& m) {
  w.boolean(m.timings);
  writeAgreedOptions(w, m.options);
}

OptionsMessage readOptions(wire::Reader& r) {
  OptionsMessage m;
  m.timings = r.boolean();
  m.options = readAgreedOptions(r);
  return m;
}

}  // namespace

// collective: one allgather of a few hundred bytes, a single piece at any
// chunk size still in force (every rank still has the same default one here).
// A message that does not decode (another xstack build) is the same Error on
// every rank.
Expected<ReportOptions> agreeOptionsStage(Comm& comm, const ReportOptions& given,
                                          StageClock& clock) {
  const OptionsMessage mine{given.timings, agreedOptionsOf(given)};
  Expected<std::vector<OptionsMessage>> all =
      allgatherTyped(comm, mine, "the options", writeOptions, readOptions);
  if (!all) return all.error();
  ReportOptions agreed = given;
  agreed.timings = (*all)[0].timings;  // display-only: rank 0 prints, rank 0 decides
  std::vector<AgreedOptions> perRank;
  for (OptionsMessage& m : *all) perRank.push_back(std::move(m.options));
  std::vector<std::string> lines = describeOptionMismatch(perRank);
  clock.mark("agree");
  if (lines.empty()) return agreed;
  std::string message;
  for (const auto& line : lines) message += (message.empty() ? "" : "\nxstack: ") + line;
  return Error{message + "\nxstack: give the same options to every rank"};
}

}  // namespace xstack
