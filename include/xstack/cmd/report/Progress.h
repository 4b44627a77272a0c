// Progress on stderr for long runs (rank 0 only): a redrawn bar on a
// terminal, otherwise one line every few seconds (readable in a Slurm log).
#pragma once

#include <chrono>
#include <cstdint>
#include <cstdio>
#include <string>

namespace xstack {

class Progress {
 public:
  Progress(std::FILE* out, bool enabled);
  // `what` names the stage ("read", "write").
  void update(const char* what, uint64_t done, uint64_t total);
  void finish();

 private:
  using Clock = std::chrono::steady_clock;
  std::FILE* out_;
  bool enabled_, tty_, drawn_ = false;
  Clock::time_point start_, last_;
};

}  // namespace xstack
