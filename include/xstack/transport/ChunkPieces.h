// The piece protocol between the ranks that render chunks and rank 0, which
// writes every trace file (cmd/report/TraceWriting.cpp; rank 0's side in
// Rank0Writer.cpp). Point to point, never collective; all on MessageTag::ChunkPieces.
//
// A sender renders the chunks it owns in output order; each chunk is sent as
// zero or more pieces (rendered bytes, at most the render's piece size each)
// and then one end (the chunk's rendering warnings and its problem, empty when
// it rendered). A chunk of a file set (one (group, gpu) in F formats, rendered
// from one walk) carries F streams: each piece and end names its format index
// f < F, the pieces of the formats may interleave, and the chunk is complete
// once every format's end has arrived. Rank 0 knows every chunk's owner from the plan, so it takes
// the chunks of the output in order, each from its owner, piece by piece.
// Pieces are posted (Comm::post): the sender goes on rendering while rank 0 is
// busy, with at most `piecesAhead` pieces in flight, so a sender holds at most
// (piecesAhead + 1) pieces of rendered text.
#pragma once

#include <cstddef>
#include <functional>
#include <string>
#include <string_view>
#include <vector>

#include "xstack/comm/Comm.h"
#include "xstack/core/BufferPool.h"
#include "xstack/core/Warnings.h"

namespace xstack {

// What ends a chunk: its rendering warnings (counts only) and its problem
// ("" when it rendered; else why it failed, without the path).
struct ChunkEnd {
  Warnings warnings;
  std::string problem;
};

// The end's message (wire/Wire.h; warnings as counts only) and back.
// decodeChunkEnd never throws: on bytes encodeChunkEnd did not give (cut
// short, garbled, another wire version) it gives an end without warnings whose
// problem is the decode error, so the chunk counts as failed; a warning kind
// this build does not know is left out and, when the chunk has no problem,
// named as its problem.
std::string encodeChunkEnd(const Warnings& warnings, const std::string& problem);
ChunkEnd decodeChunkEnd(const std::string& bytes);

// The sending side, on a rank other than 0: one per write stage.
class ChunkSender {
 public:
  // `pool`: the piece buffers (posted pieces' buffers go back to it).
  ChunkSender(Comm& comm, BufferPool& pool, size_t piecesAhead);
  // Posts `text` as the next piece of format `format` of the current chunk,
  // first waiting until at most piecesAhead pieces are in flight; `text` is
  // left empty, holding a buffer from the pool.
  void postPiece(size_t format, std::string& text);
  // Ends format `format` of the current chunk.
  void endChunk(size_t format, const Warnings& warnings, const std::string& problem);
  // Waits until every posted message has been received.
  void drain();

 private:
  Comm& comm_;
  BufferPool& pool_;
  size_t piecesAhead_;
  std::vector<std::string> sentBack_;
};

// Rank 0: receives the next chunk of a file set of `formats` formats from
// rank `owner`: each piece to write(f, text), in order, until every format's
// end has come; returns the ends, by format. `m`: the receive buffer, reused.
// Throws std::runtime_error on a message of a format index >= formats.
std::vector<ChunkEnd> receiveChunk(Comm& comm, int owner, Message& m, size_t formats,
                                   const std::function<void(size_t, std::string_view)>& write);

}  // namespace xstack
