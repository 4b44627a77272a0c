// Helpers of the Chrome-trace JSON reader tests: gzip in memory, and a
// canonical text of every event field so that runs can be compared.
#pragma once

#include <zlib.h>

#include <string>
#include <vector>

#include "xstack/source/chrome/TraceReader.h"

namespace xstack::chrome::test {

inline std::string gzipBytes(const std::string& text) {
  z_stream z{};
  deflateInit2(&z, 6, Z_DEFLATED, 16 + MAX_WBITS, 8, Z_DEFAULT_STRATEGY);
  std::string out(deflateBound(&z, text.size()) + 64, '\0');
  z.next_in = reinterpret_cast<Bytef*>(const_cast<char*>(text.data()));
  z.avail_in = static_cast<uInt>(text.size());
  z.next_out = reinterpret_cast<Bytef*>(out.data());
  z.avail_out = static_cast<uInt>(out.size());
  deflate(&z, Z_FINISH);
  out.resize(z.total_out);
  deflateEnd(&z);
  return out;
}

inline std::string describeId(const char* what, const IdField& f) {
  if (!f.present) return std::string(" ") + what + "=-";
  return std::string(" ") + what + "=" + (f.numeric ? std::to_string(f.value) : "~") + "/" +
         std::string(f.text);
}

inline std::string describeTime(const char* what, const TimeField& f) {
  if (!f.present) return std::string(" ") + what + "=-";
  return std::string(" ") + what + "=" + (f.valid ? std::to_string(f.ns) : "bad");
}

// Every field of an event, args in order, known args by key.
inline std::string describe(const TraceEvent& e) {
  std::string s = "@" + std::to_string(e.offset) + " ph=" + std::string(1, e.ph ? e.ph : '-') +
                  " name=" + std::string(e.name) + " cat=" + (e.hasCat ? std::string(e.cat) : "-") +
                  " bp=" + std::string(e.bp) + " s=" + std::string(e.scope);
  s += describeId("pid", e.pid) + describeId("tid", e.tid) + describeId("id", e.id);
  s += describeTime("ts", e.ts) + describeTime("dur", e.dur) + " args{";
  for (const Arg& a : e.args) s += std::string(a.key) + ":" + std::string(a.rawValue) + ";";
  s += "} known{";
  for (size_t k = 0; k < kArgKeyCount; ++k) {
    if (e.known[k] >= 0) s += std::to_string(k) + "=" + std::string(e.knownText[k]) + ";";
  }
  return s + "}";
}

struct Collected {
  ReadResult result;
  std::vector<std::string> events;
};

inline Collected readAll(const std::string& bytes, uint64_t readBytes = 1 << 16,
                         uint64_t maxEventBytes = 64ull << 20) {
  ReadOptions options;
  options.readBytes = readBytes;
  options.maxEventBytes = maxEventBytes;
  Collected c;
  c.result = readTraceBytes(
      bytes, "mem.json", [&](const TraceEvent& e) { c.events.push_back(describe(e)); }, options);
  return c;
}

}  // namespace xstack::chrome::test
