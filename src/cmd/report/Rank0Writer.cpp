// Rank 0's threads and files (Rank0Writer.h): an OrderedRenderer renders rank
// 0's own chunks on threads of their own, at most pieces.ahead pieces ahead of
// the writer per thread; FileWrite writes one output file (opened, its chunks appended in
// order, then its tail: the findings rows and otherData). The writer holds at
// most one piece (pieces.bytes) of another rank's rendered text at a time.
#include "Rank0Writer.h"

#include <algorithm>
#include <functional>
#include <optional>
#include <string>
#include <string_view>
#include <thread>

#include "ChunkRendering.h"
#include "xstack/core/BoundedQueue.h"
#include "xstack/model/TraceLayout.h"
#include "xstack/render/OutputFormats.h"
#include "xstack/transport/ChunkPieces.h"

namespace xstack {
namespace {

// Where rank 0 puts the pieces of one chunk of a file set: format f's text to
// write(f, text); each format's end (warnings, problem) is kept.
struct ChunkIntake {
  std::function<void(size_t, std::string_view)> write;
  std::vector<Warnings> warnings;  // per format
  std::string problem;
};

// Rank 0's own chunks, rendered on threads of their own (OrderedRenderer:
// ctx.render.threads of them), in output order, at most pieces.ahead pieces
// ahead of the writer per thread: rank 0 renders while it waits for other
// ranks' pieces or for write() to return. The next chunk's pieces, every
// format's, go to `in` (their buffers back to `pool`).
void takeOwnChunk(OrderedRenderer& own, ChunkIntake& in, BufferPool& pool) {
  const bool ended = own.take(in.warnings.size(), [&](RenderedItem& item) {
    if (item.end) {
      in.warnings[item.format] = std::move(item.warnings);
      in.problem = std::move(item.problem);
      return;
    }
    in.write(item.format, item.text);
    pool.give(std::move(item.text));
  });
  if (!ended) in.problem = "rendering stopped";  // cannot happen: the renderer ends every chunk
}

// Receives one chunk of a file set from rank `owner`: pieces to `in`, then
// every format's end.
void receiveChunkInto(Comm& comm, int owner, Message& m, ChunkIntake& in) {
  std::vector<ChunkEnd> ends = receiveChunk(comm, owner, m, in.warnings.size(), in.write);
  for (size_t f = 0; f < ends.size(); ++f) {
    in.warnings[f] = std::move(ends[f].warnings);
    if (!ends[f].problem.empty()) in.problem = std::move(ends[f].problem);
  }
}

// Rank 0's writing of one output file, chunk after chunk.

// The first pid after every process of `o`.
int64_t firstFreePid(const OutputFile& o, const WriteContext& ctx) {
  return findingsPid(lastPidOf(o, *ctx.all));
}

// What a chunk that failed shows: its input's path, or an analysis' track process.
std::string chunkSubject(const Chunk& c, const WriteContext& ctx) {
  if (c.kind == ChunkKind::AnalysisTrack || c.kind == ChunkKind::AnalysisProcess)
    return "the " + ctx.render.trackProcesses.at(c.trackSet) + " tracks";
  return (*ctx.all)[c.input].file.path;
}

struct FileWrite {
  const OutputFile& output;
  TraceFileWriter& writer;
  WriteResult& res;
  Status& written;    // ok until the run's first write error: no file is written after it
  Warnings warnings;  // of this file: its inputs' and its chunks'
  std::vector<std::pair<size_t, std::string>> problems;

