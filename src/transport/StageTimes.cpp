#include "xstack/transport/StageTimes.h"

namespace xstack {

StageTimes stageTimesOf(const StageClock& clock) { return {clock.stages(), clock.counts()}; }

void writeStageTimes(wire::Writer& w, const StageTimes& t) {
  w.list(t.stages, [](wire::Writer& x, const StageTime& s) {
    x.str(s.stage);
    x.f64(s.wallSeconds);
    x.f64(s.cpuSeconds);
  });
  w.list(t.counts, [](wire::Writer& x, const std::pair<std::string, uint64_t>& c) {
    x.str(c.first);
    x.u64(c.second);
  });
}

StageTimes readStageTimes(wire::Reader& r) {
  StageTimes t;
  r.list(t.stages, [](wire::Reader& x) {
    StageTime s;
    s.stage = x.str();
    s.wallSeconds = x.f64();
    s.cpuSeconds = x.f64();
    return s;
  });
  r.list(t.counts, [](wire::Reader& x) {
    std::string name = x.str();
    return std::pair(std::move(name), x.u64());
  });
  return t;
}

}  // namespace xstack
