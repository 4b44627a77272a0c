// Wall and CPU time per pipeline stage of one process (`report --timings`).
// Times are seconds (double). The clock starts when the process started
// (from /proc/self/stat, so the launcher's and MPI_Init's share is visible),
// falling back to the StageClock's construction.
#pragma once

#include <cstdint>
#include <string>
#include <utility>
#include <vector>

namespace xstack {

struct StageTime {
  std::string stage;
  double wallSeconds = 0;  // this stage's wall time
  double cpuSeconds = 0;   // this process's user + system CPU in the stage
};

class StageClock {
 public:
  StageClock();
  // Ends the current stage, naming it; the next stage starts now.
  void mark(const std::string& stage);
  const std::vector<StageTime>& stages() const { return stages_; }
  // A count of this process shown with its times (e.g. "render_decodes": the
  // profiles decoded for rendering); names are single words.
  void count(const std::string& name, uint64_t n) { counts_.emplace_back(name, n); }
  const std::vector<std::pair<std::string, uint64_t>>& counts() const { return counts_; }
  // Wall seconds from process start to now.
  double elapsed() const;

 private:
  double baseMono_ = 0;  // CLOCK_MONOTONIC at process start
  double lastWall_ = 0, lastCpu_ = 0;
  std::vector<StageTime> stages_;
  std::vector<std::pair<std::string, uint64_t>> counts_;
};

}  // namespace xstack