  // After a write error, rank 0 keeps receiving (senders must not block) but drops the text.
  void append(std::string_view text) {
    if (!written) return;
    if (Status s = writer.appendEvents(text); !s) fail(s);
  }
  void fail(const Status& s) {
    written = Failure::write(s.error().message).atFile(writer.finalPath());
  }
  void open(const WriteContext& ctx) {
    for (size_t i : output.inputs) warnings.merge((*ctx.all)[i].warnings);
    if (!written) return;
    TraceFileWriter::Options wo;
    wo.gzip = ctx.files.compress;
    wo.fsync = ctx.files.fsync;
    wo.raw = outputFormat(output.format).rawFile;
    std::string name = output.fileName() + (ctx.files.compress ? ".gz" : "");
    if (Status s = writer.open(ctx.files.outDir, name, wo); !s) fail(s);
  }
  void chunkDone(const Chunk& c, const WriteContext& ctx, const Warnings& chunkWarnings,
                 const std::string& problem) {
    warnings.merge(chunkWarnings);
    if (output.countsWarnings) res.warnings.merge(chunkWarnings);
    if (problem.empty()) return;
    const InputSummary& s = (*ctx.all)[c.input];
    warnings.add(Warn::RenderFailed);
    problems.emplace_back(c.input, problem);
    const auto owner = static_cast<size_t>(c.owner);
    const std::string& host = owner < ctx.hosts.size() ? ctx.hosts[owner] : s.readerHost;
    res.renderProblems.push_back(chunkSubject(c, ctx) + " (rank " + std::to_string(c.owner) +
                                 " on " + host + "): " + problem);
  }
  // The file's end: the extra rows (findings) and otherData; for Perfetto
  // one last packet sequence (id: chunk count + 1) with both.
  std::string tail(const WriteContext& ctx) {
    TraceExtraRows extra;
    if (ctx.files.extraEvents) extra = ctx.files.extraEvents(output, firstFreePid(output, ctx));
    const OutputFormat& format = outputFormat(output.format);
    FileTail t = format.fileTail(ctx.origin, output.chunks.size(), extra,
                                 otherDataJson(output, ctx, warnings, problems));
    if (!format.rawFile)
      if (Status s = writer.appendEvents(t.events); !s) fail(s);
    return t.closing;
  }
  void finish(const WriteContext& ctx) {
    if (!written) return;
    const std::string end = tail(ctx);
    if (!written) return;
    if (Status s = writer.finish(end); !s) {
      fail(s);
      return;
    }
    res.bytesWritten += writer.bytesWritten();
    ++res.filesWritten;
  }
};

}  // namespace

Status writeAllFiles(Comm& comm, const std::vector<OutputFile>& outputs, WriteContext& ctx,
                     std::vector<TraceFileWriter>& writers, BufferPool& pool, WriteResult& res) {
  Status written;  // ok until the first write error
  uint64_t total = 0, done = 0;
  for (const OutputFile& o : outputs) total += o.chunks.size();
  const bool renderThread = comm.threadsAllowed();
  RenderScratch inlineScratch;  // rank 0's own chunks without a render thread
  {  // the render threads end (and their memory goes) before the write stage returns
    std::optional<OrderedRenderer> own;  // without threads (MPI without thread support): inline
    if (renderThread) own.emplace(outputs, ctx, pool, 0, ctx.render.threads);
    Message m;  // received pieces, in reused memory
    writers.clear();
    writers.resize(outputs.size());
    for (const FileSet& set : fileSets(outputs)) {
      std::vector<FileWrite> files;
      files.reserve(set.count);
      for (size_t f = 0; f < set.count; ++f)
        files.push_back(
            FileWrite{outputs[set.first + f], writers[set.first + f], res, written, {}, {}});
      for (FileWrite& fw : files) fw.open(ctx);
      ChunkIntake in;
      in.write = [&files](size_t f, std::string_view t) { files[f].append(t); };
      const std::vector<Chunk>& chunks = outputs[set.first].chunks;
      for (size_t i = 0; i < chunks.size(); ++i) {
        in.warnings.assign(set.count, Warnings{});
        in.problem.clear();
        if (chunks[i].owner == 0 && !renderThread) {
          auto inlinePieces = [&in](size_t f, std::string& t) { in.write(f, t); };
          in.warnings =
              renderChunkSet(outputs, set, i, ctx, 0, inlineScratch, inlinePieces, in.problem);
        } else if (chunks[i].owner == 0) {
          takeOwnChunk(*own, in, pool);
        } else {
          receiveChunkInto(comm, chunks[i].owner, m, in);
        }
        for (size_t f = 0; f < set.count; ++f)
          files[f].chunkDone(chunks[i], ctx, in.warnings[f], in.problem);
        done += set.count;
        if (ctx.files.onProgress) ctx.files.onProgress(done, total);
      }
      for (FileWrite& fw : files) fw.finish(ctx);
    }
    if (own) own->stop();
    res.renderDecodes = inlineScratch.decodes + (own ? own->decodes() : 0);
  }
  return written;
}

}  // namespace xstack
