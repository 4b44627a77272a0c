#include "xstack/transport/ChunkPieces.h"

#include <nlohmann/json.hpp>
#include <stdexcept>

#include "xstack/core/WarningKinds.h"
#include "xstack/transport/MessageTags.h"

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
  nlohmann::json j;
  for (const auto& [k, e] : warnings.entries()) j["w"][std::string(warnName(k))] = e.count;
  j["p"] = problem;
  auto b = nlohmann::json::to_msgpack(j);
  return std::string(b.begin(), b.end());
}

// A kind this build does not know makes the chunk count as failed.
ChunkEnd decodeChunkEnd(const std::string& bytes) {
  ChunkEnd end;
  auto j = nlohmann::json::from_msgpack(bytes);
  std::string unknownKind;
  if (j.contains("w"))
    for (const auto& [name, v] : j["w"].items()) {
      const Expected<Warn> k = warnByName(name);
      if (k)
        end.warnings.add(*k, v.get<uint64_t>());
      else
        unknownKind = k.error().message;
    }
  end.problem = j["p"].get<std::string>();
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
