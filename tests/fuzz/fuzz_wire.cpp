// libFuzzer target: arbitrary bytes as every message between ranks that has a
// public decoder (wire/Wire.h and its users). Must never crash, throw, read
// out of bounds or allocate beyond the input: a bad message is an Error. The
// first byte also drives a raw wire::Reader through a sequence of reads.
#include <cstdint>
#include <cstdlib>
#include <stdexcept>
#include <string>
#include <string_view>

#include "xstack/analysis/collectives/ClockOffsets.h"
#include "xstack/analysis/collectives/CollectiveMatch.h"
#include "xstack/analysis/collectives/CollectiveTracks.h"
#include "xstack/analysis/collectives/CriticalPath.h"
#include "xstack/analysis/collectives/OwnedGroups.h"
#include "xstack/cmd/report/OptionAgreement.h"
#include "xstack/model/InputSummary.h"
#include "xstack/plan/Plan.h"
#include "xstack/plan/TopologyEvidence.h"
#include "xstack/transport/ChunkPieces.h"
#include "xstack/transport/StageTimes.h"
#include "xstack/transport/TypedMessages.h"
#include "xstack/wire/Wire.h"

namespace {

// A routed message as an owner takes it in (every arrival read and checked);
// the groups it then holds must decode (an owner's own bytes: never a throw).
void ownerTakesIn(const std::string& bytes) {
  using namespace xstack;
  OwnedCollector collector(2, SpillOptions{"/nonexistent/xstack-fuzz", uint64_t{1} << 20});
  collector.add(1, bytes);
  std::vector<size_t> sent;
  OwnedGroups groups = collector.finish(sent);
  if (!groups.error.empty()) return;
  std::vector<Arrival> arrivals;
  std::vector<Origin> origins;
  for (auto& [name, g] : groups.arrivals) g.decode(groups.spillFile(), arrivals, origins);
}

// Reads values of the kinds the low bits of `ops` name until the reader fails.
void readRaw(std::string_view bytes, uint8_t ops) {
  using xstack::wire::Reader;
  Reader r(bytes, "fuzz");
  for (int step = 0; r.ok() && step < 64; ++step) {
    switch ((ops + step) % 6) {
      case 0:
        (void)r.u64();
        break;
      case 1:
        (void)r.i64();
        break;
      case 2:
        (void)r.f64();
        break;
      case 3:
        (void)r.boolean();
        break;
      case 4:
        (void)r.str();
        break;
      default:
        (void)r.strings();
        break;
    }
  }
  if (r.finish().ok() && !r.atEnd()) std::abort();  // finish() refuses left-over bytes
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  using namespace xstack;
  const std::string bytes(reinterpret_cast<const char*>(data), size);
  readRaw(bytes, size ? data[0] : 0);
  (void)decodeSummaries(bytes);
  (void)decodeListing(1, bytes);
  (void)mergeGpuIds({bytes});
  (void)decodeChunkEnd(bytes);
  (void)decodeMessage<AgreedOptions>(bytes, "fuzz", readAgreedOptions);
  (void)decodeMessage<StageTimes>(bytes, "fuzz", readStageTimes);
  (void)decodeMessage<RankArrivals>(bytes, "fuzz", readRankArrivals);
  (void)decodeMessage<CollectivesPart>(bytes, "fuzz", readCollectivesPart);
  (void)decodeMessage<PartIndex>(bytes, "fuzz", indexCollectivesPart);
  (void)decodeMessage<CollectivesSummary>(bytes, "fuzz", readSummary);
  (void)decodeMessage<std::vector<ClockPair>>(bytes, "fuzz", readClockPairs);
  (void)decodeMessage<std::vector<NodeClock>>(bytes, "fuzz", readNodeClocks);
  (void)decodeMessage<OwnTrackGroups>(bytes, "fuzz", readOwnTrackGroups);
  ownerTakesIn(bytes);
  try {
    (void)decodeSlices(bytes);  // its contract: a runtime_error for bytes not its encoding
  } catch (const std::runtime_error&) {
  }
  try {
    (void)decodeWalkProfile(3, bytes, bytes);  // the same contract
  } catch (const std::runtime_error&) {
  }
  wire::Reader outcomes(bytes, "fuzz");
  while (outcomes.ok() && !outcomes.atEnd()) (void)readOutcome(outcomes, {3, 1000});
  return 0;
}
