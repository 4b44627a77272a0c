#include "xstack/app/Report.h"

#include <unistd.h>

#include <chrono>
#include <cstdio>
#include <exception>
#include <filesystem>
#include <map>
#include <set>
#include <stdexcept>
#include <tuple>

#include "xstack/app/AnalysisStage.h"
#include "xstack/app/Progress.h"
#include "xstack/app/ReadStage.h"
#include "xstack/app/WriteStage.h"
#include "xstack/core/FaultInjection.h"
#include "xstack/dist/Plan.h"
#include "xstack/dist/RenderAssignment.h"
#include "xstack/trace/OutputPlan.h"
#include "xstack/trace/TraceFileWriter.h"

namespace fs = std::filesystem;

namespace xstack {
namespace {

// Messages from rank 0 only, prefixed "xstack: ".
struct Log {
  bool root;
  void operator()(const std::string& s) const {
    if (root) std::fprintf(stderr, "xstack: %s\n", s.c_str());
  }
};

Status prepareOutDir(const std::string& out) {
  std::error_code ec;
  fs::create_directories(out, ec);
  if (!fs::is_directory(out))
    return Error{"--out " + out + ": not a folder and cannot be created" +
                 (ec ? ": " + ec.message() : std::string())};
  if (::access(out.c_str(), W_OK | X_OK) != 0)
    return Error{"--out " + out + ": folder not writable"};
  return {};
}

std::string humanBytes(uint64_t b) {
  char buf[64];
  if (b >= (uint64_t{1} << 30))
    std::snprintf(buf, sizeof buf, "%.2f GiB", b / 1073741824.0);
  else if (b >= (1u << 20))
    std::snprintf(buf, sizeof buf, "%.1f MiB", b / 1048576.0);
  else
    std::snprintf(buf, sizeof buf, "%llu bytes", static_cast<unsigned long long>(b));
  return buf;
}

// collective: rank 0 prints every rank's stage times.
void printTimings(Comm& comm, const StageClock& clk) {
  std::vector<std::string> all = comm.allgather(clk.encode());
  if (comm.rank() != 0) return;
  for (size_t r = 0; r < all.size(); ++r) {
    std::string line;
    double wall = 0, cpu = 0;
    char buf[96];
    for (const StageTime& t : StageClock::decode(all[r])) {
      std::snprintf(buf, sizeof buf, " %s %.3f/%.3f", t.stage.c_str(), t.wallSeconds, t.cpuSeconds);
      line += buf;
      wall += t.wallSeconds;
      cpu += t.cpuSeconds;
    }
    std::fprintf(stderr, "xstack: timings rank %zu (wall/cpu s):%s total %.3f/%.3f\n", r,
                 line.c_str(), wall, cpu);
  }
}

}  // namespace

int runReport(Comm& comm, const ReportOptions& opt, StageClock* clock) {
  const auto t0 = std::chrono::steady_clock::now();
  StageClock ownClock;
  StageClock& clk = clock ? *clock : ownClock;
  const bool root = comm.rank() == 0;
  Log log{root};
  comm.setChunkBytes(opt.mpiChunkBytes);

  // Stage 1-2: discover and plan.
  InputDirs dirs = resolveInputDirs(opt.dataDir, opt.dirs);
  InputListing listing;
  try {
    if (faultInjected("list", comm.rank())) throw std::runtime_error("injected listing fault");
    listing = listInputs(dirs);
  } catch (const std::exception& e) {  // this rank contributes no files; the others go on
    listing = InputListing{};
    listing.skipped.push_back("rank " + std::to_string(comm.rank()) +
                              ": listing failed: " + e.what());
  }
  clk.mark("list");
  Plan plan = gatherPlan(comm, listing);
  clk.mark("plan");
  if (!plan.anyProfileDir) {
    log("profile folder " + dirs.profile +
        " not found on any rank (give --data-dir or --profile-dir)");
    return kExitUsage;
  }
  for (const auto& s : plan.skipped) log("skipped: " + s);
  bool listingFailed = !listing.skipped.empty() &&
                       listing.skipped.back().rfind("rank ", 0) == 0;  // see the catch above
  if (!plan.conflicts.empty()) {
    for (const auto& c : plan.conflicts) log("error: " + c);
    log("fatal: conflicting input files; nothing written");
    return kExitFatal;
  }
  // Output folder: checked by rank 0 before anything is read.
  Status outOk = root ? prepareOutDir(opt.outDir) : Status{};
  if (!comm.allTrue(outOk.ok())) {
    log("fatal: " +
        (outOk.ok() ? std::string("output folder check failed") : outOk.error().message));
    return kExitFatal;
  }
  size_t profiles = 0;
  for (const auto& f : plan.files) profiles += f.file.kind == InputKind::Profile;
  if (profiles == 0) {
    log("fatal: no profile files (<name>.<rank>) in " + dirs.profile + " on any rank");
    return kExitFatal;
  }
  if (opt.showPlan && root)
    for (const auto& f : plan.files)
      std::fprintf(stderr, "xstack: plan: %s %s %llu bytes -> rank %d on %s\n",
                   kindName(f.file.kind), f.file.path.c_str(),
                   static_cast<unsigned long long>(f.file.bytes), f.reader, f.readerHost.c_str());

  // Stage 3-4: read and compute, locally.
  Progress progress(stderr, root && opt.progress);
  ReadOptions ro{opt.topology, opt.cacheBytes, opt.analysis};
  std::vector<LocalInput> local;
  std::string readError;
  try {
    uint64_t mine = 0, done = 0;
    for (const auto& f : plan.files) mine += f.reader == comm.rank();
    local = readAssigned(plan, comm.rank(), ro,
                         [&](const LocalInput&) { progress.update("read", ++done, mine); });
  } catch (const std::exception& e) {
    readError =
        "rank " + std::to_string(comm.rank()) + " on " + comm.host() + ": read failed: " + e.what();
  }
  progress.finish();
  clk.mark("read");
  if (!comm.allTrue(readError.empty())) {
    if (!readError.empty()) std::fprintf(stderr, "xstack: %s\n", readError.c_str());
    log("fatal: reading failed on some rank; nothing written");
    return kExitFatal;
  }

  // Gather the summaries (collective): every rank learns the whole layout.
  std::vector<InputSummary> mineSummaries;
  for (const auto& in : local) mineSummaries.push_back(in.summary);
  std::vector<std::string> blobs = comm.allgather(encodeSummaries(mineSummaries));
  std::vector<InputSummary> all;
  size_t firstLocal = 0;
  for (int r = 0; r < comm.size(); ++r) {
    if (r == comm.rank()) firstLocal = all.size();
    for (auto& s : decodeSummaries(blobs[static_cast<size_t>(r)])) all.push_back(std::move(s));
  }
  blobs.clear();
  clk.mark("gather");

  WriteContext ctx;
  ctx.all = &all;
  ctx.local = &local;
  ctx.firstLocal = firstLocal;
  ctx.topology = opt.topology;
  ctx.shape = jobShape(all, opt.topology);
  ctx.pieceBytes = opt.pieceBytes;
  ctx.outDir = opt.outDir;
  ctx.compress = opt.compress;
  ctx.fsync = opt.fsync;
  if (opt.timeOriginNs) {
    ctx.origin.ns = *opt.timeOriginNs;
    ctx.originFromOption = true;
  } else {
    MinTimestamp m;
    for (const auto& s : all) m.add(s.minTs);
    ctx.origin.ns = m.value;
  }
  ctx.onProgress = [&](uint64_t done, uint64_t total) { progress.update("write", done, total); };
  std::vector<OutputFile> outputs = planOutputs(all, opt.topology);
  if (opt.cacheBytes == 0) {
    // Who may render each displayed profile's rows: every rank that sees its
    // file. (With --cache-mb the reader keeps the profile: it renders it.)
    std::map<std::tuple<int, int64_t, int64_t>, const std::vector<int>*> seersOf;
    for (const auto& f : plan.files)
      seersOf[{static_cast<int>(f.file.kind), f.file.id, f.file.gpu}] = &f.seers;
    std::vector<std::vector<int>> seers(all.size());
    for (size_t i = 0; i < all.size(); ++i) {
      auto it = seersOf.find({static_cast<int>(all[i].file.kind), all[i].file.id, all[i].file.gpu});
      if (it != seersOf.end()) seers[i] = *it->second;
    }
    assignRenderers(outputs, all, seers, comm.size());
  }
  ctx.hosts = plan.hosts;
  if (opt.showPlan && root)
    for (const OutputFile& o : outputs)
      for (const Chunk& c : o.chunks)
        if (c.kind == ChunkKind::RankRows)
          std::fprintf(stderr, "xstack: render plan: rows of rank %lld in %s -> rank %d on %s\n",
                       static_cast<long long>(c.subject), o.fileName().c_str(), c.owner,
                       plan.hosts[static_cast<size_t>(c.owner)].c_str());
  if (ctx.shape.trainers % opt.topology.groupSize != 0)
    log("note: " + std::to_string(ctx.shape.trainers) +
        " trainers is not a multiple of --group-size " + std::to_string(opt.topology.groupSize) +
        "; the last group is partial (see otherData)");

  // Analysis (collective): findings known before the traces are written.
  GatheredAnalysisPtr gathered;
  if (opt.analysis) gathered = gatherAnalysis(comm, local, opt.topology);
  ctx.extraEvents = [&](const OutputFile& o, int64_t pid) {
    return findingEventsFor(gathered.get(), o.group, o.gpu, pid, ctx.origin.ns);
  };
  clk.mark("analysis");

  // Stage 5-6: render, gather, write.
  std::vector<TraceFileWriter> writers;
  WriteResult res = writeOutputs(comm, outputs, ctx, writers);
  progress.finish();
  clk.mark("write");
  if (!comm.allTrue(res.ok)) {
    writers.clear();  // removes the temporary files
    log("fatal: " + res.error + "; no trace file written, earlier files at these paths untouched");
    return kExitFatal;
  }
  Status committed;
  if (root)
    for (auto& w : writers)
      if (committed.ok()) committed = w.commit();
  if (!comm.allTrue(committed.ok())) {
    log("fatal: " + (committed.ok() ? std::string("commit failed") : committed.error().message));
    return kExitFatal;
  }
  clk.mark("commit");
  AnalysisResult analysis = writeAnalysis(gathered.get(), ctx.origin.ns, opt.outDir);  // rank 0
  clk.mark("analysis_files");
  if (opt.timings) printTimings(comm, clk);

  // Summary.
  bool partial = !res.renderProblems.empty() || listingFailed || !analysis.written.ok();
  if (!analysis.written.ok()) log("analysis not written: " + analysis.written.error().message);
  if (!ctx.shape.missingRanks.empty()) {
    std::string m;
    for (int64_t r : ctx.shape.missingRanks) m += (m.empty() ? "" : " ") + std::to_string(r);
    log("note: no profile for ranks " + m + " (below the highest rank found)");
  }
  std::map<std::string, uint64_t> byKind;
  uint64_t events = 0;
  std::set<std::string> hosts;
  std::set<int> readers;
  Warnings warnings;
  for (const auto& s : all) {
    byKind[kindName(s.file.kind)]++;
    events += s.events + s.memEvents;
    hosts.insert(s.readerHost);
    readers.insert(s.reader);
    warnings.merge(s.warnings);
    if (s.status != InputStatus::Ok) {
      partial = true;
      log(std::string(statusName(s.status)) + ": " + kindName(s.file.kind) + " " + s.file.path +
          " (read by rank " + std::to_string(s.reader) + " on " + s.readerHost + "): " + s.problem);
    }
  }
  for (const auto& p : std::set<std::string>(res.renderProblems.begin(), res.renderProblems.end()))
    log("render failed: " + p);
  double secs = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  std::string kinds;
  for (const auto& [k, n] : byKind)
    kinds += (kinds.empty() ? "" : ", ") + std::to_string(n) + " " + k;
  char line[512];
  std::snprintf(line, sizeof line, "wrote %llu trace files (%s) to %s in %.2f s",
                static_cast<unsigned long long>(res.filesWritten),
                humanBytes(res.bytesWritten).c_str(), opt.outDir.c_str(), secs);
  log(line);
  log("inputs: " + kinds + "; " + std::to_string(events) + " events; " +
      std::to_string(comm.size()) + " MPI ranks on " + std::to_string(hosts.size()) +
      " hosts read them");
  warnings.merge(res.warnings);
  if (!warnings.empty()) {
    std::string w;
    for (const auto& [k, e] : warnings.entries())
      w += (w.empty() ? "" : ", ") + k + " " + std::to_string(e.count);
    log("warnings: " + w);
  }
  for (const std::string& l : analysis.lines) log(l);
  return comm.allTrue(!partial) ? kExitOk : kExitPartial;
}

}  // namespace xstack
