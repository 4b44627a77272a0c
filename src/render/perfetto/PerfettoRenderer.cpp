#include "xstack/render/perfetto/PerfettoRenderer.h"

#include <algorithm>
#include <charconv>
#include <cmath>
#include <cstdio>

#include "xstack/model/MemoryTrack.h"
#include "xstack/model/TraceLayout.h"
#include "xstack/render/NameTable.h"
#include "xstack/render/json/JsonRenderer.h"

namespace xstack {

using perfetto::CounterUnit;
using perfetto::DebugArg;

void PerfettoTraceSink::span(int64_t rank, const Span& s, uint64_t tsNs) {
  const bool fwd = s.phase == Phase::Forward;
  const DebugArg args[] = {DebugArg::ofInt("rank", rank), DebugArg::ofInt("step", s.step)};
  enc_.slice(kPipelinePid, rankThreadTid(rank), fwd ? "forward" : "backward", "pipeline", tsNs,
             s.endNs - s.startNs, args);
}

void PerfettoTraceSink::rankRowsBegin(const OpStore& store) { store_ = &store; }

void PerfettoTraceSink::ops(int64_t pid, int64_t tid, std::span<const OpView> ops) {
  const NameTable& names = store_->names();
  perfetto::PerfettoSequenceEncoder::OpSlice s;
  for (const OpView& op : ops) {
    s.nameId = op.nameId;
    s.name = names.raw(op.nameId);
    s.tsNs = op.tsNs;
    s.durNs = op.durNs;
    s.memBytes = 0;  // 0: no mem_bytes annotation, as in the JSON
    s.detail = {};
    s.flow = {op.flow == FlowEnd::None ? 0 : op.flowId, op.flow == FlowEnd::In};
    if (op.extra) {
      const OpExtra& extra = store_->extras()[op.extra - 1];
      s.memBytes = extra.memcopyBytes;
      s.detail = extra.detail;
    }
    enc_.opSlice(pid, tid, s);
  }
}

void PerfettoTraceSink::memorySample(int64_t pid, std::string_view counterName, uint64_t tsNs,
                                     int64_t allocatedBytes) {
  enc_.counter(pid, counterName, std::nullopt, "allocated_bytes", tsNs, allocatedBytes,
               CounterUnit{CounterUnit::Builtin::SizeBytes, {}});
}

void PerfettoTraceSink::rankRowsEnd() { store_ = nullptr; }

namespace {

// DCGM series: NVLink/PCIe rates in bytes/s, the others ratios (0..1).
CounterUnit dcgmUnit(int series) {
  const std::string_view name = dcgmSeriesName(series);
  const bool rate = name == "NVLTX" || name == "NVLRX" || name == "PCITX" || name == "PCIRX";
  return CounterUnit{CounterUnit::Builtin::Unspecified, rate ? "bytes/s" : "ratio"};
}

}  // namespace

void PerfettoTraceSink::dcgmSample(int64_t pid, std::string_view counterName, uint64_t tsNs,
                                   const GpuTelemetrySample& s, SeriesRange range) {
  for (int k = range.first; k < range.first + range.count; ++k) {
    if (!s.has(k)) continue;
    double v = s.values[static_cast<size_t>(k)];
    if (!std::isfinite(v)) v = 0;  // as the JSON writes it
    enc_.counter(pid, counterName, std::nullopt, dcgmSeriesName(k), tsNs, v, dcgmUnit(k));
  }
}

void PerfettoTraceSink::netSample(int64_t pid, std::string_view counterName, uint64_t tsNs,
                                  const NetCounterSample& s) {
  // The net log says nothing of its values' unit (docs/FORMAT.md section 1): none is claimed.
  const CounterUnit unit{CounterUnit::Builtin::Unspecified, {}};
  for (const auto& [key, text] : s.args) {
    // The value is validated JSON number text: integers stay integers.
    int64_t iv = 0;
    const char* end = text.data() + text.size();
    if (auto r = std::from_chars(text.data(), end, iv); r.ec == std::errc() && r.ptr == end) {
      enc_.counter(pid, counterName, std::nullopt, key, tsNs, iv, unit);
      continue;
    }
    double dv = 0;
    std::from_chars(text.data(), end, dv);
    enc_.counter(pid, counterName, std::nullopt, key, tsNs, dv, unit);
  }
}

void PerfettoTraceSink::instantThread(int64_t pid, int64_t tid) {
  enc_.thread(pid, rankThreadTid(tid), "rank " + std::to_string(tid), rankThreadTid(tid));
}

void PerfettoTraceSink::instant(int64_t pid, const TraceInstant& e) {
  char score[32];
  std::snprintf(score, sizeof score, "%.4f", e.score);
  const DebugArg args[] = {DebugArg::ofDouble("score", std::strtod(score, nullptr)),
                           DebugArg::ofString("evidence", e.evidence)};
  enc_.instant(pid, rankThreadTid(e.tid), e.name, e.category, e.tsNs, args);
}

void PerfettoTraceSink::slice(int64_t pid, const TraceSlice& e) {
  std::vector<DebugArg> args;
  args.reserve(e.args.size());
  for (const TraceArg& a : e.args) {
    switch (a.type) {
      case TraceArg::Type::Int:
        args.push_back(DebugArg::ofInt(a.key, a.i));
        break;
      case TraceArg::Type::Uint:
        args.push_back(DebugArg::ofUint(a.key, a.u));
        break;
      case TraceArg::Type::Double:  // the JSON's 3 decimals
        args.push_back(
            DebugArg::ofDouble(a.key, std::strtod(threeDecimalsText(a.d).c_str(), nullptr)));
        break;
      case TraceArg::Type::String:
        args.push_back(DebugArg::ofString(a.key, a.s));
        break;
    }
  }
  enc_.slice(pid, e.tid, e.name, e.category, e.tsNs, e.durNs, args);
}

void PerfettoTraceSink::metadata(std::string_view otherDataJson, uint64_t originNs) {
  const DebugArg entries[] = {DebugArg::ofString("tool", "xstack"),
                              DebugArg::ofUint("time_origin_ns", originNs),
                              DebugArg::ofString("otherData", otherDataJson)};
  enc_.metadata(entries);
}

void PerfettoTraceSink::flush() {
  if (finished_) return;
  finished_ = true;
  enc_.finish();
}

Warnings PerfettoTraceSink::takeWarnings() {
  Warnings warnings;
  warnings.add(Warn::StringInvalidUtf8, enc_.textStats().invalidUtf8);
  return warnings;
}

}  // namespace xstack
