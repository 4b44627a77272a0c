#include "xstack/app/WriteStage.h"

#include <algorithm>
#include <csignal>
#include <filesystem>
#include <nlohmann/json.hpp>
#include <optional>
#include <stdexcept>
#include <thread>

#include "xstack/core/BoundedQueue.h"
#include "xstack/core/BufferPool.h"
#include "xstack/core/FaultInjection.h"
#include "xstack/trace/EventRenderer.h"
#include "xstack/trace/PerfettoRenderer.h"
#include "xstack/trace/TraceFileWriter.h"
#include "xstack/trace/TraceLayout.h"
#include "xstack/transport/ChunkPieces.h"

namespace xstack {
namespace {

// A displayed rank's rows, from the profile file read again by the rank
// that renders them (any rank that sees the file).
template <class Renderer>
void renderRankRows(const Chunk& c, WriteContext& ctx, Renderer& r, std::string& problem) {
  const InputSummary& s = (*ctx.all)[c.input];
  // Streaming: the file is decoded straight into the row buckets; one
  // profile at a time per rendering thread, in reused memory.
  static thread_local std::unique_ptr<FileBuffer> bytes;
  static thread_local RowBuckets buckets;
  buckets.reset(s.rows);
  auto info = readProfileInto(s.file.path, bytes, buckets);
  if (!info) {
    problem = "read again for rendering: " + withoutPath(info.error().message, s.file.path);
    return;
  }
  r.rankRows(c.subject, c.pid, s.rows, buckets);
}

// Renders one chunk with renderer `r` (EventRenderer or PerfettoRenderer).
// Returns the rendering warnings; `problem` is set when the input could not
// be re-read.
template <class Renderer>
Warnings renderChunkWith(Renderer& r, const Chunk& c, WriteContext& ctx, std::string& problem) {
  switch (c.kind) {
    case ChunkKind::ProcessMeta:
      r.processMeta(c.pid, fixedProcessName(c.pid));
      break;
    case ChunkKind::ThreadMeta:
      r.threadMeta(c.pid, c.subject, "rank " + std::to_string(c.subject));
      break;
    case ChunkKind::RankRows:
      renderRankRows(c, ctx, r, problem);
      break;
    case ChunkKind::Spans:
      r.spans(c.subject, (*ctx.local)[c.input - ctx.firstLocal].spans);
      break;
    case ChunkKind::Dcgm:
      r.dcgmCounters(c.pid, c.gpu, c.subject, (*ctx.local)[c.input - ctx.firstLocal].dcgm);
      break;
    case ChunkKind::Net:
      r.netCounters(c.pid, c.subject, (*ctx.local)[c.input - ctx.firstLocal].net);
      break;
  }
  r.flush();
  if (ctx.pool) ctx.pool->give(r.takeBuffer());
  return r.takeWarnings();
}

// Renders chunk `index` of file `o` in the file's format; output to `sink`.
// A Perfetto chunk is packet sequence index + 1 (from the data, not the rank).
Warnings renderChunkUnguarded(const OutputFile& o, size_t index, WriteContext& ctx,
                              const EventRenderer::Sink& sink, std::string& problem) {
  std::string buffer = ctx.pool ? ctx.pool->take() : std::string();
  if (o.format == TraceFormat::Perfetto) {
    PerfettoRenderer r(ctx.origin, static_cast<uint32_t>(index + 1), sink, ctx.pieceBytes,
                       std::move(buffer));
    return renderChunkWith(r, o.chunks[index], ctx, problem);
  }
  EventRenderer r(ctx.origin, sink, ctx.pieceBytes, std::move(buffer));
  return renderChunkWith(r, o.chunks[index], ctx, problem);
}

// A failure while rendering costs that chunk only (what was already sent
// stays, as complete events): the protocol with rank 0 goes on.
Warnings renderChunk(const OutputFile& o, size_t index, WriteContext& ctx, int rank,
                     const EventRenderer::Sink& sink, std::string& problem) {
  const Chunk& c = o.chunks[index];
  try {
    if (c.kind != ChunkKind::ProcessMeta && c.kind != ChunkKind::ThreadMeta) {
      if (faultInjected("render", rank)) throw std::runtime_error("injected render fault");
      if (faultInjected("kill-render", rank)) std::raise(SIGKILL);
    }
    return renderChunkUnguarded(o, index, ctx, sink, problem);
  } catch (const std::exception& e) {
    problem = std::string("rendering failed: ") + e.what();
    return {};
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
  json w = json::object();
  json examples = json::object();  // placement-independent: basenames, training ranks
  for (const auto& [k, e] : warnings.entries()) {
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
// send its pieces to rank 0, then the chunk's end (transport/ChunkPieces.h).
void sendOwnChunks(Comm& comm, const std::vector<OutputFile>& outputs, WriteContext& ctx,
                   BufferPool& pool) {
  const int me = comm.rank();
  ChunkSender sender(comm, pool, ctx.piecesAhead);
  auto postPiece = [&sender](std::string& text) { sender.postPiece(text); };
  for (const OutputFile& o : outputs) {
    for (size_t i = 0; i < o.chunks.size(); ++i) {
      if (o.chunks[i].owner != me) continue;
      std::string problem;
      Warnings w = renderChunk(o, i, ctx, me, postPiece, problem);
      sender.endChunk(w, problem);
    }
  }
  sender.drain();
}

// One piece of rank 0's own rendering, or the end of a chunk.
struct OwnItem {
  bool end = false;  // end of a chunk: warnings and problem follow
  std::string text;
  Warnings warnings;
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
  ~OwnRenderer() {
    queue_.close();
    if (thread_.joinable()) thread_.join();
  }
  // The next chunk's pieces go to `write` (their buffers back to `pool`);
  // returns its end.
  ChunkEnd takeChunk(const std::function<void(std::string_view)>& write, BufferPool& pool) {
    for (;;) {
      std::optional<OwnItem> item = queue_.pop();
      if (!item) return {{}, "rendering stopped"};  // cannot happen: every chunk is ended
      if (item->end) return {std::move(item->warnings), std::move(item->problem)};
      write(item->text);
      pool.give(std::move(item->text));
    }
  }

 private:
  void run(const std::vector<OutputFile>& outputs, WriteContext& ctx, BufferPool& pool) {
    auto pushPiece = [&](std::string& text) {
      std::string piece = pool.take();
      piece.swap(text);
      queue_.push(OwnItem{false, std::move(piece), {}, {}});
    };
    for (const OutputFile& o : outputs)
      for (size_t i = 0; i < o.chunks.size(); ++i) {
        if (o.chunks[i].owner != 0) continue;
        OwnItem end;
        end.end = true;
        end.warnings = renderChunk(o, i, ctx, 0, pushPiece, end.problem);
        if (!queue_.push(std::move(end))) return;  // the writer stopped
      }
  }

  BoundedQueue<OwnItem> queue_;
  std::thread thread_;
};

// The findings' process of `o`: the first pid after every row of `o` (a
// RankRows chunk spans one pid per row).
int64_t firstFreePid(const OutputFile& o, const WriteContext& ctx) {
  int64_t lastPid = kPipelinePid;
  for (const Chunk& c : o.chunks) {
    const size_t rows = c.kind == ChunkKind::RankRows ? (*ctx.all)[c.input].rows.size() : 1;
    lastPid = std::max(lastPid, lastPidOfChunk(c.pid, rows));
  }
  return findingsPid(lastPid);
}

// Rank 0's writing of one output file, chunk after chunk.

struct FileWrite {
  const OutputFile& output;
  TraceFileWriter& writer;
  WriteResult& res;
  Warnings warnings;  // of this file: its inputs' and its chunks'
  std::vector<std::pair<size_t, std::string>> problems;

  // After a write error, rank 0 keeps receiving (senders must not block) but drops the text.
  void append(std::string_view text) {
    if (!res.ok) return;
    if (Status s = writer.appendEvents(text); !s) fail(s);
  }
  void fail(const Status& s) {
    res.ok = false;
    res.error = s.error().message;
  }
  void open(const WriteContext& ctx) {
    for (size_t i : output.inputs) warnings.merge((*ctx.all)[i].warnings);
    if (!res.ok) return;
    TraceFileWriter::Options wo;
    wo.gzip = ctx.compress;
    wo.fsync = ctx.fsync;
    wo.raw = output.format == TraceFormat::Perfetto;
    std::string name = output.fileName() + (ctx.compress ? ".gz" : "");
    if (Status s = writer.open((std::filesystem::path(ctx.outDir) / name).string(), wo); !s)
      fail(s);
  }
  void chunkDone(const Chunk& c, const WriteContext& ctx, const Warnings& chunkWarnings,
                 const std::string& problem) {
    warnings.merge(chunkWarnings);
    if (output.countsWarnings) res.warnings.merge(chunkWarnings);
    if (problem.empty()) return;
    const InputSummary& s = (*ctx.all)[c.input];
    warnings.add("render_failed");
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
    std::string bytes;
    auto take = [&bytes](std::string& piece) { bytes += piece; };
    if (output.format == TraceFormat::Perfetto) {
      PerfettoRenderer r(ctx.origin, static_cast<uint32_t>(output.chunks.size() + 1), take);
      r.extraRows(extra);
      r.metadata(otherDataJson(output, ctx, warnings, problems), ctx.origin.ns);
      r.flush();
      return bytes;
    }
    EventRenderer r(ctx.origin, take);
    r.extraRows(extra);
    r.flush();
    if (Status s = writer.appendEvents(bytes); !s) fail(s);
    return otherDataJson(output, ctx, warnings, problems);
  }
  void finish(const WriteContext& ctx) {
    if (!res.ok) return;
    const std::string end = tail(ctx);
    if (!res.ok) return;
    if (Status s = writer.finish(end); !s) {
      fail(s);
      return;
    }
    res.bytesWritten += writer.bytesWritten();
    ++res.filesWritten;
  }
};

}  // namespace

WriteResult writeOutputs(Comm& comm, const std::vector<OutputFile>& outputs, WriteContext& ctx,
                         std::vector<TraceFileWriter>& writers) {
  WriteResult res;
  BufferPool pool(ctx.piecesAhead + 2);
  ctx.pool = &pool;
  struct ForgetPool {  // destroyed after the render thread is joined
    WriteContext& ctx;
    ~ForgetPool() { ctx.pool = nullptr; }
  } forgetPool{ctx};
  if (comm.rank() != 0) {
    sendOwnChunks(comm, outputs, ctx, pool);
    return res;
  }
  uint64_t total = 0, done = 0;
  for (const OutputFile& o : outputs) total += o.chunks.size();
  const bool renderThread = comm.threadsAllowed();
  OwnRenderer own(outputs, ctx, pool, renderThread);
  Message m;  // received pieces, in reused memory
  writers.clear();
  writers.resize(outputs.size());
  for (size_t f = 0; f < outputs.size(); ++f) {
    FileWrite fw{outputs[f], writers[f], res, {}, {}};
    fw.open(ctx);
    const std::function<void(std::string_view)> write = [&fw](std::string_view t) { fw.append(t); };
    for (size_t i = 0; i < outputs[f].chunks.size(); ++i) {
      const Chunk& c = outputs[f].chunks[i];
      ChunkEnd end;
      if (c.owner != 0)
        end = receiveChunk(comm, c.owner, m, write);
      else if (renderThread)
        end = own.takeChunk(write, pool);
      else
        end.warnings = renderChunk(outputs[f], i, ctx, 0, write, end.problem);
      fw.chunkDone(c, ctx, end.warnings, end.problem);
      if (ctx.onProgress) ctx.onProgress(++done, total);
    }
    fw.finish(ctx);
  }
  return res;
}

}  // namespace xstack
