// `xstack synth`: a realistic sample data set in docs/FORMAT.md's layout, the same
// bytes for the same options and seed:
//   profile/profile_rank.<R>   real protobuf Profiles (forward/backward
//                              markers, CPU ops on several blocks and threads,
//                              CUDA API calls, kernels on several streams,
//                              memcpys with bytes, memory events in all three
//                              places, a few blocks never freed)
//   dcgm/dcgm.<T>, net/net.<T> per trainer; time/time.txt.<g>.<T> per rank
// Each trainer's clock is skewed by up to --skew-ns, and time files start
// before the profiles. --format kineto|paddle-json writes the --sync job as
// Chrome-trace JSON instead (app/ChromeTraceSynth.h).
#pragma once

#include "xstack/app/Cli.h"

namespace xstack {

// The `xstack report` command line for the data set `o` makes, e.g.
// "xstack report --data-dir /d --out /d-traces --gpus-per-trainer 2"
// (paths shell-quoted when they need it).
std::string reportCommandFor(const SynthOptions& o);

int runSynth(const SynthOptions& options);

}  // namespace xstack
