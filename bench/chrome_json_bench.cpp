// chrome_json_bench: throughput of the Chrome-trace JSON tokenizer
// (src/source/chrome) against nlohmann::json's SAX parser and, when built with
// libsimdjson-dev, simdjson's On-Demand API, for the parser choice in
// docs/DESIGN.md ("Chrome-trace JSON parser").
//
//   chrome_json_bench synth OUT.json MB       writes a Kineto-like trace of about MB megabytes
//   chrome_json_bench FILE [REPEAT [ONLY]]    measures on FILE (.json or .json.gz)
//
// Measurements (best of REPEAT runs, CPU seconds of the process, MB = 10^6 bytes of
// JSON text after gunzip):
//   xstack-file     readTrace(FILE): streamed from the file, every event parsed
//   xstack-header   readTraceHeader(FILE): traceEvents skipped by the bracket scan
//   xstack-memory   readTraceBytes over the text in memory (no I/O, no inflate)
//   nlohmann-memory nlohmann::json::sax_parse over the text in memory, a handler that
//                   does nothing (the SAX tokenizer's upper bound)
//   nlohmann-stream the same from an std::ifstream (streamed; plain files only)
//   gunzip          FILE inflated whole into one buffer (the floor of a .gz file)
//   simdjson-memory simdjson On-Demand over the text in memory (padded), every
//                   traceEvents element walked and the fields EventParser gives
//                   meaning to read: ph name cat pid tid id ts dur bp s, args'
//                   correlation / External id (other args skipped unread, where
//                   EventParser keeps every arg's JSON text); ts and dur from their
//                   decimal text to int64 ns by xstack's parseMicrosToNanos, so the
//                   values are EventParser's (sums of both are printed and compared)
//   simdjson-double simdjson-rawkeys with ts/dur by get_double() x 1000 and numbers by
//                   get_int64(): simdjson's own number parsing, not exact past 2^53 ns
//   simdjson-reuse  simdjson-memory with one parser kept across the runs (its buffers
//                   stay allocated: the steady state of a process parsing many files)
//   simdjson-rawkeys simdjson-reuse comparing keys as written, not unescaped (no
//                   trace escapes a key, but EventParser decodes escaped keys)
//   simdjson-stream streamed from FILE: xstack's JsonStream cuts each traceEvents
//                   element out of its bounded buffer (xstack-header's bracket scan),
//                   copied into a padded buffer, parsed by On-Demand (one parser)
//   simdjson-file   FILE read (and inflated) whole into one padded buffer, then
//                   simdjson-memory's walk: simdjson parses a whole document in memory
// ONLY runs one measurement (a name above) and prints the process's peak RSS; the
// text is held in memory only when that measurement runs over it.
#include <sys/resource.h>
#include <sys/stat.h>
#include <time.h>
#include <zlib.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <functional>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#ifdef XSTACK_HAVE_SIMDJSON
#include <simdjson.h>
#define XSTACK_STRING_OF(x) #x
#define XSTACK_STRING(x) XSTACK_STRING_OF(x)
#endif

#include "xstack/source/chrome/ByteStream.h"
#include "xstack/source/chrome/EventParser.h"
#include "xstack/source/chrome/ExactDecimal.h"
#include "xstack/source/chrome/JsonStream.h"
#include "xstack/source/chrome/TraceReader.h"

