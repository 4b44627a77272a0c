#include "xstack/app/WriteStage.h"

#include <csignal>
#include <filesystem>
#include <nlohmann/json.hpp>
#include <stdexcept>

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
  EventRenderer r(ctx.origin, sink, ctx.pieceBytes);
  switch (c.kind) {
    case ChunkKind::ProcessMeta:
      r.processMeta(c.pid, fixedProcessName(c.pid));
      break;
    case ChunkKind::ThreadMeta:
      r.threadMeta(c.pid, c.subject, "rank " + std::to_string(c.subject));
      break;
    default: {
      LocalInput& in = (*ctx.local)[c.input - ctx.firstLocal];
      if (c.kind == ChunkKind::Spans) {
        r.spans(c.subject, in.spans);
      } else if (c.kind == ChunkKind::Dcgm) {
        r.dcgmCounters(c.pid, c.gpu, c.subject, in.dcgm);
      } else if (c.kind == ChunkKind::Net) {
        r.netCounters(c.pid, c.subject, in.net);
      } else {
        std::optional<LoadedProfile> reloaded;
        const LoadedProfile* p = in.profile ? &*in.profile : nullptr;
        if (!p) {
          auto again = reloadProfile(in.summary);
          if (!again) {
            problem = "read again for rendering: " +
                      withoutPath(again.error().message, in.summary.file.path);
            break;
          }
          reloaded = std::move(*again);
          p = &*reloaded;
        }
        r.rankRows(c.subject, c.pid, in.summary.rows, p->data);
        in.profile.reset();  // rendered once: free it
      }
    }
  }
  r.flush();
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
  if (me != 0) {
    for (const OutputFile& o : outputs) {
      for (const Chunk& c : o.chunks) {
        if (c.owner != me) continue;
        std::string problem;
        Warnings w = renderChunk(
            c, ctx, me, [&](std::string_view text) { comm.send(0, kChunkTag, kPiece, text); },
            problem);
        comm.send(0, kChunkTag, kEnd, encodeEnd(w, problem));
      }
    }
    return res;
  }

  uint64_t total = 0, done = 0;
  for (const OutputFile& o : outputs) total += o.chunks.size();
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
      if (c.owner == 0) {
        chunkWarnings = renderChunk(c, ctx, 0, write, problem);
      } else {
        for (;;) {
          Message m = comm.recv(c.owner, kChunkTag);
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
        res.renderProblems.push_back(s.file.path + " (rank " + std::to_string(c.owner) + " on " +
                                     s.readerHost + "): " + problem);
      }
      if (ctx.onProgress) ctx.onProgress(++done, total);
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
