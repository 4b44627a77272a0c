// The chunk walk (ChunkRendering.cpp), shared by writeOutputs' two sides: a
// chunk of a file set is rendered on the rank that owns it (cmd/report/TraceWriting.h),
// every format of the set from one walk, its text handed out in pieces of at
// most pieces.bytes bytes. Local to this rank: nothing here talks to another
// rank except sendOwnChunks (point to point, to rank 0).
#pragma once

#include <cstddef>
#include <cstdint>
#include <functional>
#include <memory>
#include <string>
#include <thread>
#include <vector>

#include "xstack/cmd/report/TraceWriting.h"
#include "xstack/core/BoundedQueue.h"
#include "xstack/core/BufferPool.h"
#include "xstack/io/FileBytes.h"
#include "xstack/render/RowBuckets.h"

namespace xstack {

// The output files that show one (group, gpu) in several formats: adjacent
// in the plan (withFormats), the same chunks and owners. Rendered from one
// walk, and written by rank 0 in lockstep, chunk by chunk.
struct FileSet {
  size_t first = 0, count = 1;
};

// `outputs` cut into file sets, in output order.
std::vector<FileSet> fileSets(const std::vector<OutputFile>& outputs);

// Memory one rendering thread reuses from one chunk to the next: the bytes of
// the profile being rendered and its row buckets. Owned by the write stage's
// thread that renders, released when the stage ends.
struct RenderScratch {
  std::unique_ptr<FileBuffer> bytes;
  RowBuckets buckets;
  uint64_t decodes = 0;  // profiles decoded for rendering (--timings)
};

// Receives format f's pieces: (f, text); may take the text (see JsonTraceSink).
using FormatPieces = std::function<void(size_t, std::string&)>;

// Renders chunk `index` of every file of `set` from one walk, on rank `rank`
// (its owner), format f's pieces to `pieces` with f. Returns each format's
// warnings (the walk's, counted once, plus that format's own). `problem` is
// set when the input could not be re-read or rendering failed: a failure costs
// that chunk only (what was already handed out stays, as complete events):
// the protocol with rank 0 goes on.
std::vector<Warnings> renderChunkSet(const std::vector<OutputFile>& outputs, FileSet set,
                                     size_t index, WriteContext& ctx, int rank,
                                     RenderScratch& scratch, const FormatPieces& pieces,
                                     std::string& problem);

// One piece of a rank's rendering, or the end of a chunk, of format `format`
// of its file set.
struct RenderedItem {
  size_t format = 0;
  bool end = false;  // end of a chunk: warnings and problem follow
  std::string text;
  Warnings warnings;
  std::string problem;
};

// This rank's chunks (owner == rank) rendered on `threads` threads and handed
// out in output order. The heavy chunks (a displayed rank's rows, RankRows,
// nearly all the work, and an analysis' group of tracks, AnalysisTrack) are
// dealt in turn: the k-th to thread k % threads; every other own chunk goes to
// the thread of the heavy chunk before it (threadOf_); each thread renders its chunks in order,
// into a queue of its own of pieces.ahead / threads pieces (at least 1): a
// thread decodes its next chunk while the chunks before it are taken, and
// holds at most one chunk's rows (within ctx.render.spill, which the caller
// splits between the threads) and its queue's pieces of text.
// The consumer (one thread: rank 0's writer, or the thread that posts to
// rank 0) takes the chunks in order with take(). The output is the same bytes
// for any `threads`.
class OrderedRenderer {
 public:
  OrderedRenderer(const std::vector<OutputFile>& outputs, WriteContext& ctx, BufferPool& pool,
                  int rank, unsigned threads);
  ~OrderedRenderer() { stop(); }
  OrderedRenderer(const OrderedRenderer&) = delete;
  OrderedRenderer& operator=(const OrderedRenderer&) = delete;
  // Ends the threads (every chunk was taken, or the consumer gives up).
  void stop();
  // The next own chunk, of a set of `formats` formats: its pieces and then its
  // `formats` ends, in the order rendered, to onItem; false when rendering
  // stopped before the chunk ended (cannot happen unless stop() was called).
  bool take(size_t formats, const std::function<void(RenderedItem&)>& onItem);
  uint64_t decodes() const;  // profiles decoded for rendering, after stop()

 private:
  void run(unsigned thread);

  const std::vector<OutputFile>& outputs_;
  WriteContext& ctx_;
  BufferPool& pool_;
  const int rank_;
  std::vector<std::unique_ptr<BoundedQueue<RenderedItem>>> queues_;  // one per thread
  std::vector<uint64_t> decodes_;                                    // per thread
  std::vector<unsigned> threadOf_;  // the thread of each own chunk, in output order
  std::vector<std::thread> threads_;
  size_t taken_ = 0;  // own chunks taken
};

// Ranks other than 0, their side of writeOutputs (point to point with rank 0):
// renders every chunk this rank owns, in output order, posts its pieces to
// rank 0, then the chunk's end (warnings, problem) per format; on
// ctx.render.threads threads (OrderedRenderer) when more than one, the posting
// on the calling thread. Returns the profiles decoded for rendering.
uint64_t sendOwnChunks(Comm& comm, const std::vector<OutputFile>& outputs, WriteContext& ctx,
                       BufferPool& pool);

}  // namespace xstack
