#include "xstack/transport/ChunkPieces.h"

#include <nlohmann/json.hpp>

#include "xstack/transport/MessageTags.h"

namespace xstack {
namespace {

constexpr int kTag = tagValue(MessageTag::ChunkPieces);
// Message kinds on the tag.
enum : uint64_t { kPiece = 1, kEnd = 2 };

}  // namespace

std::string encodeChunkEnd(const Warnings& warnings, const std::string& problem) {
  nlohmann::json j;
  for (const auto& [k, e] : warnings.entries()) j["w"][k] = e.count;
  j["p"] = problem;
  auto b = nlohmann::json::to_msgpack(j);
  return std::string(b.begin(), b.end());
}

ChunkEnd decodeChunkEnd(const std::string& bytes) {
  ChunkEnd end;
  auto j = nlohmann::json::from_msgpack(bytes);
  if (j.contains("w"))
    for (const auto& [k, v] : j["w"].items()) end.warnings.add(k, v.get<uint64_t>());
  end.problem = j["p"].get<std::string>();
  return end;
}

ChunkSender::ChunkSender(Comm& comm, BufferPool& pool, size_t piecesAhead)
    : comm_(comm), pool_(pool), piecesAhead_(piecesAhead) {}

void ChunkSender::postPiece(std::string& text) {
  sentBack_.clear();
  comm_.waitPosted(piecesAhead_, &sentBack_);
  for (auto& b : sentBack_) pool_.give(std::move(b));
  std::string piece = pool_.take();
  piece.swap(text);
  comm_.post(0, kTag, kPiece, std::move(piece));
}

void ChunkSender::endChunk(const Warnings& warnings, const std::string& problem) {
  comm_.waitPosted(piecesAhead_);
  comm_.post(0, kTag, kEnd, encodeChunkEnd(warnings, problem));
}

void ChunkSender::drain() { comm_.waitPosted(0); }

ChunkEnd receiveChunk(Comm& comm, int owner, Message& m,
                      const std::function<void(std::string_view)>& write) {
  for (;;) {
    comm.recvInto(owner, kTag, m);
    if (m.kind != kPiece) break;
    write(m.data);
  }
  return decodeChunkEnd(m.data);
}

}  // namespace xstack
