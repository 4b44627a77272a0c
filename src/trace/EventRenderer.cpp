#include "xstack/trace/EventRenderer.h"

#include <algorithm>
#include <cstdio>
#include <cstring>
#include <numeric>
#include <utility>

#include "xstack/model/MemoryTrack.h"
#include "xstack/trace/EscapedNameTable.h"
#include "xstack/trace/RowBuckets.h"
#include "xstack/trace/TraceLayout.h"

namespace xstack {

EventRenderer::EventRenderer(TimeOrigin origin, Sink sink, size_t pieceBytes, std::string buffer)
    : origin_(origin), sink_(std::move(sink)), pieceBytes_(pieceBytes), buf_(std::move(buffer)) {
  buf_.clear();
  buf_.reserve(pieceBytes_ + 4096);
}

char* EventRenderer::writeTs(char* p, uint64_t ns) {
  bool clamped = false;
  uint64_t t = origin_.since(ns, &clamped);
  if (clamped) warnings_.add(ns == 0 ? "timestamp_zero" : "timestamp_before_origin");
  return writeMicros(p, t);
}

void EventRenderer::appendTs(uint64_t ns) {
  char text[24];
  buf_.append(text, writeTs(text, ns));
}

void EventRenderer::endEvent() {
  buf_.push_back('}');
  if (buf_.size() >= pieceBytes_) flush();
}

void EventRenderer::flush() {
  if (buf_.empty()) return;
  sink_(buf_);
  buf_.clear();
  if (buf_.capacity() < pieceBytes_) buf_.reserve(pieceBytes_ + 4096);
}

Warnings EventRenderer::takeWarnings() {
  warnings_.add("string_invalid_utf8", text_.invalidUtf8);
  warnings_.add("string_control_char", text_.controlChars);
  text_ = {};
  Warnings w;
  std::swap(w, warnings_);
  return w;
}

void EventRenderer::processMeta(int64_t pid, std::string_view name) {
  buf_ += ",\n{\"ph\":\"M\",\"name\":\"process_name\",\"pid\":";
  appendInt(buf_, pid);
  buf_ += ",\"args\":{\"name\":";
  appendJsonString(buf_, name, text_);
  buf_ += "}},\n{\"ph\":\"M\",\"name\":\"process_sort_index\",\"pid\":";
  appendInt(buf_, pid);
  buf_ += ",\"args\":{\"sort_index\":";
  appendInt(buf_, pid);
  buf_ += "}";
  endEvent();
}

void EventRenderer::threadMeta(int64_t pid, int64_t tid, std::string_view name) {
  buf_ += ",\n{\"ph\":\"M\",\"name\":\"thread_name\",\"pid\":";
  appendInt(buf_, pid);
  buf_ += ",\"tid\":";
  appendInt(buf_, tid);
  buf_ += ",\"args\":{\"name\":";
  appendJsonString(buf_, name, text_);
  buf_ += "}},\n{\"ph\":\"M\",\"name\":\"thread_sort_index\",\"pid\":";
  appendInt(buf_, pid);
  buf_ += ",\"tid\":";
  appendInt(buf_, tid);
  buf_ += ",\"args\":{\"sort_index\":";
  appendInt(buf_, tid);
  buf_ += "}";
  endEvent();
}

void EventRenderer::spans(int64_t rank, const std::vector<Span>& spans) {
  for (const Span& s : spans) {
    bool fwd = s.phase == Phase::Forward;
    buf_ += fwd ? ",\n{\"ph\":\"X\",\"cat\":\"pipeline\",\"name\":\"forward\",\"cname\":\"bad\","
                  "\"pid\":"
                : ",\n{\"ph\":\"X\",\"cat\":\"pipeline\",\"name\":\"backward\",\"cname\":\"good\","
                  "\"pid\":";
    appendInt(buf_, kPipelinePid);
    buf_ += ",\"tid\":";
    appendInt(buf_, rank);
    buf_ += ",\"ts\":";
    appendTs(s.startNs);
    buf_ += ",\"dur\":";
    appendMicros(buf_, s.endNs - s.startNs);
    buf_ += ",\"args\":{\"rank\":";
    appendInt(buf_, rank);
    buf_ += ",\"step\":";
    appendInt(buf_, s.step);
    buf_ += "}";
    endEvent();
  }
}

void EventRenderer::opEvent(int64_t pid, int64_t tid, const RowBuckets::Op& op,
                            std::string_view escapedName, const JsonTextStats& nameStats,
                            const RowBuckets::Extra* extra) {
  // The text between the name and args.name, formatted on the stack: five
  // numbers (at most 21 + 21 + 24 + 24 bytes) and the keys around them.
  static constexpr std::string_view kHead = ",\n{\"ph\":\"X\",\"cat\":\"Op\",\"name\":";
  auto put = [](char* p, std::string_view lit) {
    std::memcpy(p, lit.data(), lit.size());
    return p + lit.size();
  };
  char mid[192];
  char* p = put(mid, ",\"pid\":");
  p = writeInt(p, pid);
  p = put(p, ",\"tid\":");
  p = writeInt(p, tid);
  p = put(p, ",\"ts\":");
  p = writeTs(p, op.startNs);
  p = put(p, ",\"dur\":");
  if (op.endNs < op.startNs) {
    warnings_.add("event_end_before_start");
    *p++ = '0';
  } else {
    p = writeMicros(p, op.endNs - op.startNs);
  }
  p = put(p, ",\"args\":{\"name\":");
  text_.invalidUtf8 += nameStats.invalidUtf8;
  text_.controlChars += nameStats.controlChars;
  buf_.append(kHead);
  buf_.append(escapedName);
  buf_.append(mid, static_cast<size_t>(p - mid));
  buf_.append(escapedName);  // args.name repeats the name (docs/FORMAT.md section 3)
  if (extra && extra->memcopyBytes > 0) {
    buf_ += ",\"mem_bytes\":";
    appendUint(buf_, extra->memcopyBytes);
  }
  if (extra && !extra->detail.empty()) {
    buf_ += ",\"detail_info\":";
    appendJsonString(buf_, extra->detail, text_);
  }
  buf_ += "}";
  endEvent();
}

void EventRenderer::extraRows(const TraceExtraRows& rows) {
  if (rows.empty()) return;
  processMeta(rows.pid, rows.processName);
  bool anyTid = false;
  int64_t lastTid = 0;
  for (const TraceInstant& e : rows.instants) {
    if (!anyTid || e.tid != lastTid) {
      buf_ += ",\n{\"ph\":\"M\",\"name\":\"thread_name\",\"pid\":";
      appendInt(buf_, rows.pid);
      buf_ += ",\"tid\":";
      appendInt(buf_, e.tid);
      buf_ += ",\"args\":{\"name\":\"rank ";
      appendInt(buf_, e.tid);
      buf_ += "\"}}";
    }
    anyTid = true;
    lastTid = e.tid;
    buf_ += ",\n{\"ph\":\"i\",\"s\":\"t\",\"cat\":";
    appendJsonString(buf_, e.category, text_);
    buf_ += ",\"name\":";
    appendJsonString(buf_, e.name, text_);
    buf_ += ",\"pid\":";
    appendInt(buf_, rows.pid);
    buf_ += ",\"tid\":";
    appendInt(buf_, e.tid);
    buf_ += ",\"ts\":";
    appendMicros(buf_, e.tsNs);
    char score[32];
    std::snprintf(score, sizeof score, "%.4f", e.score);
    buf_ += std::string(",\"args\":{\"score\":") + score + ",\"evidence\":";
    appendJsonString(buf_, e.evidence, text_);
    buf_ += "}";
    endEvent();
  }
}

std::string opRowThreadName(RowKind kind, int64_t tid) {
  return (kind == RowKind::Gpu ? "stream " : "thread ") + std::to_string(tid);
}

void EventRenderer::rankRows(int64_t rank, int64_t pidBase, const std::vector<RowKey>& rows,
                             const ProfileData& data) {
  static thread_local RowBuckets buckets;  // reused: fresh pages are costly (PERFORMANCE.md)
  buckets.reset(rows);
  buckets.addAll(data);
  rankRows(rank, pidBase, rows, buckets);
}

void EventRenderer::rankRows(int64_t rank, int64_t pidBase, const std::vector<RowKey>& rows,
                             RowBuckets& b) {
  std::vector<MemoryTrack> tracks;
  bool tracksBuilt = false;
  const EscapedNameTable& names = b.names();
  for (size_t r = 0; r < rows.size(); ++r) {
    const int64_t pid = rankRowPid(pidBase, r);
    const RowKey& row = rows[r];
    processMeta(pid, rowProcessName(pid, rank, row));
    if (row.kind <= RowKind::Gpu) {
      for (const RowBuckets::Tid& t : b.tidsInOutputOrder(r, origin_)) {
        threadMeta(pid, t.tid, opRowThreadName(row.kind, t.tid));
        for (const RowBuckets::Op& op : t.ops)
          opEvent(pid, t.tid, op, names.escaped(op.nameId), names.stats(op.nameId),
                  op.extra ? &b.extras()[op.extra - 1] : nullptr);
      }
      continue;
    }
    if (!tracksBuilt) {
      Warnings counted;  // unknown place and never freed were counted in the summary
      tracks = buildMemoryTracks(b.memEvents(), counted);
      warnings_.add("memory_sum_overflow", counted.count("memory_sum_overflow"));
      tracksBuilt = true;
    }
    MemPlace place =
        static_cast<MemPlace>(static_cast<int>(row.kind) - static_cast<int>(RowKind::MemGpu));
    for (const MemoryTrack& t : tracks) {
      if (t.place != place || static_cast<int64_t>(t.device) != row.device) continue;
      for (const MemorySample& s : t.samples) {
        static constexpr std::string_view kHead = ",\n{\"ph\":\"C\",\"name\":\"Memory\",\"pid\":";
        static constexpr std::string_view kTs = ",\"ts\":",
                                          kArgs = ",\"args\":{\"allocated_bytes\":";
        char text[160];
        char* p = text;
        std::memcpy(p, kHead.data(), kHead.size());
        p = writeInt(p + kHead.size(), pid);
        std::memcpy(p, kTs.data(), kTs.size());
        p = writeTs(p + kTs.size(), s.ns);
        std::memcpy(p, kArgs.data(), kArgs.size());
        p = writeInt(p + kArgs.size(), s.allocatedBytes);
        *p++ = '}';
        buf_.append(text, static_cast<size_t>(p - text));
        endEvent();
      }
    }
  }
}

uint64_t dcgmCounterCount(int64_t pid, int64_t gpu, const std::vector<DcgmSample>& samples) {
  SeriesRange r = dcgmSeriesOfPid(pid);
  uint32_t mask = ((1u << r.count) - 1) << r.first;
  uint64_t n = 0;
  for (const DcgmSample& s : samples)
    if (s.gpu == gpu && (s.present & mask)) ++n;
  return n;
}

void EventRenderer::dcgmCounters(int64_t pid, int64_t gpu, int64_t id,
                                 const std::vector<DcgmSample>& samples) {
  SeriesRange r = dcgmSeriesOfPid(pid);
  const char* name = fixedProcessName(pid);
  for (uint32_t i : dcgmSamplesInOrder(samples, gpu, pid, origin_)) {
    const DcgmSample& s = samples[i];
    buf_ += ",\n{\"ph\":\"C\",\"name\":\"";
    buf_ += name;
    buf_ += "\",\"pid\":";
    appendInt(buf_, pid);
    buf_ += ",\"id\":";
    appendInt(buf_, id);
    buf_ += ",\"ts\":";
    appendTs(s.tsNs);
    buf_ += ",\"args\":{";
    bool first = true;
    for (int k = r.first; k < r.first + r.count; ++k) {
      if (!s.has(k)) continue;
      if (!first) buf_.push_back(',');
      first = false;
      buf_.push_back('"');
      buf_ += dcgmSeriesName(k);
      buf_ += "\":";
      appendDouble(buf_, s.values[static_cast<size_t>(k)]);
    }
    buf_ += "}";
    endEvent();
  }
}

uint64_t netCounterCount(int64_t pid, const std::vector<NetSample>& samples) {
  bool tx = pid == kNetTxPid;
  return static_cast<uint64_t>(std::count_if(samples.begin(), samples.end(),
                                             [&](const NetSample& s) { return s.tx == tx; }));
}

void EventRenderer::netCounters(int64_t pid, int64_t id, const std::vector<NetSample>& samples) {
  const char* name = fixedProcessName(pid);
  for (uint32_t i : netSamplesInOrder(samples, pid, origin_)) {
    const NetSample& s = samples[i];
    buf_ += ",\n{\"ph\":\"C\",\"name\":\"";
    buf_ += name;
    buf_ += "\",\"pid\":";
    appendInt(buf_, pid);
    buf_ += ",\"id\":";
    appendInt(buf_, id);
    buf_ += ",\"ts\":";
    appendTs(s.tsNs);
    buf_ += ",\"args\":{";
    for (size_t k = 0; k < s.args.size(); ++k) {
      if (k) buf_.push_back(',');
      appendJsonString(buf_, s.args[k].first, text_);
      buf_.push_back(':');
      buf_ += s.args[k].second;  // validated JSON number text
    }
    buf_ += "}";
    endEvent();
  }
}

}  // namespace xstack
