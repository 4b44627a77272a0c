// xstack: parse the command line, start MPI for `report`, run the command.
#include <malloc.h>

#include <csignal>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <vector>

#include "xstack/cmd/cli/Cli.h"
#include "xstack/cmd/diff/Diff.h"
#include "xstack/cmd/inspect/Inspect.h"
#include "xstack/cmd/report/Report.h"
#include "xstack/cmd/synth/Synth.h"
#include "xstack/comm/Comm.h"
#include "xstack/core/StageClock.h"
#include "xstack/core/TerminalText.h"

namespace {

// Before MPI starts: is this the first rank (or not under a launcher)?
bool firstRankByEnvironment() {
  for (const char* v : {"OMPI_COMM_WORLD_RANK", "PMIX_RANK", "PMI_RANK", "SLURM_PROCID"})
    if (const char* s = std::getenv(v)) return std::string(s) == "0";
  return true;
}

struct Run {
  int* argc;
  char*** argv;
  xstack::StageClock* clock;
  int operator()(const xstack::ReportOptions& o) const {
    auto comm = xstack::makeWorldComm(argc, argv);
    clock->mark("mpi_init");
    return xstack::runReport(*comm, o, clock);
  }
  int operator()(const xstack::SynthOptions& o) const { return xstack::runSynth(o); }
  int operator()(const xstack::InspectOptions& o) const { return xstack::runInspect(o); }
  int operator()(const xstack::DiffOptions& o) const { return xstack::runDiff(o); }
  int operator()(const xstack::HelpRequest& h) const {
    if (firstRankByEnvironment()) std::fputs(h.text.c_str(), stdout);
    return 0;
  }
  int operator()(const xstack::Failure& usage) const {
    if (firstRankByEnvironment())
      std::fprintf(stderr, "xstack: %s\n", xstack::terminalSafeLines(usage.message).c_str());
    return xstack::exitCodeFor(usage.kind);
  }
};

}  // namespace

int main(int argc, char** argv) {
  xstack::StageClock clock;  // from process start: the launch is the first stage
  clock.mark("launch");
  // Keep freed memory for reuse instead of returning it to the kernel: the
  // stages free and allocate buffers of the same sizes again and again
  // (decoded profiles, rendered pieces, received pieces), and a fresh page
  // costs a fault each time (see docs/PERFORMANCE.md).
  mallopt(M_MMAP_THRESHOLD, 32 << 20);  // the largest value glibc accepts
  mallopt(M_TRIM_THRESHOLD, 512 << 20);
  // One arena for every thread (--threads): memory one thread frees is reused
  // by the next, whichever thread allocates; with an arena per thread each
  // kept its own high-water mark of freed memory, and the rank's peak grew
  // with the threads past --memory-mb (docs/DESIGN.md, "Threads inside a rank").
  mallopt(M_ARENA_MAX, 1);
  // A full disk or a file size limit must be a write error we report, not a signal.
  std::signal(SIGXFSZ, SIG_IGN);
  std::signal(SIGPIPE, SIG_IGN);
  std::vector<std::string> args(argv + 1, argv + argc);
  return std::visit(Run{&argc, &argv, &clock}, xstack::parseCommandLine(args));
}
