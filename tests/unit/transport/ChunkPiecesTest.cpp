// The piece protocol to rank 0 (transport/ChunkPieces.h), between two thread
// ranks: pieces arrive in order, each chunk's end carries its warnings and
// problem, and a second tag's messages do not mix with the pieces.
#include <gtest/gtest.h>

#include <thread>

#include "xstack/comm/ThreadComm.h"
#include "xstack/transport/ChunkPieces.h"
#include "xstack/transport/MessageTags.h"

namespace xstack {
namespace {

TEST(ChunkPieces, EndRoundTrip) {
  Warnings w;
  w.add("timestamp_zero", 3);
  w.add("render_failed");
  ChunkEnd end = decodeChunkEnd(encodeChunkEnd(w, "read again for rendering: gone"));
  EXPECT_EQ(end.warnings.count("timestamp_zero"), 3u);
  EXPECT_EQ(end.warnings.count("render_failed"), 1u);
  EXPECT_EQ(end.problem, "read again for rendering: gone");
  EXPECT_TRUE(decodeChunkEnd(encodeChunkEnd({}, "")).warnings.empty());
}

TEST(ChunkPieces, PiecesInOrderThenTheEndOnTwoRanks) {
  ThreadWorld world(2);
  std::thread sender([&world] {
    ThreadComm comm(world, 1, "h1");
    BufferPool pool;
    ChunkSender out(comm, pool, 1);
    for (int chunk = 0; chunk < 2; ++chunk) {
      for (int p = 0; p < 3; ++p) {
        std::string text = "c" + std::to_string(chunk) + "p" + std::to_string(p);
        out.postPiece(text);
        EXPECT_TRUE(text.empty());
      }
      Warnings w;
      w.add("k", static_cast<uint64_t>(chunk + 1));
      out.endChunk(w, chunk ? "bad" : "");
    }
    out.drain();
    sendMessage(comm, 0, MessageTag::StepTables, "tables");
  });
  ThreadComm comm(world, 0, "h0");
  Message m;
  for (int chunk = 0; chunk < 2; ++chunk) {
    std::string got;
    ChunkEnd end = receiveChunk(comm, 1, m, [&got](std::string_view t) { got += t; });
    const std::string c = "c" + std::to_string(chunk);
    EXPECT_EQ(got, c + "p0" + c + "p1" + c + "p2");
    EXPECT_EQ(end.warnings.count("k"), static_cast<uint64_t>(chunk + 1));
    EXPECT_EQ(end.problem, chunk ? "bad" : "");
  }
  EXPECT_EQ(receiveMessage(comm, 1, MessageTag::StepTables), "tables");
  sender.join();
}

}  // namespace
}  // namespace xstack
