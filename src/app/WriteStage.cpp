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
#include "xstack/trace/TraceFileWriter.h"
#include "xstack/trace/TraceLayout.h"

namespace xstack {
namespace {

constexpr int kChunkTag = 77;
enum : uint64_t { kPiece = 1, kEnd = 2 };

// Renders one chunk this rank owns; text goes to `sink`. Returns the
// rendering warnings; `problem` is set when the input could not be re-read.
Warnings renderChunkUnguarded(const Chunk& c, WriteContext& ctx, const EventRenderer::Sink& sink,
                              std::string& problem) {
  EventRenderer r(ctx.origin, sink, ctx.pieceBytes, ctx.pool ? ctx.pool->take() : std::string());
  switch (c.kind) {
    case ChunkKind::ProcessMeta:
      r.processMeta(c.pid, fixedProcessName(c.pid));
      break;
    case ChunkKind::ThreadMeta:
      r.threadMeta(c.pid, c.subject, "rank " + std::to_string(c.subject));
      break;
    case ChunkKind::RankRows: {
      // The reader may still hold the profile (--cache-mb); any other rank
      // that sees the file reads it again.
      const InputSummary& s = (*ctx.all)[c.input];
      LocalInput* in = c.input >= ctx.firstLocal && c.input - ctx.firstLocal < ctx.local->size()
                           ? &(*ctx.local)[c.input - ctx.firstLocal]
                           : nullptr;
      if (in && in->profile) {
        r.rankRows(c.subject, c.pid, s.rows, in->profile->data);
        in->profile.reset();  // rendered once: free it
        break;
      }
      // Streaming: the file is decoded straight into the row buckets; one
      // profile at a time per rendering thread, in reused memory.
      static thread_local std::unique_ptr<FileBuffer> bytes;
      static thread_local RowBuckets buckets;
      buckets.reset(s.rows);
      auto info = readProfileInto(s.file.path, bytes, buckets);
      if (!info) {
        problem = "read again for rendering: " + withoutPath(info.error().message, s.file.path);
        break;
      }
      r.rankRows(c.subject, c.pid, s.rows, buckets);
      break;
    }
    default: {
      LocalInput& in = (*ctx.local)[c.input - ctx.firstLocal];
      if (c.kind == ChunkKind::Spans) {
        r.spans(c.subject, in.spans);
      } else if (c.kind == ChunkKind::Dcgm) {
        r.dcgmCounters(c.pid, c.gpu, c.subject, in.dcgm);
      } else if (c.kind == ChunkKind::Net) {
        r.netCounters(c.pid, c.subject, in.net);
      }
    }
  }
  r.flush();
  if (ctx.pool) ctx.pool->give(r.takeBuffer());
  return r.takeWarnings();
}

// A failure while rendering costs that chunk only (what was already sent
// stays, as complete events): the protocol with rank 0 goes on.
Warnings renderChunk(const Chunk& c, WriteContext& ctx, int rank, const EventRenderer::Sink& sink,
                     std::string& problem) {
  try {
    if (c.kind != ChunkKind::ProcessMeta && c.kind != ChunkKind::ThreadMeta) {
      if (faultInjected("render", rank)) throw std::runtime_error("injected render fault");
      if (faultInjected("kill-render", rank)) std::raise(SIGKILL);
    }
    return renderChunkUnguarded(c, ctx, sink, problem);
  } catch (const std::exception& e) {
    problem = std::string("rendering failed: ") + e.what();
    return {};
  }
}

std::string encodeEnd(const Warnings& w, const std::string& problem) {
  nlohmann::json j;
  for (const auto& [k, e] : w.entries()) j["w"][k] = e.count;
  j["p"] = problem;
  auto b = nlohmann::json::to_msgpack(j);
  return std::string(b.begin(), b.end());
}

void decodeEnd(const std::string& bytes, Warnings& w, std::string& problem) {
  auto j = nlohmann::json::from_msgpack(bytes);
  if (j.contains("w"))
    for (const auto& [k, v] : j["w"].items()) w.add(k, v.get<uint64_t>());
  problem = j["p"].get<std::string>();
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
  d["partial_group"] = o.trainersInGroup < ctx.topology.groupSize;
  d["job"] = {
      {"trainers", ctx.shape.trainers}, {"groups", ctx.shape.groups}, {"ranks", ctx.shape.ranks}};
  d["options"] = {{"gpus_per_trainer", ctx.topology.gpusPerTrainer},
                  {"group_size", ctx.topology.groupSize},
                  {"display_size", ctx.topology.displaySize}};
  json w = json::object();
  for (const auto& [k, e] : warnings.entries()) w[k] = e.count;
  d["warnings"] = w;
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

WriteResult writeOutputs(Comm& comm, const std::vector<OutputFile>& outputs, WriteContext& ctx,
                         std::vector<TraceFileWriter>& writers) {
  WriteResult res;
  const int me = comm.rank();
  BufferPool pool(ctx.piecesAhead + 2);
  ctx.pool = &pool;
  struct ForgetPool {  // destroyed after the render thread is joined
    WriteContext& ctx;
    ~ForgetPool() { ctx.pool = nullptr; }
  } forgetPool{ctx};
  std::vector<std::string> sentBack;
  if (me != 0) {
    for (const OutputFile& o : outputs) {
      for (const Chunk& c : o.chunks) {
        if (c.owner != me) continue;
        std::string problem;
        Warnings w = renderChunk(
            c, ctx, me,
            [&](std::string& text) {
              sentBack.clear();
              comm.waitPosted(ctx.piecesAhead, &sentBack);
              for (auto& b : sentBack) pool.give(std::move(b));
              std::string piece = pool.take();
              piece.swap(text);
              comm.post(0, kChunkTag, kPiece, std::move(piece));
            },
            problem);
        comm.waitPosted(ctx.piecesAhead);
        comm.post(0, kChunkTag, kEnd, encodeEnd(w, problem));
      }
    }
    comm.waitPosted(0);
    return res;
  }

  uint64_t total = 0, done = 0;
  for (const OutputFile& o : outputs) total += o.chunks.size();

  // Rank 0's own chunks are rendered on a thread of their own, in output
  // order, at most piecesAhead pieces ahead of the writer: rank 0 renders
  // while it waits for other ranks' pieces or for write() to return.
  struct Item {
    bool end = false;  // end of a chunk: warnings and problem follow
    std::string text;
    Warnings warnings;
    std::string problem;
  };
  BoundedQueue<Item> own(std::max<size_t>(ctx.piecesAhead, 1));
  // Without thread support from MPI (MPI_THREAD_SINGLE), rank 0 renders its
  // chunks inline, in turn.
  const bool renderThread = comm.threadsAllowed();
  std::thread renderer([&] {
    if (!renderThread) return;
    for (const OutputFile& o : outputs)
      for (const Chunk& c : o.chunks) {
        if (c.owner != 0) continue;
        Item end;
        end.end = true;
        end.warnings = renderChunk(
            c, ctx, 0,
            [&](std::string& text) {
              std::string piece = pool.take();
              piece.swap(text);
              own.push(Item{false, std::move(piece), {}, {}});
            },
            end.problem);
        if (!own.push(std::move(end))) return;  // the writer stopped
      }
  });
  struct JoinOnExit {
    BoundedQueue<Item>& q;
    std::thread& t;
    ~JoinOnExit() {
      q.close();
      t.join();
    }
  } joinOnExit{own, renderer};

  Message m;  // received pieces, in reused memory
  writers.clear();
  writers.resize(outputs.size());
  for (size_t f = 0; f < outputs.size(); ++f) {
    const OutputFile& o = outputs[f];
    TraceFileWriter& wr = writers[f];
    // After a write error, keep receiving (senders must not block) but drop the text.
    auto write = [&](std::string_view text) {
      if (!res.ok) return;
      if (Status s = wr.appendEvents(text); !s) {
        res.ok = false;
        res.error = s.error().message;
      }
    };
    if (res.ok) {
      TraceFileWriter::Options wo;
      wo.gzip = ctx.compress;
      wo.fsync = ctx.fsync;
      std::string name = o.fileName() + (ctx.compress ? ".gz" : "");
      if (Status s = wr.open((std::filesystem::path(ctx.outDir) / name).string(), wo); !s) {
        res.ok = false;
        res.error = s.error().message;
      }
    }
    Warnings fileWarnings;
    std::vector<std::pair<size_t, std::string>> fileProblems;
    for (size_t i : o.inputs) fileWarnings.merge((*ctx.all)[i].warnings);
    for (const Chunk& c : o.chunks) {
      std::string problem;
      Warnings chunkWarnings;
      if (c.owner == 0 && !renderThread) {
        chunkWarnings = renderChunk(c, ctx, 0, write, problem);
      } else if (c.owner == 0) {
        for (;;) {
          std::optional<Item> item = own.pop();
          if (!item) {  // cannot happen: the renderer ends every chunk
            problem = "rendering stopped";
            break;
          }
          if (!item->end) {
            write(item->text);
            pool.give(std::move(item->text));
            continue;
          }
          chunkWarnings = std::move(item->warnings);
          problem = std::move(item->problem);
          break;
        }
      } else {
        for (;;) {
          comm.recvInto(c.owner, kChunkTag, m);
          if (m.kind == kPiece) {
            write(m.data);
            continue;
          }
          decodeEnd(m.data, chunkWarnings, problem);
          break;
        }
      }
      fileWarnings.merge(chunkWarnings);
      res.warnings.merge(chunkWarnings);
      if (!problem.empty()) {
        const InputSummary& s = (*ctx.all)[c.input];
        fileWarnings.add("render_failed");
        fileProblems.emplace_back(c.input, problem);
        const std::string& host = static_cast<size_t>(c.owner) < ctx.hosts.size()
                                      ? ctx.hosts[static_cast<size_t>(c.owner)]
                                      : s.readerHost;
        res.renderProblems.push_back(s.file.path + " (rank " + std::to_string(c.owner) + " on " +
                                     host + "): " + problem);
      }
      if (ctx.onProgress) ctx.onProgress(++done, total);
    }
    if (res.ok && ctx.extraEvents) {
      int64_t lastPid = 0;
      for (const Chunk& c : o.chunks) {  // a RankRows chunk spans one pid per row
        int64_t rows = c.kind == ChunkKind::RankRows
                           ? static_cast<int64_t>((*ctx.all)[c.input].rows.size())
                           : 1;
        lastPid = std::max(lastPid, c.pid + std::max<int64_t>(rows, 1) - 1);
      }
      if (Status s = wr.appendEvents(ctx.extraEvents(o, lastPid + 1)); !s) {
        res.ok = false;
        res.error = s.error().message;
      }
    }
    if (res.ok) {
      if (Status s = wr.finish(otherDataJson(o, ctx, fileWarnings, fileProblems)); !s) {
        res.ok = false;
        res.error = s.error().message;
      } else {
        res.bytesWritten += wr.bytesWritten();
        ++res.filesWritten;
      }
    }
  }
  return res;
}

}  // namespace xstack