namespace {

using namespace xstack::chrome;

// A SAX handler that accepts everything and keeps nothing.
struct NullSax : nlohmann::json_sax<nlohmann::json> {
  uint64_t values = 0;
  bool null() override { return ++values; }
  bool boolean(bool) override { return ++values; }
  bool number_integer(number_integer_t) override { return ++values; }
  bool number_unsigned(number_unsigned_t) override { return ++values; }
  bool number_float(number_float_t, const string_t&) override { return ++values; }
  bool string(string_t&) override { return ++values; }
  bool binary(binary_t&) override { return ++values; }
  bool start_object(std::size_t) override { return true; }
  bool key(string_t&) override { return true; }
  bool end_object() override { return true; }
  bool start_array(std::size_t) override { return true; }
  bool end_array() override { return true; }
  bool parse_error(std::size_t, const std::string&, const nlohmann::detail::exception&) override {
    return false;
  }
};

// Bytes simdjson may read past the end of the text (simdjson::SIMDJSON_PADDING).
constexpr size_t kPadding = 64;
constexpr size_t kPiece = 1 << 20;

bool isGzip(const std::string& path) {
  std::FILE* f = std::fopen(path.c_str(), "rb");
  if (!f) return false;
  unsigned char magic[2] = {0, 0};
  const bool gz = std::fread(magic, 1, 2, f) == 2 && magic[0] == 0x1f && magic[1] == 0x8b;
  std::fclose(f);
  return gz;
}

// A capacity hint for the whole text: a gzip file's ISIZE trailer (its last
// member's size mod 2^32), else the file's size.
uint64_t sizeHint(const std::string& path) {
  struct stat st {};
  if (stat(path.c_str(), &st) != 0) return 0;
  uint64_t hint = static_cast<uint64_t>(st.st_size);
  std::FILE* f = isGzip(path) ? std::fopen(path.c_str(), "rb") : nullptr;
  unsigned char isize[4];
  if (f && std::fseek(f, -4, SEEK_END) == 0 && std::fread(isize, 1, 4, f) == 4)
    hint = isize[0] | isize[1] << 8 | isize[2] << 16 | static_cast<uint64_t>(isize[3]) << 24;
  if (f) std::fclose(f);
  return hint;
}

// The JSON text of FILE (inflated) in one buffer whose capacity leaves
// kPadding bytes after it, as simdjson needs (a whole-document parser).
std::string textOf(const std::string& path) {
  std::optional<ReadError> error;
  auto source = ByteStream::openFile(path, kPiece, error);
  std::string text;
  if (!source) return text;
  text.reserve(sizeHint(path) + kPadding);  // capacity >= size + kPadding from here on
  for (;;) {
    const size_t at = text.size();
    const size_t room = std::min<size_t>(kPiece, text.capacity() - at - kPadding);
    if (room < 4096) {  // full (the hint was right, or too small): grow only if more comes
      char probe[4096];
      const uint64_t n = source->read(probe, sizeof probe);
      if (n == 0) break;
      text.reserve(2 * at + kPiece + kPadding);
      text.append(probe, n);
      continue;
    }
    text.resize(at + room);  // within the capacity: no reallocation
    const uint64_t n = source->read(text.data() + at, room);
    text.resize(at + n);
    if (n == 0) break;
  }
  return text;
}

// The text's size, streamed (nothing held).
uint64_t bytesOf(const std::string& path) {
  std::optional<ReadError> error;
  auto source = ByteStream::openFile(path, kPiece, error);
  std::string piece(kPiece, '\0');
  uint64_t bytes = 0;
  while (uint64_t n = source ? source->read(piece.data(), piece.size()) : 0) bytes += n;
  return bytes;
}

// What a walk read, summed: equal sums = the same values were read.
struct Sums {
  uint64_t events = 0;
  uint64_t ts = 0, dur = 0;  // ns of the valid ts / dur
  uint64_t ids = 0;          // pid + 3 tid + 7 id (numeric values)
  uint64_t args = 0;         // correlation + 5 External id
  uint64_t text = 0;         // bytes of name, cat, bp, s (decoded) + the ph byte
  bool operator==(const Sums&) const = default;
};

void addEvent(Sums& s, const TraceEvent& e) {
  ++s.events;
  if (e.ts.valid) s.ts += static_cast<uint64_t>(e.ts.ns);
  if (e.dur.valid) s.dur += static_cast<uint64_t>(e.dur.ns);
  s.ids += static_cast<uint64_t>(e.pid.value) + 3 * static_cast<uint64_t>(e.tid.value) +
           7 * static_cast<uint64_t>(e.id.value);
  s.args += static_cast<uint64_t>(e.argInt(ArgKey::Correlation).value_or(0)) +
            5 * static_cast<uint64_t>(e.argInt(ArgKey::ExternalId).value_or(0));
  s.text += e.name.size() + e.cat.size() + e.bp.size() + e.scope.size() +
            static_cast<unsigned char>(e.ph);
}

void printSums(const char* what, const Sums& s) {
  std::printf("%-16s events %llu ts %llu dur %llu ids %llu args %llu text %llu\n", what,
              static_cast<unsigned long long>(s.events), static_cast<unsigned long long>(s.ts),
              static_cast<unsigned long long>(s.dur), static_cast<unsigned long long>(s.ids),
              static_cast<unsigned long long>(s.args), static_cast<unsigned long long>(s.text));
}

#ifdef XSTACK_HAVE_SIMDJSON
namespace od = simdjson::ondemand;

// A raw number token without the whitespace simdjson leaves after it.
std::string_view trimmed(std::string_view token) {
  while (!token.empty() && (token.back() == ' ' || token.back() == '\n' || token.back() == '\r' ||
                            token.back() == '\t'))
    token.remove_suffix(1);
  return token;
}

// The fields EventParser gives meaning to, read with simdjson On-Demand.
// Exact: numbers from their decimal text by xstack's exact parsers (the same
// int64 values as EventParser); else simdjson's get_double / get_int64.
template <bool Exact>
class SimdWalk {
 public:
  // parser: reused across documents (its buffers stay allocated), or nullptr
  // for a parser of this walk's own. rawKeys: keys compared as written, not
  // unescaped (no trace escapes a key; EventParser decodes escaped keys).
  SimdWalk(Sums& sums, od::parser* parser, bool rawKeys)
      : s_(sums), parser_(parser), rawKeys_(rawKeys) {}

