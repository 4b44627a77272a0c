// libFuzzer target: the profile reader end to end. Any bytes are decoded;
// whatever was decoded goes through marker pairing, rows, memory sums and
// rendering, and the rendered text must parse as JSON; the streaming render
// path must give the same text.
#include <cstdint>
#include <cstdlib>
#include <nlohmann/json.hpp>
#include <string>
#include <string_view>

#include "xstack/model/MarkerPairer.h"
#include "xstack/model/MemoryTrack.h"
#include "xstack/model/RankRows.h"
#include "xstack/render/RowBuckets.h"
#include "xstack/render/json/JsonRenderer.h"
#include "xstack/source/paddle/WireEvents.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  using namespace xstack;
  std::string_view bytes(reinterpret_cast<const char*>(data), size);
  EventList d;  // the neutral events (source/paddle/WireEvents.h)
  Warnings w;
  Status r = decodeProfileEvents(bytes, d, {&w, "fuzz"});
  if (!r.ok() && r.error().offset.value_or(UINT64_MAX) > size) std::abort();
  MarkerPairer pairer;
  for (const StepMark& m : d.marks) pairer.add(m);
  std::vector<Span> spans = pairer.pair(w);
  for (const Span& s : spans)
    if (s.endNs < s.startNs) std::abort();
  std::vector<RowKey> rows = rankRows(d);
  std::string text;
  // An origin in the middle of the range exercises clamping.
  TimeOrigin origin{d.slices.empty() ? 0 : d.slices[0].startNs};
  JsonRenderer renderer(
      origin, [&](std::string_view t) { text.append(t); }, 1024);
  renderer.spans(3, spans);
  renderer.rankRows(3, 8, rows, d);
  renderer.flush();
  // The streaming path (what report does): decoded straight into row buckets,
  // it must render the same bytes as the kept EventList.
  std::string streamed;
  {
    RowBuckets buckets;
    buckets.reset(rows);
    Status r2 = decodeProfileEvents(bytes, buckets);
    if (r2.ok() != r.ok() || r2.error().offset != r.error().offset) std::abort();
    JsonRenderer again(
        origin, [&](std::string_view t) { streamed.append(t); }, 1024);
    again.spans(3, spans);
    again.rankRows(3, 8, rows, buckets);
    again.flush();
  }
  if (streamed != text) std::abort();
  std::string doc = "[" + (text.empty() ? std::string() : text.substr(1)) + "]";
  auto parsed = nlohmann::json::parse(doc, nullptr, /*allow_exceptions=*/false);
  if (parsed.is_discarded()) std::abort();
  for (const auto& e : parsed)
    if (e.contains("ts") && e["ts"].get<double>() < 0) std::abort();
  return 0;
}
