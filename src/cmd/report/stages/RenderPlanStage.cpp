#include <algorithm>
#include <cstdio>

#include "xstack/cmd/report/stages/ReportStages.h"
#include "xstack/core/TerminalText.h"
#include "xstack/plan/RenderAssignment.h"
#include "xstack/render/OutputFormats.h"
#include "xstack/render/SpilledRows.h"
#include "xstack/source/SourceRegistry.h"

namespace xstack {
namespace {

void printRenderPlan(const std::vector<OutputFile>& outputs,
                     const std::vector<std::string>& hosts) {
  for (const OutputFile& o : outputs)
    for (const Chunk& c : o.chunks)
      if (c.kind == ChunkKind::RankRows)
        std::fprintf(stderr, "xstack: render plan: rows of rank %lld in %s -> rank %d on %s\n",
                     static_cast<long long>(c.subject), o.fileName().c_str(), c.owner,
                     terminalSafe(hosts[static_cast<size_t>(c.owner)]).c_str());
}

// The time origin: --time-origin-ns, else the earliest timestamp of any input.
void setOrigin(const ReportOptions& opt, const std::vector<InputSummary>& all, WriteContext& ctx) {
  if (opt.timeOriginNs) {
    ctx.origin.ns = *opt.timeOriginNs;
    ctx.job.originFromOption = true;
    return;
  }
  MinTimestamp m;
  for (const auto& s : all) m.add(s.minTs);
  ctx.origin.ns = m.value;
}

// The render plan's costs: a source whose rows are kept from the read (gzip
// JSON) decodes for most of a render; its kept rows, and rank 0's writing of
// any chunk, cost a walk, against a full render.
RenderWeights renderWeightsOf(const ReportOptions& opt, const Source* source) {
  const bool keeps = (source ? *source : defaultSource()).keepRowsForRendering();
  const double walk = keeps ? kKeptRowsRenderCost : 1.0;
  return {rank0WriteWeightOf(opt.formats) * walk, walk};
}

// The bytes of the rows this rank's read stage kept for rendering (counted
// as RowBuckets is: heldBytesOf): held until their chunk is rendered.
uint64_t keptRowsBytes(const std::vector<LocalInput>& local) {
  uint64_t ops = 0;
  for (const LocalInput& in : local)
    if (in.keptRows) ops += in.keptRows->opCount();
  return heldBytesOf(ops);
}

// Each render thread's share of the rank's budget (--memory-mb, bytes) for a
// profile's rows: what the kept rows (`kept`, bytes) leave, split between
// the threads, so that the kept rows and every thread's rows stay within the
// budget together; at least 1 MiB, or the whole budget when it is smaller.
uint64_t renderShare(uint64_t budget, uint64_t kept, unsigned threads) {
  const uint64_t left = budget - std::min(budget, kept);
  return std::max(std::min<uint64_t>(budget, uint64_t{1} << 20), left / threads);
}

// The bytes of one piece of rendered text with `threads` render threads
// (`bytes`: --piece-kb): each thread fills a piece and has one more waiting
// to be queued, so pieces of bytes / threads keep the text in flight, about
// (pieces.ahead + 2) x bytes, the same for any thread count; at least 64
// KiB, or `bytes` when it is smaller. The piece size does not change the
// output's bytes.
uint64_t pieceShare(uint64_t bytes, unsigned threads) {
  return std::max(std::min<uint64_t>(bytes, uint64_t{64} << 10), bytes / threads);
}

// The largest profile file (bytes) whose rows rank `rank` renders from a
// second decode (its RankRows chunks whose rows were not kept).
uint64_t largestDecodedFile(const std::vector<OutputFile>& outputs,
                            const std::vector<InputSummary>& all, int rank) {
  uint64_t largest = 0;
  for (const OutputFile& o : outputs)
    for (const Chunk& c : o.chunks)
      if (c.owner == rank && c.kind == ChunkKind::RankRows && !all[c.input].rowsKept)
        largest = std::max(largest, all[c.input].file.bytes);
  return largest;
}

// The render threads (--threads, fewer when the profiles are decoded whole and
// that many would pass the budget: decodersWithin) and each one's share of
// the budget and of a piece of text.
void setRenderThreads(const ReportOptions& opt, const Source* source, int rank,
                      const std::vector<OutputFile>& outputs, const std::vector<InputSummary>& all,
                      const std::vector<LocalInput>& local, WriteContext& ctx) {
  const uint64_t budget = opt.spill.memoryBytes;
  ctx.render.threads =
      decodersWithin(std::max(1U, opt.threads), budget, source ? *source : defaultSource(),
                     largestDecodedFile(outputs, all, rank));
  ctx.render.spill = opt.spill;
  ctx.render.spill.memoryBytes = renderShare(budget, keptRowsBytes(local), ctx.render.threads);
  ctx.pieces.bytes = pieceShare(opt.pieceBytes, ctx.render.threads);
}

}  // namespace

RenderPlan renderPlanStage(ReportRun& run, const Plan& plan, const GatheredSummaries& gathered,
                           std::vector<LocalInput>& local, const Topology& topology) {
  const ReportOptions& opt = run.options;
  RenderPlan out;
  WriteContext& ctx = out.context;
  ctx.render.source = run.source;
  ctx.all = &gathered.all;
  ctx.render.local = &local;
  ctx.render.firstLocal = gathered.firstLocal;
  ctx.job.topology = topology;
  ctx.job.shape = jobShape(gathered.all, topology);
  ctx.files.outDir = run.outCommit.folder();
  ctx.files.compress = opt.compress;
  ctx.files.fsync = opt.fsync;
  setOrigin(opt, gathered.all, ctx);
  Progress& progress = run.progress;
  ctx.files.onProgress = [&progress](uint64_t done, uint64_t total) {
    progress.update("write", done, total);
  };
  out.outputs = planOutputs(gathered.all, topology);
  // Who may render each displayed profile's rows: every rank that sees its file.
  assignRenderers(out.outputs, gathered.all, seersOfSummaries(plan, gathered.all), run.comm.size(),
                  renderWeightsOf(opt, run.source));
  if (opt.formats.size() != 1 || opt.formats[0] != TraceFormat::Json)
    out.outputs = withFormats(out.outputs, opt.formats);
  setRenderThreads(opt, run.source, run.comm.rank(), out.outputs, gathered.all, local, ctx);
  ctx.hosts = plan.hosts;
  if (opt.showPlan && run.root()) printRenderPlan(out.outputs, plan.hosts);
  // A job on one node of the PyTorch family (a single-GPU trace): nothing to say.
  const bool oneNode = topology.nodeWords && ctx.job.shape.trainers == 1;
  if (ctx.job.shape.trainers % topology.groupSize != 0 && !oneNode)
    run.log("note: " + std::to_string(ctx.job.shape.trainers) +
            (topology.nodeWords ? " nodes" : " trainers") + " is not a multiple of --group-size " +
            std::to_string(topology.groupSize) + "; the last group is partial (see otherData)");
  return out;
}

}  // namespace xstack
