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
#include <vector>

#include "xstack/cmd/report/TraceWriting.h"
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

// Ranks other than 0, their side of writeOutputs (point to point with rank 0):
// renders every chunk this rank owns, in output order, posts its pieces to
// rank 0, then the chunk's end (warnings, problem) per format. Returns the
// profiles decoded for rendering.
uint64_t sendOwnChunks(Comm& comm, const std::vector<OutputFile>& outputs, WriteContext& ctx,
                       BufferPool& pool);

}  // namespace xstack