  // text: the document, with capacity >= text.size() + kPadding readable bytes.
  bool walk(std::string_view text, size_t capacity) {
    od::parser own;
    od::parser& parser = parser_ ? *parser_ : own;
    od::document doc;
    od::object top;
    if (parser.iterate(text, capacity).get(doc) || doc.get_object().get(top)) return false;
    for (auto member : top) {
      od::field f;
      std::string_view key;
      if (std::move(member).get(f) || !keyOf(f, key)) return false;
      if (key != "traceEvents") continue;  // the value is skipped
      od::array events;
      if (f.value().get_array().get(events)) return false;
      for (auto element : events) {
        od::object event;
        if (element.get_object().get(event) || !readEvent(event)) return false;
      }
    }
    return true;
  }

  // One event object alone (text padded as in walk), with the given parser.
  bool walkEvent(std::string_view text, size_t capacity) {
    od::document doc;
    od::object event;
    return !parser_->iterate(text, capacity).get(doc) && !doc.get_object().get(event) &&
           readEvent(event);
  }

 private:
  bool readEvent(od::object& event) {
    ++s_.events;
    for (auto member : event) {
      od::field f;
      std::string_view key, text;
      int64_t id = 0;
      if (std::move(member).get(f) || !keyOf(f, key)) return false;
      od::value& v = f.value();
      bool ok = true;
      if (key == "ph") {
        ok = readText(v, text);
        s_.text += text.empty() ? 0 : static_cast<unsigned char>(text[0]);
      } else if (key == "name") {
        ok = readText(v, text);
        s_.text += stripDurationSuffix(text).size();
      } else if (key == "cat" || key == "bp" || key == "s") {
        ok = readText(v, text);
        s_.text += text.size();
      } else if (key == "pid" || key == "tid" || key == "id") {
        ok = readInt(v, true, id);
        s_.ids += static_cast<uint64_t>(id) * (key == "pid" ? 1 : key == "tid" ? 3 : 7);
      } else if (key == "ts") {
        ok = readTime(v, s_.ts);
      } else if (key == "dur") {
        ok = readTime(v, s_.dur);
      } else if (key == "args") {
        ok = readArgs(v);
      }
      if (!ok) return false;
    }
    return true;
  }

  // A string decoded; another scalar as its JSON text.
  static bool readText(od::value& v, std::string_view& out) {
    od::json_type type;
    if (v.type().get(type)) return false;
    if (type == od::json_type::string) return v.get_string().get(out) == simdjson::SUCCESS;
    out = trimmed(v.raw_json_token());
    return true;
  }

  // EventParser's rules: a number, a hex string, a numeric string (with a
  // leading integer when `leading`); anything else 0.
  static bool readInt(od::value& v, bool leading, int64_t& out) {
    od::json_type type;
    if (v.type().get(type)) return false;
    std::optional<int64_t> r;
    if (type == od::json_type::string) {
      std::string_view text;
      if (v.get_string().get(text)) return false;
      r = parseHex(text);
      if (!r) r = leading ? parseLeadingInteger(text) : parseExactInteger(text);
    } else if (type == od::json_type::number) {
      if constexpr (Exact) {
        r = parseExactInteger(trimmed(v.raw_json_token()));
      } else {
        int64_t i;
        if (!v.get_int64().get(i)) r = i;
      }
    }
    out = r.value_or(0);
    return true;
  }

