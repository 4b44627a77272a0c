#include "xstack/render/json/JsonRenderer.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <numeric>
#include <utility>

#include "xstack/model/MemoryTrack.h"
#include "xstack/model/TraceLayout.h"
#include "xstack/render/NameTable.h"
#include "xstack/render/RowBuckets.h"

namespace xstack {

JsonTraceSink::JsonTraceSink(PieceSink pieces, size_t pieceBytes, std::string buffer)
    : pieces_(std::move(pieces)), pieceBytes_(pieceBytes), buf_(std::move(buffer)) {
  buf_.clear();
  buf_.reserve(pieceBytes_ + 4096);
}

void JsonTraceSink::endEvent() {
  buf_.push_back('}');
  if (buf_.size() >= pieceBytes_) flush();
}

void JsonTraceSink::flush() {
  if (buf_.empty()) return;
  pieces_(buf_);
  buf_.clear();
  if (buf_.capacity() < pieceBytes_) buf_.reserve(pieceBytes_ + 4096);
}

Warnings JsonTraceSink::takeWarnings() {
  Warnings warnings;
  warnings.add(Warn::StringInvalidUtf8, text_.invalidUtf8);
  warnings.add(Warn::StringControlChar, text_.controlChars);
  text_ = {};
  return warnings;
}

void JsonTraceSink::process(int64_t pid, std::string_view name) {
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

void JsonTraceSink::thread(int64_t pid, int64_t tid, std::string_view name, int64_t sortIndex) {
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
  appendInt(buf_, sortIndex);
  buf_ += "}";
  endEvent();
}

void JsonTraceSink::span(int64_t rank, const Span& s, uint64_t tsNs) {
  const bool fwd = s.phase == Phase::Forward;
  buf_ += fwd ? ",\n{\"ph\":\"X\",\"cat\":\"pipeline\",\"name\":\"forward\",\"cname\":\"bad\","
                "\"pid\":"
              : ",\n{\"ph\":\"X\",\"cat\":\"pipeline\",\"name\":\"backward\",\"cname\":\"good\","
                "\"pid\":";
  appendInt(buf_, kPipelinePid);
  buf_ += ",\"tid\":";
  appendInt(buf_, rankThreadTid(rank));
  buf_ += ",\"ts\":";
  appendMicros(buf_, tsNs);
  buf_ += ",\"dur\":";
  appendMicros(buf_, s.endNs - s.startNs);
  buf_ += ",\"args\":{\"rank\":";
  appendInt(buf_, rank);
  buf_ += ",\"step\":";
  appendInt(buf_, s.step);
  buf_ += "}";
  endEvent();
}

void JsonTraceSink::ops(int64_t pid, int64_t tid, std::span<const OpView> ops) {
  for (const OpView& op : ops) opEvent(pid, tid, op);
}

void JsonTraceSink::opEvent(int64_t pid, int64_t tid, const OpView& op) {
  // The text between the name and args.name, formatted on the stack: five
  // numbers (at most 21 + 21 + 24 + 24 bytes) and the keys around them.
  static constexpr std::string_view kHead = ",\n{\"ph\":\"X\",\"cat\":\"Op\",\"name\":";
  auto put = [](char* p, std::string_view lit) {
    std::memcpy(p, lit.data(), lit.size());
    return p + lit.size();
  };
  JsonTextStats nameFixes;
  const std::string_view escapedName = names_.text(op.nameId, nameFixes);
  char mid[192];
  char* p = put(mid, ",\"pid\":");
  p = writeInt(p, pid);
  p = put(p, ",\"tid\":");
  p = writeInt(p, tid);
  p = put(p, ",\"ts\":");
  p = writeMicros(p, op.tsNs);
  p = put(p, ",\"dur\":");
  p = writeMicros(p, op.durNs);
  p = put(p, ",\"args\":{\"name\":");
  text_.invalidUtf8 += nameFixes.invalidUtf8;  // once per event (name and args.name)
  text_.controlChars += nameFixes.controlChars;
  buf_.append(kHead);
  buf_.append(escapedName);
  buf_.append(mid, static_cast<size_t>(p - mid));
  buf_.append(escapedName);  // args.name repeats the name (docs/FORMAT.md section 3)
  const OpExtra* extra = op.extra ? &store_->extras()[op.extra - 1] : nullptr;
  if (extra && extra->memcopyBytes > 0) {
    buf_ += ",\"mem_bytes\":";
    appendUint(buf_, extra->memcopyBytes);
  }
  if (extra && !extra->detail.empty()) {
    buf_ += ",\"detail_info\":";
    appendJsonString(buf_, extra->detail, text_);
  }
  buf_ += "}";
  if (op.flow != FlowEnd::None) {
    // Flow v2 (docs/FORMAT.md section 3, "Flows"): bound to this very slice.
    buf_ += ",\"bind_id\":";
    appendUint(buf_, op.flowId);
    buf_ += op.flow == FlowEnd::Out ? ",\"flow_out\":true" : ",\"flow_in\":true";
  }
  endEvent();
}

void JsonTraceSink::memorySample(int64_t pid, std::string_view counterName, uint64_t tsNs,
                                 int64_t allocatedBytes) {
  static constexpr std::string_view kPid = ",\"pid\":";
  static constexpr std::string_view kTs = ",\"ts\":", kArgs = ",\"args\":{\"allocated_bytes\":";
  buf_ += ",\n{\"ph\":\"C\",\"name\":\"";
  buf_ += counterName;  // memoryCounterName: ASCII without quotes or backslashes
  buf_ += '"';
  char text[128];
  char* p = text;
  std::memcpy(p, kPid.data(), kPid.size());
  p = writeInt(p + kPid.size(), pid);
  std::memcpy(p, kTs.data(), kTs.size());
  p = writeMicros(p + kTs.size(), tsNs);
  std::memcpy(p, kArgs.data(), kArgs.size());
  p = writeInt(p + kArgs.size(), allocatedBytes);
  *p++ = '}';
  buf_.append(text, static_cast<size_t>(p - text));
  endEvent();
}

void JsonTraceSink::instantThread(int64_t pid, int64_t tid) {
  buf_ += ",\n{\"ph\":\"M\",\"name\":\"thread_name\",\"pid\":";
  appendInt(buf_, pid);
  buf_ += ",\"tid\":";
  appendInt(buf_, rankThreadTid(tid));
  buf_ += ",\"args\":{\"name\":\"rank ";
  appendInt(buf_, tid);
  buf_ += "\"}}";
}

void JsonTraceSink::eventHead(std::string_view open, std::string_view category,
                              std::string_view name, int64_t pid, int64_t tid, uint64_t tsNs) {
  buf_ += open;
  appendJsonString(buf_, category, text_);
  buf_ += ",\"name\":";
  appendJsonString(buf_, name, text_);
  // The numbers through one buffer: 7 + 21 + 7 + 21 + 6 + 24 bytes at most.
  char text[96];
  char* p = text;
  std::memcpy(p, ",\"pid\":", 7);
  p = writeInt(p + 7, pid);
  std::memcpy(p, ",\"tid\":", 7);
  p = writeInt(p + 7, tid);
  std::memcpy(p, ",\"ts\":", 6);
  p = writeMicros(p + 6, tsNs);
  buf_.append(text, p);
}

void JsonTraceSink::instant(int64_t pid, const TraceInstant& e) {
  eventHead(",\n{\"ph\":\"i\",\"s\":\"t\",\"cat\":", e.category, e.name, pid, rankThreadTid(e.tid),
            e.tsNs);
  char score[32];
  std::snprintf(score, sizeof score, "%.4f", e.score);
  buf_ += std::string(",\"args\":{\"score\":") + score + ",\"evidence\":";
  appendJsonString(buf_, e.evidence, text_);
  buf_ += "}";
  endEvent();
}

namespace {

// The longest arg key written without escaping (sliceArgText's room).
constexpr size_t kPlainKeyMax = 40;

// A key short enough for sliceArgText's room whose JSON text is itself.
bool plainKey(std::string_view key) { return key.size() <= kPlainKeyMax && jsonPlain(key); }

// `"key":value` of a number arg at p (room: kPlainKeyMax + 28: the key's
// quotes, the colon and at most 25 bytes of value), returning its end;
// nullptr (the caller's general path) when the key needs escaping or the
// value is a string or a double written otherwise.
char* sliceArgText(char* p, const TraceArg& a) {
  if (a.type == TraceArg::Type::String || !plainKey(a.key)) return nullptr;
  *p++ = '"';
  std::memcpy(p, a.key.data(), a.key.size());
  p += a.key.size();
  *p++ = '"';
  *p++ = ':';
  switch (a.type) {
    case TraceArg::Type::Int:
      return writeInt(p, a.i);
    case TraceArg::Type::Uint:
      return writeUint(p, a.u);
    case TraceArg::Type::Double:
      return writeThreeDecimals(p, a.d);  // nullptr when not finite or >= 2^53
    case TraceArg::Type::String:
      break;
  }
  return nullptr;
}

}  // namespace

void JsonTraceSink::sliceArg(const TraceArg& a, bool comma) {
  char text[kPlainKeyMax + 32];
  text[0] = ',';
  if (const char* end = sliceArgText(text + (comma ? 1 : 0), a)) {
    buf_.append(text, static_cast<size_t>(end - text));
    return;
  }
  if (comma) buf_ += ',';
  appendJsonString(buf_, a.key, text_);
  buf_ += ':';
  switch (a.type) {
    case TraceArg::Type::Int:
      appendInt(buf_, a.i);
      break;
    case TraceArg::Type::Uint:
      appendUint(buf_, a.u);
      break;
    case TraceArg::Type::Double:
      appendThreeDecimals(buf_, a.d);
      break;
    case TraceArg::Type::String:
      appendJsonString(buf_, a.s, text_);
      break;
  }
}

void JsonTraceSink::slice(int64_t pid, const TraceSlice& e) {
  eventHead(",\n{\"ph\":\"X\",\"cat\":", e.category, e.name, pid, e.tid, e.tsNs);
  char text[48];
  char* p = text;
  std::memcpy(p, ",\"dur\":", 7);
  p = writeMicros(p + 7, e.durNs);
  std::memcpy(p, ",\"args\":{", 9);
  buf_.append(text, p + 9);
  for (size_t i = 0; i < e.args.size(); ++i) sliceArg(e.args[i], i > 0);
  buf_ += "}";
  endEvent();
}

void JsonTraceSink::counterHead(int64_t pid, std::string_view counterName, uint64_t tsNs) {
  buf_ += ",\n{\"ph\":\"C\",\"name\":\"";
  buf_ += counterName;  // dcgmCounterName / netCounterName: ASCII without quotes
  buf_ += "\",\"pid\":";
  appendInt(buf_, pid);
  buf_ += ",\"ts\":";
  appendMicros(buf_, tsNs);
}

void JsonTraceSink::dcgmSample(int64_t pid, std::string_view counterName, uint64_t tsNs,
                               const GpuTelemetrySample& s, SeriesRange range) {
  counterHead(pid, counterName, tsNs);
  buf_ += ",\"args\":{";
  bool first = true;
  for (int k = range.first; k < range.first + range.count; ++k) {
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

void JsonTraceSink::netSample(int64_t pid, std::string_view counterName, uint64_t tsNs,
                              const NetCounterSample& s) {
  counterHead(pid, counterName, tsNs);
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

Warnings JsonRenderer::takeWarnings() {
  Warnings w = walk_.takeWarnings();
  w.merge(json_.takeWarnings());
  return w;
}

void JsonRenderer::rankRows(int64_t rank, int64_t pidBase, const std::vector<RowKey>& rows,
                            const EventList& events) {
  RowBuckets buckets;  // a test and inspect path: the streaming path fills its own
  buckets.reset(rows);
  buckets.addAll(events);
  walk_.rankRows(rank, pidBase, rows, buckets);
}

}  // namespace xstack
