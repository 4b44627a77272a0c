// The piece protocol to rank 0 (transport/ChunkPieces.h), between two thread
// ranks: pieces arrive in order, each chunk's end carries its warnings and
// problem, the formats of a file set may interleave and are told apart, and a
// second tag's messages do not mix with the pieces.
#include <gtest/gtest.h>

#include <stdexcept>
#include <thread>

#include "xstack/comm/ThreadComm.h"
#include "xstack/transport/ChunkPieces.h"
#include "xstack/transport/MessageTags.h"

namespace xstack {
namespace {

TEST(ChunkPieces, EndRoundTrip) {
  Warnings w;
  w.add(Warn::TimestampZero, 3);
  w.add(Warn::RenderFailed);
  ChunkEnd end = decodeChunkEnd(encodeChunkEnd(w, "read again for rendering: gone"));
  EXPECT_EQ(end.warnings.count(Warn::TimestampZero), 3u);
  EXPECT_EQ(end.warnings.count(Warn::RenderFailed), 1u);
  EXPECT_EQ(end.problem, "read again for rendering: gone");
  EXPECT_TRUE(decodeChunkEnd(encodeChunkEnd({}, "")).warnings.empty());
  EXPECT_TRUE(decodeChunkEnd(encodeChunkEnd({}, "")).problem.empty());
}

// An end cut short, garbled or of another wire version is a failed chunk (a
// problem naming the decode error), never a throw; an unknown warning kind is
// named as the problem of a chunk that had none.
TEST(ChunkPieces, ABadEndIsAFailedChunkNotAThrow) {
  Warnings w;
  w.add(Warn::TimestampZero, 3);
  const std::string bytes = encodeChunkEnd(w, "");
  for (size_t n = 0; n < bytes.size(); ++n) {
    ChunkEnd end = decodeChunkEnd(bytes.substr(0, n));
    EXPECT_EQ(end.problem.rfind("the end of a chunk: ", 0), 0u) << end.problem;
    EXPECT_TRUE(end.warnings.empty());
  }
  EXPECT_FALSE(decodeChunkEnd(bytes + "x").problem.empty());
  for (size_t i = 0; i < bytes.size(); ++i) {
    std::string bad = bytes;
    bad[i] = static_cast<char>(bad[i] ^ 0xff);
    EXPECT_NO_THROW((void)decodeChunkEnd(bad)) << i;
  }
  std::string unknown = bytes;
  unknown.replace(unknown.find("timestamp_zero"), 14, "no_such_kind__");
  ChunkEnd end = decodeChunkEnd(unknown);
  EXPECT_EQ(end.problem, "unknown warning kind \"no_such_kind__\"");
  EXPECT_TRUE(end.warnings.empty());
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
        out.postPiece(0, text);
        EXPECT_TRUE(text.empty());
      }
      Warnings w;
      w.add(Warn::TimestampZero, static_cast<uint64_t>(chunk + 1));
      out.endChunk(0, w, chunk ? "bad" : "");
    }
    out.drain();
    sendMessage(comm, 0, MessageTag::StepTables, "tables");
  });
  ThreadComm comm(world, 0, "h0");
  Message m;
  for (int chunk = 0; chunk < 2; ++chunk) {
    std::string got;
    std::vector<ChunkEnd> end = receiveChunk(comm, 1, m, 1, [&got](size_t f, std::string_view t) {
      EXPECT_EQ(f, 0u);
      got += t;
    });
    const std::string c = "c" + std::to_string(chunk);
    EXPECT_EQ(got, c + "p0" + c + "p1" + c + "p2");
    ASSERT_EQ(end.size(), 1u);
    EXPECT_EQ(end[0].warnings.count(Warn::TimestampZero), static_cast<uint64_t>(chunk + 1));
    EXPECT_EQ(end[0].problem, chunk ? "bad" : "");
  }
  EXPECT_EQ(receiveMessage(comm, 1, MessageTag::StepTables), "tables");
  sender.join();
}

// A chunk of a file set in two formats: pieces interleave, each reaches its
// own format's stream in order, and the chunk ends when both formats ended.
TEST(ChunkPieces, TwoFormatsInterleaveAndEachEnds) {
  ThreadWorld world(2);
  std::thread sender([&world] {
    ThreadComm comm(world, 1, "h1");
    BufferPool pool;
    ChunkSender out(comm, pool, 2);
    for (const char* piece : {"j0", "p0", "j1", "j2", "p1"}) {
      std::string text = piece;
      out.postPiece(piece[0] == 'j' ? 0 : 1, text);
    }
    Warnings jw, pw;
    jw.add(Warn::StringControlChar, 2);
    pw.add(Warn::StringInvalidUtf8, 1);
    out.endChunk(1, pw, "");  // the ends may come in any order too
    out.endChunk(0, jw, "");
    std::string stray = "x";
    out.postPiece(2, stray);  // a format the receiver does not have
    out.drain();
  });
  ThreadComm comm(world, 0, "h0");
  Message m;
  std::string streams[2];
  std::vector<ChunkEnd> end =
      receiveChunk(comm, 1, m, 2, [&streams](size_t f, std::string_view t) { streams[f] += t; });
  EXPECT_EQ(streams[0], "j0j1j2");
  EXPECT_EQ(streams[1], "p0p1");
  ASSERT_EQ(end.size(), 2u);
  EXPECT_EQ(end[0].warnings.count(Warn::StringControlChar), 2u);
  EXPECT_EQ(end[1].warnings.count(Warn::StringInvalidUtf8), 1u);
  EXPECT_THROW(receiveChunk(comm, 1, m, 2, [](size_t, std::string_view) {}), std::runtime_error);
  sender.join();
}

}  // namespace
}  // namespace xstack