  static bool readTime(od::value& v, uint64_t& sum) {
    od::json_type type;
    if (v.type().get(type)) return false;
    std::optional<int64_t> ns;
    if (type == od::json_type::string) {
      std::string_view text;
      if (v.get_string().get(text)) return false;
      ns = parseMicrosToNanos(text);
    } else if (type == od::json_type::number) {
      if constexpr (Exact) {
        ns = parseMicrosToNanos(trimmed(v.raw_json_token()));
      } else {
        double us;
        if (!v.get_double().get(us)) ns = std::llround(us * 1000.0);
      }
    }
    if (ns) sum += static_cast<uint64_t>(*ns);
    return true;
  }

  bool readArgs(od::value& v) {
    od::json_type type;
    if (v.type().get(type)) return false;
    if (type != od::json_type::object) return true;  // skipped, as EventParser does
    od::object args;
    if (v.get_object().get(args)) return false;
    int64_t correlation = 0, external = 0;
    for (auto member : args) {
      od::field f;
      std::string_view key;
      if (std::move(member).get(f) || !keyOf(f, key)) return false;
      bool ok = true;
      if (key == "correlation" || key == "correlation id")
        ok = readInt(f.value(), false, correlation);
      else if (key == "External id" || key == "external id")
        ok = readInt(f.value(), false, external);
      if (!ok) return false;
    }
    s_.args += static_cast<uint64_t>(correlation) + 5 * static_cast<uint64_t>(external);
    return true;
  }

  bool keyOf(od::field& f, std::string_view& key) const {
    if (!rawKeys_) return f.unescaped_key().get(key) == simdjson::SUCCESS;
    const char* raw = f.key().raw();  // after the opening quote
    key = std::string_view(raw, static_cast<size_t>(std::strchr(raw, '"') - raw));
    return true;
  }

  Sums& s_;
  od::parser* parser_;
  bool rawKeys_;
};
// Streamed: xstack's JsonStream cuts FILE's traceEvents elements out of its
// bounded buffer (the bracket scan of xstack-header); each is copied into a
// padded buffer and parsed by On-Demand. Memory stays bounded, as xstack's.
bool simdStream(const std::string& path, Sums& sums) {
  std::optional<ReadError> error;
  auto source = ByteStream::openFile(path, 256 << 10, error);
  if (!source) return false;
  JsonStream in(*source, 64 << 20, 256 << 10);
  od::parser parser;
  SimdWalk<true> walk(sums, &parser, false);
  std::string padded;
  std::string_view text;
  uint64_t offset = 0;
  if (!in.expect('{', "the document")) return false;
  while (in.peek() == '"') {
    if (!in.captureValue(text, offset)) return false;
    const bool events = text == "\"traceEvents\"";
    if (!in.expect(':', "the document")) return false;
    if (!events) {
      if (!in.skipValue()) return false;
    } else if (in.expect('[', "traceEvents")) {
      while (in.peek() == '{') {
        if (!in.captureValue(text, offset)) return false;
        padded.reserve(text.size() + kPadding);
        padded.assign(text);
        if (!walk.walkEvent(padded, padded.capacity())) return false;
        if (in.peek() == ',') in.consume();
      }
      if (!in.expect(']', "traceEvents")) return false;
    } else {
      return false;
    }
    if (in.peek() == ',') in.consume();
  }
  return in.expect('}', "the document");
}
#endif

// CPU seconds of this process (user + system): on a shared machine the wall
// time also counts other processes' turns.
double cpuSeconds() {
  timespec t{};
  clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &t);
  return static_cast<double>(t.tv_sec) + static_cast<double>(t.tv_nsec) * 1e-9;
}

double bestSeconds(int repeat, const std::function<bool()>& run) {
  double best = 1e30;
  for (int i = 0; i < repeat; ++i) {
    const double t0 = cpuSeconds();
    if (!run()) {
      std::fprintf(stderr, "chrome_json_bench: a run failed\n");
      std::exit(1);
    }
    best = std::min(best, cpuSeconds() - t0);
  }
  return best;
}

struct Bench {
  const char* name;
  bool overText;  // runs over the text held in memory
  bool applies;
  std::function<bool()> run;
};

