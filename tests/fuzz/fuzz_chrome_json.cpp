// libFuzzer target: arbitrary bytes as a Chrome-trace JSON file (plain, or
// gzip when they start with 1f 8b). Must never crash; every arg's raw value
// text (re-emitted verbatim into traces) must parse back as one JSON value
// (once bytes >= 0x80 and control bytes are masked: the reader keeps string
// bytes as they are, the writers escape them);
// reading in 3-byte pieces must give the same events and the same outcome as
// one big piece (chunk boundaries anywhere); the sniff must not crash; the
// events' meaning (ChromeEventMapper) must give rows the model allows: GPU
// rows of a device >= 0, memory blocks of > 0 bytes.
#include <cstdint>
#include <cstdlib>
#include <nlohmann/json.hpp>
#include <string>
#include <string_view>
#include <vector>

#include "xstack/source/chrome/ChromeEvents.h"
#include "xstack/source/chrome/TraceReader.h"

namespace {

using namespace xstack::chrome;

std::string fingerprint(const TraceEvent& e) {
  std::string s(1, e.ph);
  s.append(e.name).append("|").append(e.cat).append("|").append(e.pid.text).append("|");
  s += std::to_string(e.ts.ns) + "|" + std::to_string(e.dur.ns) + "|" + std::to_string(e.offset);
  for (const Arg& a : e.args) s.append(a.key).append("=").append(a.rawValue).append(";");
  return s;
}

struct Run {
  ReadResult result;
  std::vector<std::string> events;
};

Run readIn(std::string_view bytes, uint64_t piece) {
  ReadOptions options;
  options.readBytes = piece;
  options.maxEventBytes = 4096;
  Run run;
  run.result = readTraceBytes(
      bytes, "fuzz.json",
      [&](const TraceEvent& e) {
        for (const Arg& a : e.args) {
          std::string masked(a.rawValue);
          for (char& c : masked) {
            if (static_cast<unsigned char>(c) >= 0x80) c = 'a';
            if (static_cast<unsigned char>(c) < 0x20) c = ' ';
          }
          auto j = nlohmann::json::parse(masked, nullptr, /*allow_exceptions=*/false);
          if (j.is_discarded()) std::abort();
        }
        run.events.push_back(fingerprint(e));
      },
      options);
  return run;
}

// A slice's collective keeps CollectiveInfo's contract: unknown numbers are
// -1 (0 for size and bytes), never another negative; ranks are non-negative;
// a collective told by a kernel's name is in the default group.
void checkCollective(const xstack::SliceEvent& e) {
  const xstack::CollectiveInfo* c = e.collective;
  if (!c) return;
  if (c->groupSize < 0 || c->seq < -1 || c->inNelems < -1 || c->outNelems < -1 || c->peer < -1)
    std::abort();
  for (int64_t r : c->groupRanks)
    if (r < 0) std::abort();
  if (c->fromKernelName && (c->collective.empty() || !c->group.empty())) std::abort();
}

// The mapper over every event (any ph, cat and args), with a time base.
void mapAll(std::string_view bytes) {
  xstack::EventList out;
  xstack::Warnings warnings;
  ChromeEventMapper mapper(out, warnings, 1'700'000'000'000'000'000);
  readTraceBytes(bytes, "fuzz.json", [&](const TraceEvent& e) { mapper.onEvent(e); });
  mapper.finish();
  for (const xstack::SliceEvent& e : out.slices) {
    if (e.row.kind == xstack::RowKind::Gpu && e.row.device < 0) std::abort();
    checkCollective(e);
  }
  for (const xstack::MemoryEvent& m : out.memory)
    if (m.bytes == 0) std::abort();
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  std::string_view bytes(reinterpret_cast<const char*>(data), size);
  (void)sniffTrace(bytes);
  Run big = readIn(bytes, 1 << 16);
  Run small = readIn(bytes, 3);
  if (big.events != small.events) std::abort();
  if (big.result.ok() != small.result.ok()) std::abort();
  if (!big.result.ok() && big.result.error->kind != small.result.error->kind) std::abort();
  if (!big.result.ok() && big.result.error->offset != small.result.error->offset) std::abort();
  mapAll(bytes);
  return 0;
}
