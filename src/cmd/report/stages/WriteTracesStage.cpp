#include "xstack/cmd/report/stages/ReportStages.h"
#include "xstack/render/TraceFileWriter.h"

namespace xstack {
namespace {

// The run's failure after a write that failed (on rank 0, the only rank that
// writes): rank 0's, or on the other ranks one that names it; nothing is committed.
Failure nothingWritten(const Expected<WriteResult>& written, const WriteContext& ctx) {
  Failure f = written.ok() ? Failure::write("rank 0 could not write the traces")
                                 .onRank(0, ctx.hosts.empty() ? std::string() : ctx.hosts[0])
                           : written.error();
  f.message += "; no trace file written, earlier files at these paths untouched";
  return f;
}

}  // namespace

Expected<WriteResult> writeTracesStage(ReportRun& run, RenderPlan& render,
                                       std::vector<AtomicFile>& extraFiles) {
  std::vector<TraceFileWriter> writers;  // rank 0: one per output, temporary until committed
  Expected<WriteResult> written = writeOutputs(run.comm, render.outputs, render.context, writers);
  run.progress.finish();
  run.clock.mark("write");
  if (!run.comm.allTrue(written.ok())) {
    writers.clear();  // removes the temporary files
    extraFiles.clear();
    return nothingWritten(written, render.context);
  }
  WriteResult& res = *written;
  run.clock.count("render_decodes", res.renderDecodes);
  run.clock.count("track_copies", res.trackCopies);
  std::vector<AtomicFile*> commitSet;  // rank 0: the traces, then the analysis files
  for (auto& w : writers) commitSet.push_back(&w.file());
  for (auto& f : extraFiles) commitSet.push_back(&f);
  Status committed;
  OutputCommit::Result commitResult;
  if (run.root()) committed = run.outCommit.commit(commitSet, commitResult);
  extraFiles.clear();
  if (!run.comm.allTrue(committed.ok()))
    return Failure::commit(committed.ok() ? std::string("commit failed")
                                          : committed.error().message)
        .onRank(0, {});
  res.outPath = commitResult.folderPath;
  if (commitResult.staleRemoved)
    run.log("removed " + std::to_string(commitResult.staleRemoved) +
            " earlier output files this run did not write (traceFile_*, analysis files) from " +
            res.outPath);
  for (const auto& kept : commitResult.staleKept)  // rc 3, never a silent mix
    res.commitProblems.push_back("cannot remove the earlier output file " + kept +
                                 "; it stays in --out and is not this run's");
  if (!commitResult.folderMoved.empty()) res.commitProblems.push_back(commitResult.folderMoved);
  for (const auto& p : res.commitProblems) run.log("failed: " + p);
  run.clock.mark("commit");
  return written;
}

}  // namespace xstack
