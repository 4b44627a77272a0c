#include "xstack/cmd/report/TraceRendering.h"

#include <algorithm>
#include <csignal>
#include <filesystem>
#include <memory>
#include <nlohmann/json.hpp>
#include <optional>
#include <stdexcept>
#include <thread>

#include "xstack/core/BoundedQueue.h"
#include "xstack/core/BufferPool.h"
#include "xstack/core/FaultInjection.h"
#include "xstack/model/TraceLayout.h"
#include "xstack/render/ChunkWalk.h"
#include "xstack/render/OutputFormats.h"
#include "xstack/render/TraceFileWriter.h"
#include "xstack/source/SourceRegistry.h"
#include "xstack/transport/ChunkPieces.h"

namespace xstack {
namespace {

// The output files that show one (group, gpu) in several formats: adjacent
// in the plan (withFormats), the same chunks and owners. Rendered from one
// walk, and written by rank 0 in lockstep, chunk by chunk.
struct FileSet {
  size_t first = 0, count = 1;
};

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

// The rows of input `input` (global index) kept by this rank's read stage, if any.
std::unique_ptr<RowBuckets> takeKeptRows(WriteContext& ctx, size_t input) {
  if (!ctx.local || input < ctx.firstLocal || input - ctx.firstLocal >= ctx.local->size())
    return nullptr;
  return std::move((*ctx.local)[input - ctx.firstLocal].keptRows);
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
  std::optional<SpilledRows> spilled;
  if (!rowsFitInMemory(s.events, ctx.spill)) spilled.emplace(s.rows, ctx.origin, ctx.spill);
  EventSink& rows = spilled ? static_cast<EventSink&>(*spilled) : scratch.buckets;
  if (!spilled) scratch.buckets.reset(s.rows);
  runInjectedCommand("render-read-cmd", c.owner);
  auto info = (ctx.source ? *ctx.source : defaultSource())
                  .decodeTrace(s.file.path, scratch.bytes, rows, {});
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
      walk.spans(c.subject, (*ctx.local)[c.input - ctx.firstLocal].spans);
      break;
    case ChunkKind::Dcgm:
      walk.dcgmCounters(c.pid, c.gpu, c.subject, (*ctx.local)[c.input - ctx.firstLocal].dcgm);
      break;
    case ChunkKind::Net:
      walk.netCounters(c.pid, c.subject, (*ctx.local)[c.input - ctx.firstLocal].net);
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
    std::string buffer = ctx.pool ? ctx.pool->take() : std::string();
    sinks.push_back(outputFormat(outputs[set.first + f].format)
                        .makeSink(index, toFormat, ctx.pieceBytes, std::move(buffer)));
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
    if (ctx.pool) ctx.pool->give(sinks[f]->takeBuffer());
    out[f].merge(sinks[f]->takeWarnings());
  }
  return out;
}

// A failure while rendering costs that chunk only (what was already sent
// stays, as complete events): the protocol with rank 0 goes on.
std::vector<Warnings> renderChunkSet(const std::vector<OutputFile>& outputs, FileSet set,
                                     size_t index, WriteContext& ctx, int rank,
                                     RenderScratch& scratch, const FormatPieces& pieces,
                                     std::string& problem) {
  const Chunk& c = outputs[set.first].chunks[index];
  try {
    if (c.kind != ChunkKind::ProcessMeta && c.kind != ChunkKind::ThreadMeta) {
      if (faultInjected("render", rank)) throw std::runtime_error("injected render fault");
      if (faultInjected("kill-render", rank)) std::raise(SIGKILL);
    }
    return renderChunkSetUnguarded(outputs, set, index, ctx, scratch, pieces, problem);
  } catch (const std::exception& e) {
    problem = std::string("rendering failed: ") + e.what();
    return std::vector<Warnings>(set.count);
  }
}

}  // namespace

