#include "xstack/wire/WarningsWire.h"

namespace xstack::wire {

void writeWarnings(Writer& w, const Warnings& warnings, bool withExamples) {
  w.u64(warnings.entries().size());
  for (const auto& [kind, entry] : warnings.entries()) {
    w.str(warnName(kind));
    w.u64(entry.count);
    if (withExamples) w.strings(entry.examples);
  }
}

Warnings readWarnings(Reader& r, bool withExamples, std::string& unknownKind) {
  Warnings out;
  const uint64_t n = r.count(2);  // a name's length and a count, at least
  for (uint64_t i = 0; i < n && r.ok(); ++i) {
    const std::string name = r.str();
    const uint64_t count = r.u64();
    const std::vector<std::string> examples =
        withExamples ? r.strings() : std::vector<std::string>{};
    if (!r.ok()) break;
    const Expected<Warn> kind = warnByName(name);
    if (!kind) {
      if (unknownKind.empty()) unknownKind = kind.error().message;
      continue;
    }
    out.add(*kind, count);
    for (const std::string& x : examples) out.addExample(*kind, x);
  }
  return out;
}

}  // namespace xstack::wire
