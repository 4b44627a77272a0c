#include "xstack/model/MarkerPairer.h"

#include <algorithm>
#include <optional>

namespace xstack {

namespace {

std::string markerExample(const std::string& where, const StepMark& m, const char* what) {
  return where + ": ts " + std::to_string(m.ts) + " ns: marker_" +
         (m.phase == Phase::Forward ? "forward" : "backward") + (m.begin ? "_B, " : "_E, ") + what;
}

}  // namespace

std::vector<Span> MarkerPairer::pair(Warnings& warnings, const std::string& where) {
  std::stable_sort(markers_.begin(), markers_.end(),
                   [](const StepMark& a, const StepMark& b) { return a.ts < b.ts; });
  std::optional<StepMark> open[2];
  std::vector<Span> spans;
  int64_t forwards = 0;
  for (const StepMark& m : markers_) {
    auto& slot = open[static_cast<int>(m.phase)];
    if (m.begin) {
      if (slot)
        warnings.add(Warn::MarkerReplacedBegin, 1,
                     markerExample(where, *slot, "replaced by a later begin"));
      slot = m;
      continue;
    }
    if (!slot) {
      warnings.add(Warn::MarkerUnmatchedEnd, 1, markerExample(where, m, "no begin"));
      continue;
    }
    spans.push_back(Span{m.phase, 0, slot->ts, m.ts});
    slot.reset();
  }
  for (const auto& s : open)
    if (s) warnings.add(Warn::MarkerUnmatchedBegin, 1, markerExample(where, *s, "no end"));
  std::stable_sort(spans.begin(), spans.end(), [](const Span& a, const Span& b) {
    if (a.startNs != b.startNs) return a.startNs < b.startNs;
    return a.phase < b.phase;
  });
  int64_t lastForwardStep = 0;
  for (Span& s : spans) {
    if (s.phase == Phase::Forward) {
      s.step = forwards++;
      lastForwardStep = s.step;
    } else {
      s.step = lastForwardStep;
    }
  }
  markers_.clear();
  return spans;
}

}  // namespace xstack
