// The write stage's driver (writeOutputs, TraceWriting.h): sets up the piece
// buffers, then each rank takes its side. Ranks other than 0 render and send
// their chunks (ChunkRendering.cpp); rank 0 renders its own and writes every
// file (Rank0Writer.cpp). Collective: every rank calls it, and talks to rank 0 only.
#include "xstack/cmd/report/TraceWriting.h"

#include "ChunkRendering.h"
#include "Rank0Writer.h"
#include "RenderedTracks.h"
#include "xstack/core/BufferPool.h"
#include "xstack/render/TraceFileWriter.h"

namespace xstack {

Expected<WriteResult> writeOutputs(Comm& comm, const std::vector<OutputFile>& outputs,
                                   WriteContext& ctx, std::vector<TraceFileWriter>& writers) {
  WriteResult res;
  BufferPool pool(ctx.pieces.ahead + 2);
  ctx.pieces.pool = &pool;
  RenderedTracks renderedTracks(outputs, comm.rank(), ctx.render.spill.dir);
  ctx.render.renderedTracks = &renderedTracks;
  struct ForgetPool {  // destroyed after the render thread is joined
    WriteContext& ctx;
    ~ForgetPool() {
      ctx.pieces.pool = nullptr;
      ctx.render.renderedTracks = nullptr;
    }
  } forgetPool{ctx};
  if (comm.rank() != 0) {
    res.renderDecodes = sendOwnChunks(comm, outputs, ctx, pool);
    res.trackCopies = renderedTracks.copies();
    return res;
  }
  Status written = writeAllFiles(comm, outputs, ctx, writers, pool, res);  // rank 0
  if (!written) return Failure(written.error()).onRank(0, comm.host());
  res.trackCopies = renderedTracks.copies();
  return res;
}

}  // namespace xstack