int measure(const std::string& path, int repeat, const std::string& only) {
  const bool gz = isGzip(path);
  std::string text;  // loaded below when a measurement to run needs it
  Sums xstack, simd, simdDouble;
#ifdef XSTACK_HAVE_SIMDJSON
  od::parser reused;
#endif
  auto count = [&](const TraceEvent& e) { addEvent(xstack, e); };
  std::vector<Bench> benches = {
      {"xstack-file", false, true,
       [&] {
         xstack = {};
         return readTrace(path, count).ok();
       }},
      {"xstack-header", false, true, [&] { return readTraceHeader(path).ok(); }},
      {"xstack-memory", true, true,
       [&] {
         xstack = {};
         return readTraceBytes(text, path, count).ok();
       }},
      {"nlohmann-memory", true, true,
       [&] {
         NullSax sax;
         return nlohmann::json::sax_parse(text, &sax);
       }},
      {"nlohmann-stream", false, !gz,
       [&] {
         std::ifstream in(path, std::ios::binary);
         NullSax sax;
         return nlohmann::json::sax_parse(in, &sax);
       }},
      {"gunzip", false, gz, [&] { return textOf(path).size() > 0; }},
#ifdef XSTACK_HAVE_SIMDJSON
      {"simdjson-memory", true, true,
       [&] {
         simd = {};
         return SimdWalk<true>(simd, nullptr, false).walk(text, text.capacity());
       }},
      {"simdjson-reuse", true, true,
       [&] {
         simd = {};
         return SimdWalk<true>(simd, &reused, false).walk(text, text.capacity());
       }},
      {"simdjson-rawkeys", true, true,
       [&] {
         simd = {};
         return SimdWalk<true>(simd, &reused, true).walk(text, text.capacity());
       }},
      {"simdjson-double", true, true,
       [&] {
         simdDouble = {};
         return SimdWalk<false>(simdDouble, &reused, true).walk(text, text.capacity());
       }},
      {"simdjson-stream", false, true,
       [&] {
         simd = {};
         return simdStream(path, simd);
       }},
      {"simdjson-file", false, true,
       [&] {
         simd = {};
         const std::string whole = textOf(path);
         return SimdWalk<true>(simd, nullptr, false).walk(whole, whole.capacity());
       }},
#endif
  };
  for (const Bench& b : benches) {
    if (b.applies && b.overText && (only.empty() || only == b.name)) {
      text = textOf(path);
      break;
    }
  }
  std::vector<std::pair<const char*, double>> results;
  for (const Bench& b : benches) {
    if (!b.applies || (!only.empty() && only != b.name)) continue;
    results.emplace_back(b.name, bestSeconds(repeat, b.run));
  }
  if (results.empty()) {
    std::fprintf(stderr, "chrome_json_bench: no measurement named %s applies\n", only.c_str());
    return 2;
  }
  rusage usage{};
  getrusage(RUSAGE_SELF, &usage);
  const uint64_t bytes = text.empty() ? bytesOf(path) : text.size();
  std::printf("%s: %.1f MB of JSON text\n", path.c_str(), bytes / 1e6);
#ifdef XSTACK_HAVE_SIMDJSON
  std::printf("simdjson %s, On-Demand compiled for %s\n", XSTACK_STRING(SIMDJSON_VERSION),
              XSTACK_STRING(SIMDJSON_BUILTIN_IMPLEMENTATION));
#endif
  for (const auto& [name, seconds] : results)
    std::printf("%-16s %8.3f s cpu %9.1f MB/s\n", name, seconds, bytes / 1e6 / seconds);
  if (xstack.events) printSums("xstack sums", xstack);
  if (simd.events) printSums("simdjson sums", simd);
  if (simdDouble.events) printSums("simdjson-double", simdDouble);
  if (xstack.events && simd.events)
    std::printf("simdjson read %s values as xstack\n", simd == xstack ? "the same" : "OTHER");
  if (!only.empty()) std::printf("peak RSS %.1f MB\n", usage.ru_maxrss / 1e3);
  return 0;
}

