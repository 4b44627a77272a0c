#include "xstack/app/ReportStages.h"
#include "xstack/trace/TraceFileWriter.h"

namespace xstack {

Expected<WriteResult> writeTracesStage(ReportRun& run, RenderPlan& render,
                                       std::vector<TraceFileWriter>& extraFiles) {
  std::vector<TraceFileWriter> writers;  // rank 0: one per output, temporary until committed
  WriteResult res = writeOutputs(run.comm, render.outputs, render.context, writers);
  run.progress.finish();
  run.clock.mark("write");
  run.clock.count("render_decodes", res.renderDecodes);
  if (!run.comm.allTrue(res.ok)) {
    writers.clear();  // removes the temporary files
    extraFiles.clear();
    return Failure::write(res.error +
                          "; no trace file written, earlier files at these paths untouched")
        .onRank(0, {});
  }
  for (auto& f : extraFiles) writers.push_back(std::move(f));
  extraFiles.clear();
  Status committed;
  OutputCommit::Result commitResult;
  if (run.root()) committed = run.outCommit.commit(writers, commitResult);
  if (!run.comm.allTrue(committed.ok()))
    return Failure::commit(committed.ok() ? std::string("commit failed")
                                          : committed.error().message)
        .onRank(0, {});
  if (commitResult.staleRemoved)
    run.log("removed " + std::to_string(commitResult.staleRemoved) +
            " earlier output files this run did not write (traceFile_*, analysis files) from " +
            run.options.outDir);
  for (const auto& n : commitResult.notes) run.log("warning: " + n);
  run.clock.mark("commit");
  return res;
}

}  // namespace xstack
