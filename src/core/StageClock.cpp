#include "xstack/core/StageClock.h"

#include <time.h>
#include <unistd.h>

#include <fstream>
#include <sstream>

namespace xstack {
namespace {

double clockSeconds(clockid_t id) {
  timespec ts{};
  clock_gettime(id, &ts);
  return static_cast<double>(ts.tv_sec) + static_cast<double>(ts.tv_nsec) * 1e-9;
}

// Seconds since boot at which this process started (field 22 of
// /proc/self/stat, in clock ticks), or a negative value when unknown.
double processStartSinceBoot() {
  std::ifstream f("/proc/self/stat");
  std::string line;
  if (!std::getline(f, line)) return -1;
  auto close = line.rfind(')');  // the command name may hold spaces
  if (close == std::string::npos) return -1;
  std::istringstream in(line.substr(close + 2));
  std::string field;
  // Fields after the name start at field 3; starttime is field 22.
  for (int i = 3; i <= 22; ++i)
    if (!(in >> field)) return -1;
  long hz = sysconf(_SC_CLK_TCK);
  if (hz <= 0) return -1;
  return std::stod(field) / static_cast<double>(hz);
}

}  // namespace

StageClock::StageClock() {
  double start = processStartSinceBoot();
  double nowBoot = clockSeconds(CLOCK_BOOTTIME);
  double age = start >= 0 && nowBoot >= start ? nowBoot - start : 0;
  // Wall time is kept relative to process start.
  lastWall_ = 0;
  baseMono_ = clockSeconds(CLOCK_MONOTONIC) - age;
  lastCpu_ = 0;
}

double StageClock::elapsed() const { return clockSeconds(CLOCK_MONOTONIC) - baseMono_; }

void StageClock::mark(const std::string& stage) {
  double wall = elapsed();
  double cpu = clockSeconds(CLOCK_PROCESS_CPUTIME_ID);
  stages_.push_back({stage, wall - lastWall_, cpu - lastCpu_});
  lastWall_ = wall;
  lastCpu_ = cpu;
}

}  // namespace xstack
