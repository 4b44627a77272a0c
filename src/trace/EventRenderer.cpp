#include "xstack/trace/EventRenderer.h"

#include <algorithm>
#include <cstring>
#include <numeric>
#include <utility>

#include "xstack/model/MemoryTrack.h"
#include "xstack/trace/EscapedNameTable.h"
#include "xstack/trace/TraceLayout.h"

namespace xstack {

EventRenderer::EventRenderer(TimeOrigin origin, Sink sink, size_t pieceBytes, std::string buffer)
    : origin_(origin), sink_(std::move(sink)), pieceBytes_(pieceBytes), buf_(std::move(buffer)) {
  buf_.clear();
  buf_.reserve(pieceBytes_ + 4096);
}

void EventRenderer::appendTs(uint64_t ns) {
  bool clamped = false;
  uint64_t t = origin_.since(ns, &clamped);
  if (clamped) warnings_.add(ns == 0 ? "timestamp_zero" : "timestamp_before_origin");
  appendMicros(buf_, t);
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

void EventRenderer::opEvent(int64_t pid, const OpRecord& op, std::string_view escapedName,
                            const JsonTextStats& nameStats, const ProfileEvent* extra) {
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
  p = writeInt(p, op.tid);
  p = put(p, ",\"ts\":");
  bool clamped = false;
  p = writeMicros(p, origin_.since(op.startNs, &clamped));
  if (clamped) warnings_.add(op.startNs == 0 ? "timestamp_zero" : "timestamp_before_origin");
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
  buf_.append(escapedName);  // args.name repeats the name (SPEC section 3)
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

namespace {

// Stable: orders `ops` by tid, keeping the order within a tid. A row has
// few tids: a counting pass, then one scatter.
void groupByTid(std::vector<OpRecord>& ops) {
  static thread_local std::vector<std::pair<int64_t, size_t>> tids;  // (tid, count -> start)
  static thread_local std::vector<OpRecord> out;
  tids.clear();
  for (const OpRecord& op : ops) {
    auto it = std::find_if(tids.begin(), tids.end(), [&](const auto& p) { return p.first == op.tid; });
    if (it == tids.end()) {
      if (tids.size() == 64) {  // many tids: a general sort
        std::stable_sort(ops.begin(), ops.end(),
                         [](const OpRecord& a, const OpRecord& b) { return a.tid < b.tid; });
        return;
      }
      tids.emplace_back(op.tid, 0);
      it = tids.end() - 1;
    }
    ++it->second;
  }
  if (tids.size() <= 1) return;
  std::sort(tids.begin(), tids.end());
  size_t at = 0;
  for (auto& [tid, n] : tids) at += std::exchange(n, at);
  out.resize(ops.size());
  for (const OpRecord& op : ops) {
    auto it = std::lower_bound(tids.begin(), tids.end(), std::make_pair(op.tid, size_t{0}),
                               [](const auto& a, const auto& b) { return a.first < b.first; });
    out[it->second++] = op;
  }
  ops.swap(out);
}

}  // namespace

void EventRenderer::rankRows(int64_t rank, int64_t pidBase, const std::vector<RowKey>& rows,
                             const ProfileData& data) {
  // One pass in file order (sequential reads of the events and of the names
  // in the file's bytes): bucket what each X event needs by row, names
  // interned. Rendering then reads the buckets in order instead of jumping
  // around the events (a cache miss per event otherwise).
  // Reused between calls on this thread: fresh pages are costly (PERFORMANCE.md).
  static thread_local EscapedNameTable names;
  static thread_local std::vector<std::vector<OpRecord>> byRow;
  names.clear();
  if (byRow.size() < rows.size()) byRow.resize(rows.size());
  for (auto& b : byRow) b.clear();
  Warnings scratch;  // row warnings were counted when `rows` was computed
  RowKey key;
  size_t lastRow = 0;
  for (uint32_t i = 0; i < data.events.size(); ++i) {
    const ProfileEvent& e = data.events[i];
    if (!rowOfEvent(e, key, scratch)) continue;
    size_t r = lastRow;
    if (r >= rows.size() || rows[r] != key) {
      auto it = std::lower_bound(rows.begin(), rows.end(), key);
      if (it == rows.end() || *it != key) continue;
      r = lastRow = static_cast<size_t>(it - rows.begin());
    }
    byRow[r].push_back({e.startNs, e.endNs, e.subDeviceId, names.intern(e.name), i,
                        e.memcopyBytes > 0 || !e.detail.empty()});
  }
  std::vector<MemoryTrack> tracks;
  bool tracksBuilt = false;
  for (size_t r = 0; r < rows.size(); ++r) {
    const int64_t pid = pidBase + static_cast<int64_t>(r);
    const RowKey& row = rows[r];
    processMeta(pid, rowProcessName(pid, rank, row));
    if (row.kind <= RowKind::Gpu) {
      // Order (tid, ts since origin, input order). Events mostly come in ts
      // order per tid already: group by tid, sort only a tid whose events
      // are out of order.
      std::vector<OpRecord>& ops = byRow[r];
      groupByTid(ops);
      auto byTs = [&](const OpRecord& a, const OpRecord& b) {
        return origin_.since(a.startNs) < origin_.since(b.startNs);
      };
      for (size_t lo = 0; lo < ops.size();) {
        size_t hi = lo + 1;
        while (hi < ops.size() && ops[hi].tid == ops[lo].tid) ++hi;
        auto first = ops.begin() + static_cast<ptrdiff_t>(lo),
             last = ops.begin() + static_cast<ptrdiff_t>(hi);
        if (!std::is_sorted(first, last, byTs)) std::stable_sort(first, last, byTs);
        lo = hi;
      }
      for (const OpRecord& op : ops)
        opEvent(pid, op, names.escaped(op.nameId), names.stats(op.nameId),
                op.extra ? &data.events[op.index] : nullptr);
      ops.clear();
      continue;
    }
    if (!tracksBuilt) {
      Warnings counted;  // unknown place and never freed were counted in the summary
      tracks = buildMemoryTracks(data.memEvents, counted);
      warnings_.add("memory_sum_overflow", counted.count("memory_sum_overflow"));
      tracksBuilt = true;
    }
    MemPlace place =
        static_cast<MemPlace>(static_cast<int>(row.kind) - static_cast<int>(RowKind::MemGpu));
    for (const MemoryTrack& t : tracks) {
      if (t.place != place || static_cast<int64_t>(t.device) != row.device) continue;
      for (const MemorySample& s : t.samples) {
        static constexpr std::string_view kHead = ",\n{\"ph\":\"C\",\"name\":\"Memory\",\"pid\":";
        static constexpr std::string_view kTs = ",\"ts\":", kArgs = ",\"args\":{\"allocated_bytes\":";
        char text[160];
        char* p = text;
        std::memcpy(p, kHead.data(), kHead.size());
        p = writeInt(p + kHead.size(), pid);
        std::memcpy(p, kTs.data(), kTs.size());
        bool clamped = false;
        p = writeMicros(p + kTs.size(), origin_.since(s.ns, &clamped));
        if (clamped) warnings_.add(s.ns == 0 ? "timestamp_zero" : "timestamp_before_origin");
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
  uint32_t mask = ((1u << r.count) - 1) << r.first;
  const char* name = fixedProcessName(pid);
  std::vector<uint32_t> idx;
  for (uint32_t i = 0; i < samples.size(); ++i)
    if (samples[i].gpu == gpu && (samples[i].present & mask)) idx.push_back(i);
  std::stable_sort(idx.begin(), idx.end(), [&](uint32_t a, uint32_t b) {
    return origin_.since(samples[a].tsNs) < origin_.since(samples[b].tsNs);
  });
  for (uint32_t i : idx) {
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
  bool tx = pid == 6;
  return static_cast<uint64_t>(std::count_if(samples.begin(), samples.end(),
                                             [&](const NetSample& s) { return s.tx == tx; }));
}

void EventRenderer::netCounters(int64_t pid, int64_t id, const std::vector<NetSample>& samples) {
  bool tx = pid == 6;
  const char* name = fixedProcessName(pid);
  std::vector<uint32_t> idx;
  for (uint32_t i = 0; i < samples.size(); ++i)
    if (samples[i].tx == tx) idx.push_back(i);
  std::stable_sort(idx.begin(), idx.end(), [&](uint32_t a, uint32_t b) {
    return origin_.since(samples[a].tsNs) < origin_.since(samples[b].tsNs);
  });
  for (uint32_t i : idx) {
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
