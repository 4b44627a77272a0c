// An owner's groups (docs/DESIGN.md "The owner's arrivals"): the arrivals
// the readers routed to this MPI rank, collected from their messages as they
// come and kept encoded until their group is matched: in memory up to a
// budget, the rest appended to a scratch file (--spill-dir), so that what an
// owner holds does not grow with the job. Each arrival keeps its origin (the
// MPI rank that sent it and its place in that sender's routed order), for
// its outcome's way back. Sizes are bytes, 64-bit.
#pragma once

#include <cstddef>
#include <cstdint>
#include <functional>
#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "xstack/analysis/collectives/CollectiveMatch.h"
#include "xstack/core/TextHash.h"
#include "xstack/io/SpillFile.h"
#include "xstack/wire/Wire.h"

namespace xstack {

// An arrival's origin: (sender MPI rank, its place in the sender's routed order).
using Origin = std::pair<size_t, size_t>;

// One group's arrivals as its owner keeps them: per arrival, its place as
// the difference from the arrival before's (zigzag varint) and its encoding
// as writeRankArrivals writes it (about 30 bytes, against about 160 for a
// decoded Arrival and its origin); their training ranks and senders as runs.
class GroupBytes {
 public:
  void add(int64_t rank, Origin origin, std::string_view encoded, bool ofWholeGroup);
  uint64_t count() const { return count_; }
  // Any arrival of a collective of the whole group (no peer)?
  bool wholeGroup() const { return wholeGroup_; }
  // Bytes held in memory.
  uint64_t heldBytes() const { return held_.size(); }
  // Appends the bytes held in memory to `file` (they leave memory); false
  // when it cannot be written (they stay).
  bool spillTo(SpillFile& file);
  // The arrivals (each with its rank) and their origins, in the order they
  // were added; `file`: the one spillTo wrote (flushed), or null. Throws
  // std::runtime_error when they cannot be read back or do not decode.
  void decode(const SpillFile* file, std::vector<Arrival>& arrivals,
              std::vector<Origin>& origins) const;
  // The same one arrival at a time, in the order they were added: `onArrival`
  // gets each (its rank set; the Arrival is reused) and its origin. Holds one
  // spilled piece at a time (at most the collector's budget), never the whole
  // group. Throws as decode throws, possibly after some calls.
  void forEach(const SpillFile* file,
               const std::function<void(const Arrival&, const Origin&)>& onArrival) const;
  // The training ranks of the arrivals, sorted, unique.
  std::vector<int64_t> ranksSeen() const;

 private:
  struct RankRun {
    int64_t rank = 0;
    size_t sender = 0;
    uint64_t count = 0;
  };
  struct Cursor;  // forEach's place among the runs
  void decodePiece(std::string_view piece, Cursor& at,
                   const std::function<void(const Arrival&, const Origin&)>& onArrival) const;

  wire::Writer held_;  // the version byte, then the arrivals not spilled
  std::vector<std::pair<uint64_t, uint64_t>> spilled_;  // (offset, bytes) in the file, in order
  std::vector<RankRun> runs_;
  uint64_t count_ = 0;
  size_t lastPlace_ = 0;
  bool wholeGroup_ = false;
};

// An owner's groups from every MPI rank's messages: their arrivals, their
// ranks (sorted, unique); or why not (`error`). `spill`: where the arrivals
// past the budget went (flushed), if any did.
struct OwnedGroups {
  std::string error;
  std::map<std::string, GroupBytes> arrivals;
  std::map<std::string, std::vector<int64_t>> ranks;
  std::optional<SpillFile> spill;

  const SpillFile* spillFile() const { return spill ? &*spill : nullptr; }
};

// An owner's groups, collected from the routed messages as they arrive (any
// number per sender, each sender's in the order it sent them), holding at
// most about `spill.memoryBytes` of arrivals in memory (when the scratch
// file cannot be made or written, they stay in memory).
class OwnedCollector {
 public:
  OwnedCollector(size_t senders, SpillOptions spill)
      : places_(senders, 0), spill_(std::move(spill)) {}

  // One routed message of MPI rank `sender`'s (every arrival read and checked
  // as readRankArrivals checks it, its bytes copied to its group; the
  // message not kept). Never throws: a failure is the groups' error (the
  // rounds go on on every rank).
  void add(size_t sender, std::string_view message);
  // The groups (their ranks sorted, unique); `arrivalsOf[r]`: how many
  // arrivals MPI rank r sent.
  OwnedGroups finish(std::vector<size_t>& arrivalsOf);
  // Bytes of arrivals written to the scratch file so far.
  uint64_t spilledBytes() const { return out_.spill ? out_.spill->size() : 0; }

 private:
  void addPart(size_t sender, std::string_view message, wire::Reader& r);
  void spillIfOver();

  OwnedGroups out_;
  TextMap<GroupBytes*> slots_;  // out_.arrivals by name, for one hash lookup an arrival
  std::vector<size_t> places_;  // per sender: its arrivals so far
  SpillOptions spill_;
  uint64_t held_ = 0;         // bytes of arrivals in memory
  bool spillFailed_ = false;  // the scratch file could not be made or written
};

}  // namespace xstack
