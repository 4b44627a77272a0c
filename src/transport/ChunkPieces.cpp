#include "xstack/transport/ChunkPieces.h"

#include <stdexcept>

#include "xstack/core/WarningKinds.h"
#include "xstack/transport/MessageTags.h"
#include "xstack/wire/WarningsWire.h"
#include "xstack/wire/Wire.h"

namespace xstack {
namespace {

constexpr int kTag = tagValue(MessageTag::ChunkPieces);
// Message kinds on the tag: a piece or an end of format f (kind = base + 4 f).
enum : uint64_t { kPiece = 1, kEnd = 2 };
uint64_t pieceKind(size_t f) { return kPiece + 4 * f; }
uint64_t endKind(size_t f) { return kEnd + 4 * f; }
size_t formatOfKind(uint64_t kind) { return static_cast<size_t>(kind / 4); }
bool isEndKind(uint64_t kind) { return kind % 4 == kEnd; }

}  // namespace

std::string encodeChunkEnd(const Warnings& warnings, const std::string& problem) {
  wire::Writer w;
  wire::writeWarnings(w, warnings, false);
  w.str(problem);
  return w.take();
}

// A kind this build does not know, or an end that does not decode, makes the
// chunk count as failed.
ChunkEnd decodeChunkEnd(const std::string& bytes) {
  wire::Reader r(bytes, "the end of a chunk");
  ChunkEnd end;
  std::string unknownKind;
  end.warnings = wire::readWarnings(r, false, unknownKind);
  end.problem = r.str();
  if (Status st = r.finish(); !st.ok()) return {Warnings{}, st.error().message};
  if (end.problem.empty()) end.problem = unknownKind;
  return end;
}

ChunkSender::ChunkSender(Comm& comm, BufferPool& pool, size_t piecesAhead)
    : comm_(comm), pool_(pool), piecesAhead_(piecesAhead) {}

void ChunkSender::postPiece(size_t format, std::string& text) {
  sentBack_.clear();
  comm_.waitPosted(piecesAhead_, &sentBack_);
  for (auto& b : sentBack_) pool_.give(std::move(b));
  std::string piece = pool_.take();
  piece.swap(text);
  comm_.post(0, kTag, pieceKind(format), std::move(piece));
}

void ChunkSender::endChunk(size_t format, const Warnings& warnings, const std::string& problem) {
  comm_.waitPosted(piecesAhead_);
  comm_.post(0, kTag, endKind(format), encodeChunkEnd(warnings, problem));
}

void ChunkSender::drain() { comm_.waitPosted(0); }

std::vector<ChunkEnd> receiveChunk(Comm& comm, int owner, Message& m, size_t formats,
                                   const std::function<void(size_t, std::string_view)>& write) {
  std::vector<ChunkEnd> ends(formats);
  size_t ended = 0;
  while (ended < formats) {
    comm.recvInto(owner, kTag, m);
    const size_t f = formatOfKind(m.kind);
    if (f >= formats) throw std::runtime_error("chunk message of an unknown format");
    if (!isEndKind(m.kind)) {
      write(f, m.data);
      continue;
    }
    ends[f] = decodeChunkEnd(m.data);
    ++ended;
  }
  return ends;
}

}  // namespace xstack