std::string otherDataJson(const OutputFile& o, const WriteContext& ctx, const Warnings& warnings,
                          const std::vector<std::pair<size_t, std::string>>& renderProblems) {
  using nlohmann::json;
  const auto& all = *ctx.all;
  json d;
  d["tool"] = "xstack";
  d["version"] = XSTACK_VERSION;
  d["group"] = o.group;
  d["gpu"] = o.gpu;
  d["time_origin_ns"] = ctx.origin.ns;
  d["time_origin_source"] = ctx.originFromOption ? "option" : "inputs";
  d["ranks"] = o.ranks;
  d["trainers"] = o.trainers;
  d["trainers_in_group"] = o.trainersInGroup;
  d["missing_ranks"] = o.missingRanks;
  if (ctx.shape.missingRanks.size() >= kMaxMissingRanks)  // never cut silently
    d["missing_ranks_cut_after"] = ctx.shape.missingRanks.back();
  d["partial_group"] = o.trainersInGroup < ctx.topology.groupSize;
  d["job"] = {
      {"trainers", ctx.shape.trainers}, {"groups", ctx.shape.groups}, {"ranks", ctx.shape.ranks}};
  d["options"] = {{"gpus_per_trainer", ctx.topology.gpusPerTrainer},
                  {"group_size", ctx.topology.groupSize},
                  {"display_size", ctx.topology.displaySize}};
  json shown = json::array();  // ranks a finding names, displayed beyond display_size
  for (int64_t r : o.ranks)
    if (std::binary_search(ctx.topology.shownRanks.begin(), ctx.topology.shownRanks.end(), r))
      shown.push_back(r);
  if (!shown.empty()) d["shown_for_findings"] = shown;
  json w = json::object();
  json examples = json::object();  // placement-independent: basenames, training ranks
  for (const auto& [kind, e] : warnings.entries()) {
    const std::string k(warnName(kind));
    w[k] = e.count;
    if (!e.examples.empty()) examples[k] = e.examples;
  }
  d["warnings"] = w;
  if (!examples.empty()) d["warning_examples"] = examples;
  json problems = json::array();
  for (size_t i : o.inputs) {
    const InputSummary& s = all[i];
    if (s.status == InputStatus::Ok) continue;
    problems.push_back({{"kind", kindName(s.file.kind)},
                        {"id", s.file.id},
                        {"file", std::filesystem::path(s.file.path).filename().string()},
                        {"status", statusName(s.status)},
                        {"message", s.problem}});
  }
  for (const auto& [i, message] : renderProblems) {
    const InputSummary& s = all[i];
    problems.push_back({{"kind", kindName(s.file.kind)},
                        {"id", s.file.id},
                        {"file", std::filesystem::path(s.file.path).filename().string()},
                        {"status", "render_failed"},
                        {"message", message}});
  }
  d["problems"] = problems;
  return d.dump(-1, ' ', false, json::error_handler_t::replace);
}

