#include "xstack/model/MarkerPairer.h"

#include <algorithm>
#include <optional>

namespace xstack {

namespace {

std::string markerExample(const std::string& where, const StepMark& m, const char* what) {
  return where + ": ts " + std::to_string(m.ts) + " ns: marker_" +
         (m.phase == Phase::Forward ? "forward" : "backward") + (m.begin ? "_B, " : "_E, ") + what;
}

// Whether the forward spans (ordered by start) take their marks' numbers:
// every one has a number and they increase. Some numbered and some not, or
// numbers that do not increase: warning step_number_ignored, positions.
bool useNumbers(const std::vector<Span>& spans, Warnings& warnings, const std::string& where) {
  size_t forwards = 0, numbered = 0;
  int64_t last = -1;
  bool increasing = true;
  const Span* bad = nullptr;
  for (const Span& s : spans) {
    if (s.phase != Phase::Forward) continue;
    ++forwards;
    if (s.number < 0) continue;
    ++numbered;
    if (s.number <= last && increasing) increasing = false, bad = &s;
    last = s.number;
  }
  if (numbered == 0) return false;
  if (numbered == forwards && increasing) return true;
  std::string what =
      numbered != forwards
          ? std::to_string(forwards - numbered) + " forward spans have no step number"
          : "step " + std::to_string(bad->number) + " does not follow the step before it";
  warnings.add(Warn::StepNumberIgnored, 1, where + ": " + what + "; steps numbered by position");
  return false;
}

int64_t firstForwardStep(const std::vector<Span>& spans) {
  for (const Span& s : spans)
    if (s.phase == Phase::Forward) return s.step;
  return 0;
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
    spans.push_back(Span{m.phase, 0, slot->ts, m.ts, slot->number});
    slot.reset();
  }
  for (const auto& s : open)
    if (s) warnings.add(Warn::MarkerUnmatchedBegin, 1, markerExample(where, *s, "no end"));
  std::stable_sort(spans.begin(), spans.end(), [](const Span& a, const Span& b) {
    if (a.startNs != b.startNs) return a.startNs < b.startNs;
    return a.phase < b.phase;
  });
  const bool numbered = useNumbers(spans, warnings, where);
  int64_t lastForwardStep = -1;
  for (Span& s : spans) {
    if (s.phase == Phase::Forward) {
      s.step = numbered ? s.number : forwards++;
      lastForwardStep = s.step;
    } else {
      s.step = lastForwardStep;
    }
  }
  const int64_t first = firstForwardStep(spans);
  for (Span& s : spans)
    if (s.step < 0) s.step = first;
  markers_.clear();
  return spans;
}

}  // namespace xstack
