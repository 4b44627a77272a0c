// The chunk walk: renders one chunk of a file set on the rank that owns it
// (ChunkRendering.h), every format from one walk, and on ranks other than 0
// sends its pieces to rank 0 (sendOwnChunks, point to point). A displayed
// rank's rows come from the rows this rank's read stage kept, or from the
// profile file read again (decoded once, whatever the number of formats).
#include "ChunkRendering.h"

#include <algorithm>
#include <csignal>
#include <cstdio>
#include <optional>
#include <stdexcept>

#include "RenderedTracks.h"
#include "xstack/cmd/report/ProfileReading.h"
#include "xstack/core/FaultInjection.h"
#include "xstack/model/TraceLayout.h"
#include "xstack/render/ChunkWalk.h"
#include "xstack/render/OutputFormats.h"
#include "xstack/source/SourceRegistry.h"
#include "xstack/transport/ChunkPieces.h"

namespace xstack {

std::vector<FileSet> fileSets(const std::vector<OutputFile>& outputs) {
  std::vector<FileSet> sets;
  for (size_t i = 0; i < outputs.size(); ++i) {
    const OutputFile& o = outputs[i];
    if (!sets.empty()) {
      const OutputFile& head = outputs[sets.back().first];
      if (head.group == o.group && head.gpu == o.gpu && head.chunks.size() == o.chunks.size() &&
          head.format != o.format) {
        ++sets.back().count;
        continue;
      }
    }
    sets.push_back({i, 1});
  }
  return sets;
}

namespace {

// The rows of input `input` (global index) kept by this rank's read stage, if any.
std::unique_ptr<RowBuckets> takeKeptRows(WriteContext& ctx, size_t input) {
  if (!ctx.render.local || input < ctx.render.firstLocal ||
      input - ctx.render.firstLocal >= ctx.render.local->size())
    return nullptr;
  return std::move((*ctx.render.local)[input - ctx.render.firstLocal].keptRows);
}

// A displayed rank's rows, from the profile file read again by the rank
// that renders them (any rank that sees the file): decoded once, whatever
// the number of formats.
void walkRankRows(const Chunk& c, WriteContext& ctx, RenderScratch& scratch, ChunkWalk& walk,
                  std::string& problem) {
  const InputSummary& s = (*ctx.all)[c.input];
  if (std::unique_ptr<RowBuckets> kept = takeKeptRows(ctx, c.input)) {
    walk.rankRows(c.subject, c.pid, s.rows, *kept);
    return;
  }
  const Source& source = ctx.render.source ? *ctx.render.source : defaultSource();
  const SpillOptions share = decodeShare(ctx.render.spill, source, s.file.bytes);
  std::optional<SpilledRows> spilled;
  if (!rowsFitInMemory(s.events, share)) spilled.emplace(s.rows, ctx.origin, share);
  EventSink& rows = spilled ? static_cast<EventSink&>(*spilled) : scratch.buckets;
  if (!spilled) scratch.buckets.reset(s.rows);
  runInjectedCommand("render-read-cmd", c.owner);
  auto info = source.decodeTrace(s.file.path, scratch.bytes, rows, {});
  ++scratch.decodes;
  if (!info) {
    problem = "read again for rendering: " + withoutPath(info.error().message, s.file.path);
    return;
  }
  const bool sameHost =
      static_cast<size_t>(c.owner) < ctx.hosts.size() && ctx.hosts[c.owner] == s.readerHost;
  if (std::string change = identityChange(s.identity, info->identity, sameHost); !change.empty()) {
    problem = "changed since it was first read, rows not drawn: " + change;
    return;
  }
  if (!spilled) return walk.rankRows(c.subject, c.pid, s.rows, scratch.buckets);
  if (Status st = spilled->finish(); !st) {
    problem = "rows not drawn: " + st.error().message;
    return;
  }
  walk.rankRows(c.subject, c.pid, s.rows, *spilled);
  if (!spilled->readStatus().ok())
    problem = "rows cut short: " + spilled->readStatus().error().message;
}

// An analysis' process: "NN_<its name>" (NN: its place in the file).
std::string analysisProcessName(const Chunk& c, const WriteContext& ctx) {
  char nn[32];
  std::snprintf(nn, sizeof nn, "%02lld_", static_cast<long long>(processOrder(c.pid)));
  return nn + ctx.render.trackProcesses.at(c.trackSet);
}

// One group of an analysis' tracks, from the analysis on its owner.
void walkAnalysisTrack(ChunkWalk& walk, const Chunk& c, const WriteContext& ctx) {
  if (!ctx.render.trackRows) throw std::logic_error("an analysis track without its analysis");
  uint64_t dropped = 0;
  ChunkWalk::AnalysisTracks out(walk, c.pid);
  ctx.render.trackRows(c.trackSet, static_cast<size_t>(c.subject), c.pid, dropped, out);
  walk.count(Warn::CollectiveSliceDropped, dropped);
}

void walkChunk(ChunkWalk& walk, const Chunk& c, WriteContext& ctx, RenderScratch& scratch,
               std::string& problem) {
  switch (c.kind) {
    case ChunkKind::ProcessMeta:
      walk.processMeta(c.pid, fixedProcessName(c.pid));
      break;
    case ChunkKind::ThreadMeta:
      walk.threadMeta(c.pid, rankThreadTid(c.subject), "rank " + std::to_string(c.subject));
      break;
    case ChunkKind::RankRows:
      walkRankRows(c, ctx, scratch, walk, problem);
      break;
    case ChunkKind::Spans:
      walk.spans(c.subject, (*ctx.render.local)[c.input - ctx.render.firstLocal].spans);
      break;
    case ChunkKind::Dcgm:
      walk.dcgmCounters(c.pid, c.gpu, c.subject,
                        (*ctx.render.local)[c.input - ctx.render.firstLocal].dcgm);
      break;
    case ChunkKind::Net:
      walk.netCounters(c.pid, c.subject, (*ctx.render.local)[c.input - ctx.render.firstLocal].net);
      break;
    case ChunkKind::AnalysisProcess:
      walk.processMeta(c.pid, analysisProcessName(c, ctx));
      break;
    case ChunkKind::AnalysisTrack:
      walkAnalysisTrack(walk, c, ctx);
      break;
  }
}

// One sink per file of `set`, in its format; format f's pieces go to `pieces` with f.
// A Perfetto chunk is packet sequence index + 1 (from the data, not the rank).
std::vector<std::unique_ptr<TraceSink>> sinksOf(const std::vector<OutputFile>& outputs, FileSet set,
                                                size_t index, WriteContext& ctx,
                                                const FormatPieces& pieces) {
  std::vector<std::unique_ptr<TraceSink>> sinks;
  for (size_t f = 0; f < set.count; ++f) {
    auto toFormat = [&pieces, f](std::string& text) { pieces(f, text); };
    std::string buffer = ctx.pieces.pool ? ctx.pieces.pool->take() : std::string();
    sinks.push_back(outputFormat(outputs[set.first + f].format)
                        .makeSink(index, toFormat, ctx.pieces.bytes, std::move(buffer)));
  }
  return sinks;
}

// Renders chunk `index` of every file of `set` from one walk. Returns each
// format's warnings (the walk's, counted once, plus that format's own);
// `problem` is set when the input could not be re-read.
std::vector<Warnings> renderChunkSetUnguarded(const std::vector<OutputFile>& outputs, FileSet set,
                                              size_t index, WriteContext& ctx,
                                              RenderScratch& scratch, const FormatPieces& pieces,
                                              std::string& problem) {
  std::vector<std::unique_ptr<TraceSink>> sinks = sinksOf(outputs, set, index, ctx, pieces);
  std::vector<TraceSink*> all;
  for (auto& s : sinks) all.push_back(s.get());
  TeeSink tee(all);
  ChunkWalk walk(ctx.origin, sinks.size() == 1 ? *sinks[0] : static_cast<TraceSink&>(tee));
  walkChunk(walk, outputs[set.first].chunks[index], ctx, scratch, problem);
  const Warnings walked = walk.takeWarnings();
  std::vector<Warnings> out(sinks.size(), walked);
  for (size_t f = 0; f < sinks.size(); ++f) {
    sinks[f]->flush();
    if (ctx.pieces.pool) ctx.pieces.pool->give(sinks[f]->takeBuffer());
    out[f].merge(sinks[f]->takeWarnings());
  }
  return out;
}

// A track group this rank draws in more than one file: copied from its
// first rendering when that is kept, else rendered (and kept when no other
// thread is keeping it).
std::vector<Warnings> renderReusedTrack(RenderedTracks& kept, const RenderedTracks::Key& key,
                                        const std::vector<OutputFile>& outputs, FileSet set,
                                        size_t index, WriteContext& ctx, RenderScratch& scratch,
                                        const FormatPieces& pieces, std::string& problem) {
  if (std::optional<Warnings> w = kept.copy(key, pieces, ctx.pieces.pool)) return {std::move(*w)};
  std::unique_ptr<RenderedTracks::Capture> capture = kept.capture(key);
  if (!capture) return renderChunkSetUnguarded(outputs, set, index, ctx, scratch, pieces, problem);
  auto capturing = [&capture, &pieces](size_t f, std::string& text) {
    capture->add(text);  // before `pieces`, which may take the text
    pieces(f, text);
  };
  std::vector<Warnings> w;
  try {
    w = renderChunkSetUnguarded(outputs, set, index, ctx, scratch, capturing, problem);
  } catch (...) {
    kept.finish(std::move(capture), {}, "rendering failed");
    throw;
  }
  kept.finish(std::move(capture), w.at(0), problem);
  return w;
}

}  // namespace

std::vector<Warnings> renderChunkSet(const std::vector<OutputFile>& outputs, FileSet set,
                                     size_t index, WriteContext& ctx, int rank,
                                     RenderScratch& scratch, const FormatPieces& pieces,
                                     std::string& problem) {
  const Chunk& c = outputs[set.first].chunks[index];
  try {
    if (c.kind != ChunkKind::ProcessMeta && c.kind != ChunkKind::ThreadMeta &&
        c.kind != ChunkKind::AnalysisProcess) {
      if (faultInjected("render", rank)) throw std::runtime_error("injected render fault");
      if (faultInjected("kill-render", rank)) std::raise(SIGKILL);
    }
    if (RenderedTracks* kept = ctx.render.renderedTracks)
      if (std::optional<RenderedTracks::Key> key = kept->keyOf(outputs, set, index))
        return renderReusedTrack(*kept, *key, outputs, set, index, ctx, scratch, pieces, problem);
    return renderChunkSetUnguarded(outputs, set, index, ctx, scratch, pieces, problem);
  } catch (const std::exception& e) {
    problem = std::string("rendering failed: ") + e.what();
    return std::vector<Warnings>(set.count);
  }
}

OrderedRenderer::OrderedRenderer(const std::vector<OutputFile>& outputs, WriteContext& ctx,
                                 BufferPool& pool, int rank, unsigned threads)
    : outputs_(outputs), ctx_(ctx), pool_(pool), rank_(rank) {
  const unsigned n = std::max(1U, threads);
  decodes_.assign(n, 0);
  unsigned dealt = 0, thread = 0;  // heavy chunks dealt, the thread of the last one
  for (const FileSet& set : fileSets(outputs))
    for (const Chunk& c : outputs[set.first].chunks) {
      if (c.owner != rank) continue;
      if (c.kind == ChunkKind::RankRows || c.kind == ChunkKind::AnalysisTrack) thread = dealt++ % n;
      threadOf_.push_back(thread);
    }
  // The threads share pieces.ahead pieces of text (at least one each): a
  // thread's rows are decoded before its first piece, so a short queue does
  // not stop the decodes from running side by side.
  const size_t ahead = std::max<size_t>(1, ctx.pieces.ahead / n);
  for (unsigned t = 0; t < n; ++t)
    queues_.push_back(std::make_unique<BoundedQueue<RenderedItem>>(ahead));
  for (unsigned t = 0; t < n; ++t) threads_.emplace_back([this, t] { run(t); });
}

void OrderedRenderer::stop() {
  for (auto& q : queues_) q->close();
  for (auto& t : threads_)
    if (t.joinable()) t.join();
}

uint64_t OrderedRenderer::decodes() const {
  uint64_t n = 0;
  for (uint64_t d : decodes_) n += d;
  return n;
}

bool OrderedRenderer::take(size_t formats, const std::function<void(RenderedItem&)>& onItem) {
  if (taken_ >= threadOf_.size()) return false;
  BoundedQueue<RenderedItem>& q = *queues_[threadOf_[taken_++]];
  for (size_t ends = 0; ends < formats;) {
    std::optional<RenderedItem> item = q.pop();
    if (!item) return false;
    ends += item->end;
    onItem(*item);
  }
  return true;
}

void OrderedRenderer::run(unsigned thread) {
  BoundedQueue<RenderedItem>& q = *queues_[thread];
  auto pushPiece = [&](size_t f, std::string& text) {
    std::string piece = pool_.take();
    piece.swap(text);
    q.push(RenderedItem{f, false, std::move(piece), {}, {}});
  };
  RenderScratch scratch;
  size_t own = 0;  // own chunks seen, in output order
  for (const FileSet& set : fileSets(outputs_))
    for (size_t i = 0; i < outputs_[set.first].chunks.size(); ++i) {
      if (outputs_[set.first].chunks[i].owner != rank_ || threadOf_[own++] != thread) continue;
      std::string problem;
      std::vector<Warnings> w =
          renderChunkSet(outputs_, set, i, ctx_, rank_, scratch, pushPiece, problem);
      for (size_t f = 0; f < set.count; ++f)
        if (!q.push(RenderedItem{f, true, {}, std::move(w[f]), problem})) {
          decodes_[thread] = scratch.decodes;
          return;
        }
    }
  decodes_[thread] = scratch.decodes;
}

namespace {

// sendOwnChunks with the rendering on ctx.render.threads threads.
uint64_t sendOwnChunksThreaded(Comm& comm, const std::vector<OutputFile>& outputs,
                               WriteContext& ctx, BufferPool& pool) {
  ChunkSender sender(comm, pool, ctx.pieces.ahead);
  OrderedRenderer renderer(outputs, ctx, pool, comm.rank(), ctx.render.threads);
  auto post = [&](RenderedItem& item) {
    if (item.end) return sender.endChunk(item.format, item.warnings, item.problem);
    sender.postPiece(item.format, item.text);
    pool.give(std::move(item.text));
  };
  for (const FileSet& set : fileSets(outputs))
    for (const Chunk& c : outputs[set.first].chunks)
      if (c.owner == comm.rank() && !renderer.take(set.count, post))
        throw std::logic_error("rendering stopped before its last chunk");
  renderer.stop();
  sender.drain();
  return renderer.decodes();
}

}  // namespace

uint64_t sendOwnChunks(Comm& comm, const std::vector<OutputFile>& outputs, WriteContext& ctx,
                       BufferPool& pool) {
  if (ctx.render.threads > 1) return sendOwnChunksThreaded(comm, outputs, ctx, pool);
  const int me = comm.rank();
  ChunkSender sender(comm, pool, ctx.pieces.ahead);
  auto postPiece = [&sender](size_t f, std::string& text) { sender.postPiece(f, text); };
  RenderScratch scratch;
  for (const FileSet& set : fileSets(outputs)) {
    const OutputFile& o = outputs[set.first];
    for (size_t i = 0; i < o.chunks.size(); ++i) {
      if (o.chunks[i].owner != me) continue;
      std::string problem;
      std::vector<Warnings> w =
          renderChunkSet(outputs, set, i, ctx, me, scratch, postPiece, problem);
      for (size_t f = 0; f < set.count; ++f) sender.endChunk(f, w[f], problem);
    }
  }
  sender.drain();
  return scratch.decodes;
}

}  // namespace xstack
