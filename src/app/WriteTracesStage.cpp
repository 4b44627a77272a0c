#include "xstack/app/ReportStages.h"
#include "xstack/trace/TraceFileWriter.h"

namespace xstack {

Outcome<WriteResult> writeTracesStage(ReportRun& run, RenderPlan& render) {
  std::vector<TraceFileWriter> writers;  // rank 0: one per output, temporary until committed
  WriteResult res = writeOutputs(run.comm, render.outputs, render.context, writers);
  run.progress.finish();
  run.clock.mark("write");
  if (!run.comm.allTrue(res.ok)) {
    writers.clear();  // removes the temporary files
    return Failure{FailureKind::Write,
                   {},
                   0,
                   {},
                   res.error + "; no trace file written, earlier files at these paths untouched"};
  }
  Status committed;
  if (run.root())
    for (auto& w : writers)
      if (committed.ok()) committed = w.commit();
  if (!run.comm.allTrue(committed.ok()))
    return Failure{FailureKind::Commit,
                   {},
                   0,
                   {},
                   committed.ok() ? std::string("commit failed") : committed.error().message};
  run.clock.mark("commit");
  return res;
}

}  // namespace xstack