namespace {

// Ranks other than 0: render every chunk this rank owns, in output order, and
// post its pieces to rank 0, then the chunk's end (warnings, problem) per format.
uint64_t sendOwnChunks(Comm& comm, const std::vector<OutputFile>& outputs, WriteContext& ctx,
                       BufferPool& pool) {
  const int me = comm.rank();
  ChunkSender sender(comm, pool, ctx.piecesAhead);
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

// One piece of rank 0's own rendering, or the end of a chunk, of format f of its set.
struct OwnItem {
  size_t format = 0;
  bool end = false;  // end of a chunk: warnings and problem follow
  std::string text;
  Warnings warnings;
  std::string problem;
};

// Where rank 0 puts the pieces of one chunk of a file set: format f's text to
// write(f, text); each format's end (warnings, problem) is kept.
struct ChunkIntake {
  std::function<void(size_t, std::string_view)> write;
  std::vector<Warnings> warnings;  // per format
  std::string problem;
};

// Rank 0's own chunks, rendered on a thread of their own, in output order, at
// most piecesAhead pieces ahead of the writer: rank 0 renders while it waits
// for other ranks' pieces or for write() to return. Without a thread (MPI
// without thread support) the writer renders them inline, in turn.
class OwnRenderer {
 public:
  OwnRenderer(const std::vector<OutputFile>& outputs, WriteContext& ctx, BufferPool& pool,
              bool threaded)
      : queue_(std::max<size_t>(ctx.piecesAhead, 1)) {
    if (threaded)
      thread_ = std::thread([this, o = &outputs, c = &ctx, p = &pool] { run(*o, *c, *p); });
  }
  ~OwnRenderer() { stop(); }
  // Ends the render thread (it has ended every chunk, or the writer gave up).
  void stop() {
    queue_.close();
    if (thread_.joinable()) thread_.join();
  }
  // The next chunk's pieces, every format's, go to `in` (their buffers back to `pool`).
  void takeChunk(ChunkIntake& in, BufferPool& pool) {
    size_t ends = 0;
    while (ends < in.warnings.size()) {
      std::optional<OwnItem> item = queue_.pop();
      if (!item) {  // cannot happen: the renderer ends every chunk
        in.problem = "rendering stopped";
        return;
      }
      if (item->end) {
        in.warnings[item->format] = std::move(item->warnings);
        in.problem = std::move(item->problem);
        ++ends;
        continue;
      }
      in.write(item->format, item->text);
      pool.give(std::move(item->text));
    }
  }
  uint64_t decodes() const { return decodes_; }  // after stop()

 private:
  void run(const std::vector<OutputFile>& outputs, WriteContext& ctx, BufferPool& pool) {
    auto pushPiece = [&](size_t f, std::string& text) {
      std::string piece = pool.take();
      piece.swap(text);
      queue_.push(OwnItem{f, false, std::move(piece), {}, {}});
    };
    RenderScratch scratch;
    for (const FileSet& set : fileSets(outputs))
      for (size_t i = 0; i < outputs[set.first].chunks.size(); ++i) {
        if (outputs[set.first].chunks[i].owner != 0) continue;
        std::string problem;
        std::vector<Warnings> w =
            renderChunkSet(outputs, set, i, ctx, 0, scratch, pushPiece, problem);
        for (size_t f = 0; f < set.count; ++f)
          if (!queue_.push(OwnItem{f, true, {}, std::move(w[f]), problem})) return;
      }
    decodes_ = scratch.decodes;
  }

  BoundedQueue<OwnItem> queue_;
  std::thread thread_;
  uint64_t decodes_ = 0;
};

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

// The first pid after every row of `o` (a RankRows chunk spans one pid per row).
int64_t firstFreePid(const OutputFile& o, const WriteContext& ctx) {
  int64_t lastPid = kPipelinePid;
  for (const Chunk& c : o.chunks) {
    const size_t rows = c.kind == ChunkKind::RankRows ? (*ctx.all)[c.input].rows.size() : 1;
    lastPid = std::max(lastPid, lastPidOfChunk(c.pid, rows));
  }
  return findingsPid(lastPid);
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
    wo.gzip = ctx.compress;
    wo.fsync = ctx.fsync;
    wo.raw = outputFormat(output.format).rawFile;
    std::string name = output.fileName() + (ctx.compress ? ".gz" : "");
    if (Status s = writer.open(ctx.outDir, name, wo); !s) fail(s);
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
    res.renderProblems.push_back(s.file.path + " (rank " + std::to_string(c.owner) + " on " + host +
                                 "): " + problem);
  }
  // The file's end: the extra rows (findings) and otherData; for Perfetto
  // one last packet sequence (id: chunk count + 1) with both.
  std::string tail(const WriteContext& ctx) {
    TraceExtraRows extra;
    if (ctx.extraEvents) extra = ctx.extraEvents(output, firstFreePid(output, ctx));
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

Expected<WriteResult> writeOutputs(Comm& comm, const std::vector<OutputFile>& outputs,
                                   WriteContext& ctx, std::vector<TraceFileWriter>& writers) {
  WriteResult res;
  Status written;  // rank 0: ok until the first write error
  BufferPool pool(ctx.piecesAhead + 2);
  ctx.pool = &pool;
  struct ForgetPool {  // destroyed after the render thread is joined
    WriteContext& ctx;
    ~ForgetPool() { ctx.pool = nullptr; }
  } forgetPool{ctx};
  if (comm.rank() != 0) {
    res.renderDecodes = sendOwnChunks(comm, outputs, ctx, pool);
    return res;
  }
  uint64_t total = 0, done = 0;
  for (const OutputFile& o : outputs) total += o.chunks.size();
  const bool renderThread = comm.threadsAllowed();
  RenderScratch inlineScratch;  // rank 0's own chunks without a render thread
  {  // the render thread ends (and its memory goes) before the write stage returns
    OwnRenderer own(outputs, ctx, pool, renderThread);
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
          own.takeChunk(in, pool);
        } else {
          receiveChunkInto(comm, chunks[i].owner, m, in);
        }
        for (size_t f = 0; f < set.count; ++f)
          files[f].chunkDone(chunks[i], ctx, in.warnings[f], in.problem);
        done += set.count;
        if (ctx.onProgress) ctx.onProgress(done, total);
      }
      for (FileWrite& fw : files) fw.finish(ctx);
    }
    own.stop();
    res.renderDecodes = inlineScratch.decodes + own.decodes();
  }
  if (!written) return Failure(written.error()).onRank(0, comm.host());
  return res;
}

}  // namespace xstack