// One Kineto-like event of each common kind, Kineto's layout (one key group
// per line, 3-decimal microseconds relative to a base).
void writeStep(std::FILE* out, uint64_t i, double& ts) {
  const unsigned corr = static_cast<unsigned>(i * 2 + 1);
  std::fprintf(
      out,
      "  {\n    \"ph\": \"X\", \"cat\": \"cpu_op\", \"name\": \"aten::linear\", "
      "\"pid\": 4171, \"tid\": 4171,\n    \"ts\": %.3f, \"dur\": %.3f,\n"
      "    \"args\": {\n      \"External id\": %u,\"Record function id\": 0, \"Ev Idx\": %u, "
      "\"Input Dims\": [[64, 1024], [4096, 1024], [4096]], \"Input type\": "
      "[\"float\", \"float\", \"float\"]\n    }\n  },\n",
      ts, 35.125, corr, corr);
  std::fprintf(
      out,
      "  {\n    \"ph\": \"X\", \"cat\": \"cuda_runtime\", \"name\": \"cudaLaunchKernel\", "
      "\"pid\": 4171, \"tid\": 4171,\n    \"ts\": %.3f, \"dur\": %.3f,\n"
      "    \"args\": {\n      \"External id\": %u,\n      \"cbid\": 211, \"correlation\": %u\n"
      "    }\n  },\n  {\n    \"ph\": \"s\", \"id\": %u, \"pid\": 4171, \"tid\": 4171, "
      "\"ts\": %.3f,\n    \"cat\": \"ac2g\", \"name\": \"ac2g\"\n  },\n",
      ts + 5.5, 4.25, corr, corr, corr, ts + 5.5);
  std::fprintf(
      out,
      "  {\n    \"ph\": \"X\", \"cat\": \"kernel\", \"name\": \"void "
      "at::native::vectorized_elementwise_kernel<4, at::native::CUDAFunctor_add<float>, "
      "at::detail::Array<char*, 3> >(int, at::native::CUDAFunctor_add<float>, "
      "at::detail::Array<char*, 3>)\", \"pid\": 0, \"tid\": 7,\n    \"ts\": %.3f, "
      "\"dur\": %.3f,\n    \"args\": {\n      \"External id\": %u,\n      \"queued\": 0, "
      "\"device\": 0, \"context\": 1,\n      \"stream\": 7, \"correlation\": %u,\n"
      "      \"registers per thread\": 16,\n      \"shared memory\": 0,\n"
      "      \"blocks per SM\": 1.5,\n      \"warps per SM\": 12.0,\n      \"grid\": [1024, 1, "
      "1],\n"
      "      \"block\": [128, 1, 1],\n      \"est. achieved occupancy %%\": 25\n    }\n  },\n"
      "  {\n    \"ph\": \"f\", \"id\": %u, \"pid\": 0, \"tid\": 7, \"ts\": %.3f,\n"
      "    \"cat\": \"ac2g\", \"name\": \"ac2g\", \"bp\": \"e\"\n  },\n",
      ts + 20.0, 13.75, corr, corr, corr, ts + 20.0);
  ts += 40.0;
}

int synth(const std::string& path, double megabytes) {
  std::FILE* out = std::fopen(path.c_str(), "w");
  if (!out) return 1;
  std::fprintf(out,
               "{\n  \"schemaVersion\": 1,\n  \"deviceProperties\": [{\"id\": 0, \"name\": "
               "\"NVIDIA A100-SXM4-80GB\", \"totalGlobalMem\": 85031714816}],\n"
               "  \"distributedInfo\": {\"backend\": \"nccl\", \"rank\": 0, \"world_size\": 2},\n"
               "  \"baseTimeNanoseconds\": 1711964646000000000,\n  \"traceEvents\": [\n");
  double ts = 1000000.0;
  for (uint64_t i = 0; std::ftell(out) < static_cast<long>(megabytes * 1e6); ++i)
    writeStep(out, i, ts);
  std::fprintf(out,
               "  {\n    \"name\": \"Record Window End\", \"ph\": \"i\", \"s\": \"g\",\n"
               "    \"pid\": \"\", \"tid\": \"\", \"ts\": %.3f\n  }\n],\n"
               "  \"traceName\": \"synth.pt.trace.json\"\n}\n",
               ts);
  return std::fclose(out) == 0 ? 0 : 1;
}

}  // namespace

int main(int argc, char** argv) {
  if (argc == 4 && std::string(argv[1]) == "synth") return synth(argv[2], std::atof(argv[3]));
  if (argc >= 2 && argc <= 4)
    return measure(argv[1], argc >= 3 ? std::atoi(argv[2]) : 3, argc == 4 ? argv[3] : "");
  std::fprintf(stderr,
               "usage: chrome_json_bench synth OUT.json MB | "
               "chrome_json_bench FILE [REPEAT [ONLY]]\n");
  return 2;
}
