#include "xstack/trace/EventRenderer.h"

#include <algorithm>
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

void EventRenderer::opEvent(int64_t pid, const ProfileEvent& e, std::string_view escapedName,
                            const JsonTextStats& nameStats) {
  buf_ += ",\n{\"ph\":\"X\",\"cat\":\"Op\",\"name\":";
  buf_ += escapedName;
  text_.invalidUtf8 += nameStats.invalidUtf8;
  text_.controlChars += nameStats.controlChars;
  buf_ += ",\"pid\":";
  appendInt(buf_, pid);
  buf_ += ",\"tid\":";
  appendInt(buf_, e.subDeviceId);
  buf_ += ",\"ts\":";
  appendTs(e.startNs);
  buf_ += ",\"dur\":";
  if (e.endNs < e.startNs) {
    warnings_.add("event_end_before_start");
    buf_.push_back('0');
  } else {
    appendMicros(buf_, e.endNs - e.startNs);
  }
  buf_ += ",\"args\":{\"name\":";
  buf_ += escapedName;  // args.name repeats the name (SPEC section 3)
  if (e.memcopyBytes > 0) {
    buf_ += ",\"mem_bytes\":";
    appendUint(buf_, e.memcopyBytes);
  }
  if (!e.detail.empty()) {
    buf_ += ",\"detail_info\":";
    appendJsonString(buf_, e.detail, text_);
  }
  buf_ += "}";
  endEvent();
}

namespace {

// Stable: orders `idx` by the events' subDeviceId (tid), keeping the order
// within a tid. A row has few tids: a counting pass, then one scatter.
void groupByTid(std::vector<uint32_t>& idx, const std::vector<ProfileEvent>& events) {
  static thread_local std::vector<std::pair<int64_t, size_t>> tids;  // (tid, count -> start)
  static thread_local std::vector<uint32_t> out;
  tids.clear();
  for (uint32_t i : idx) {
    const int64_t t = events[i].subDeviceId;
    auto it = std::find_if(tids.begin(), tids.end(), [&](const auto& p) { return p.first == t; });
    if (it == tids.end()) {
      if (tids.size() == 64) {  // many tids: a general sort
        std::stable_sort(idx.begin(), idx.end(), [&](uint32_t a, uint32_t b) {
          return events[a].subDeviceId < events[b].subDeviceId;
        });
        return;
      }
      tids.emplace_back(t, 0);
      it = tids.end() - 1;
    }
    ++it->second;
  }
  if (tids.size() <= 1) return;
  std::sort(tids.begin(), tids.end());
  size_t at = 0;
  for (auto& [tid, n] : tids) at += std::exchange(n, at);
  out.resize(idx.size());
  for (uint32_t i : idx) {
    const int64_t t = events[i].subDeviceId;
    auto it = std::lower_bound(tids.begin(), tids.end(), std::make_pair(t, size_t{0}),
                               [](const auto& a, const auto& b) { return a.first < b.first; });
    out[it->second++] = i;
  }
  idx.swap(out);
}

}  // namespace

void EventRenderer::rankRows(int64_t rank, int64_t pidBase, const std::vector<RowKey>& rows,
                             const ProfileData& data) {
  // Bucket event indices by row; rows are sorted, so a binary search finds
  // each. Names are interned in the same pass, in file order.
  // Reused between calls on this thread: fresh pages are costly (PERFORMANCE.md).
  static thread_local EscapedNameTable names;
  static thread_local std::vector<uint32_t> nameIds;
  names.clear();
  nameIds.assign(data.events.size(), 0);
  std::vector<std::vector<uint32_t>> byRow(rows.size());
  Warnings scratch;  // row warnings were counted when `rows` was computed
  RowKey key;
  for (uint32_t i = 0; i < data.events.size(); ++i) {
    if (!rowOfEvent(data.events[i], key, scratch)) continue;
    auto it = std::lower_bound(rows.begin(), rows.end(), key);
    if (it != rows.end() && *it == key) {
      byRow[static_cast<size_t>(it - rows.begin())].push_back(i);
      nameIds[i] = names.intern(data.events[i].name);
    }
  }
  std::vector<MemoryTrack> tracks;
  bool tracksBuilt = false;
  for (size_t r = 0; r < rows.size(); ++r) {
    const int64_t pid = pidBase + static_cast<int64_t>(r);
    const RowKey& row = rows[r];
    processMeta(pid, rowProcessName(pid, rank, row));
    if (row.kind <= RowKind::Gpu) {
      // Order (tid, ts since origin, input order). Events mostly come in ts
      // order per tid already: split by tid (few per row), sort only a tid
      // whose events are out of order.
      std::vector<uint32_t>& idx = byRow[r];
      groupByTid(idx, data.events);
      auto tsOf = [&](uint32_t i) { return origin_.since(data.events[i].startNs); };
      for (size_t lo = 0; lo < idx.size();) {
        size_t hi = lo + 1;
        const int64_t tid = data.events[idx[lo]].subDeviceId;
        while (hi < idx.size() && data.events[idx[hi]].subDeviceId == tid) ++hi;
        auto first = idx.begin() + static_cast<ptrdiff_t>(lo),
             last = idx.begin() + static_cast<ptrdiff_t>(hi);
        if (!std::is_sorted(first, last, [&](uint32_t a, uint32_t b) { return tsOf(a) < tsOf(b); }))
          std::stable_sort(first, last, [&](uint32_t a, uint32_t b) { return tsOf(a) < tsOf(b); });
        lo = hi;
      }
      for (uint32_t i : idx)
        opEvent(pid, data.events[i], names.escaped(nameIds[i]), names.stats(nameIds[i]));
      std::vector<uint32_t>().swap(idx);
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
        buf_ += ",\n{\"ph\":\"C\",\"name\":\"Memory\",\"pid\":";
        appendInt(buf_, pid);
        buf_ += ",\"ts\":";
        appendTs(s.ns);
        buf_ += ",\"args\":{\"allocated_bytes\":";
        appendInt(buf_, s.allocatedBytes);
        buf_ += "}";
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
