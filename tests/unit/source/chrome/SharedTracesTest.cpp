// The reader on the real Kineto traces of ../shared/traces/kineto (never
// copied into the repository): every event, in order, against an
// independent parse by nlohmann::json's SAX interface (whose number
// callbacks give the number's text), with ts/dur converted from that text by
// a separate string routine. Skipped when the folder is absent.
#include <gtest/gtest.h>
#include <zlib.h>

#include <cstdlib>
#include <filesystem>
#include <map>
#include <nlohmann/json.hpp>

#include "xstack/source/chrome/TraceReader.h"

namespace xstack::chrome {
namespace {

std::filesystem::path sharedDir() {
  if (const char* env = std::getenv("XSTACK_SHARED_DIR")) return env;
#ifdef XSTACK_SHARED_DIR
  return XSTACK_SHARED_DIR;
#else
  return "../shared";
#endif
}

std::string gunzipWhole(const std::string& path) {
  gzFile f = gzopen(path.c_str(), "rb");
  std::string out;
  if (!f) return out;
  char buf[1 << 16];
  int n = 0;
  while ((n = gzread(f, buf, sizeof buf)) > 0) out.append(buf, static_cast<size_t>(n));
  gzclose(f);
  return out;
}

// "607312.0" -> 607312000, "12" -> 12000, "1.2345" -> 1234: by string surgery.
int64_t microsTextToNanos(const std::string& text) {
  size_t dot = text.find('.');
  std::string whole = text.substr(0, dot);
  std::string frac = dot == std::string::npos ? "" : text.substr(dot + 1);
  frac = (frac + "000").substr(0, 3);
  bool negative = !whole.empty() && whole[0] == '-';
  int64_t v = std::stoll(whole) * 1000 + std::stoll(frac) * (negative ? -1 : 1);
  return v;
}

struct DomEvent {
  std::string ph, cat, name, pid, ts, dur;
  int args = 0;
};

// Records the scalar members of each traceEvents element and counts its args.
class EventSax : public nlohmann::json_sax<nlohmann::json> {
 public:
  std::vector<DomEvent> events;

  bool null() override { return scalar("null"); }
  bool boolean(bool v) override { return scalar(v ? "true" : "false"); }
  bool number_integer(number_integer_t v) override { return scalar(std::to_string(v)); }
  bool number_unsigned(number_unsigned_t v) override { return scalar(std::to_string(v)); }
  bool number_float(number_float_t, const string_t& s) override { return scalar(s); }
  bool string(string_t& s) override { return scalar(s); }
  bool binary(binary_t&) override { return true; }
  bool start_object(std::size_t) override {
    ++depth_;
    if (depth_ == 3 && inEvents_) events.emplace_back();
    return true;
  }
  bool end_object() override { return --depth_ >= 0; }
  bool start_array(std::size_t) override {
    ++depth_;
    if (depth_ == 2) inEvents_ = key_ == "traceEvents";
    return true;
  }
  bool end_array() override {
    if (depth_ == 2) inEvents_ = false;
    return --depth_ >= 0;
  }
  bool key(string_t& k) override {
    if (depth_ == 1 || depth_ == 3) key_ = k;
    if (depth_ == 4 && inEvents_ && key_ == "args") ++events.back().args;
    return true;
  }
  bool parse_error(std::size_t, const std::string&, const nlohmann::detail::exception&) override {
    return false;
  }

 private:
  bool scalar(const std::string& text) {
    if (depth_ != 3 || !inEvents_) return true;
    DomEvent& e = events.back();
    if (key_ == "ph") e.ph = text;
    if (key_ == "cat") e.cat = text;
    if (key_ == "name") e.name = text;
    if (key_ == "pid") e.pid = text;
    if (key_ == "ts") e.ts = text;
    if (key_ == "dur") e.dur = text;
    return true;
  }
  int depth_ = 0;
  bool inEvents_ = false;
  std::string key_;
};

void compareWithSax(const std::string& relative, int64_t wantRank) {
  const std::filesystem::path path = sharedDir() / "traces/kineto" / relative;
  if (!std::filesystem::exists(path)) GTEST_SKIP() << path << " absent (../shared not here)";
  EventSax sax;
  ASSERT_TRUE(nlohmann::json::sax_parse(gunzipWhole(path.string()), &sax));
  ASSERT_FALSE(sax.events.empty());

  std::map<std::string, uint64_t> byPh, byCat, wantPh, wantCat;
  size_t i = 0;
  ReadResult r = readTrace(path.string(), [&](const TraceEvent& e) {
    ASSERT_LT(i, sax.events.size());
    const DomEvent& d = sax.events[i++];
    ++byPh[std::string(1, e.ph)];
    ++byCat[std::string(e.cat)];
    EXPECT_EQ(std::string(e.name), d.name) << i;
    EXPECT_EQ(std::string(e.pid.text), d.pid) << i;
    EXPECT_EQ(static_cast<int>(e.args.size()), d.args) << i;
    ASSERT_EQ(e.ts.present, !d.ts.empty()) << i;
    ASSERT_EQ(e.dur.present, !d.dur.empty()) << i;
    if (e.ts.present) {
      EXPECT_EQ(e.ts.ns, microsTextToNanos(d.ts)) << i << " ts " << d.ts;
    }
    if (e.dur.present) {
      EXPECT_EQ(e.dur.ns, microsTextToNanos(d.dur)) << i << " dur " << d.dur;
    }
  });
  ASSERT_TRUE(r.ok()) << r.error->text();
  for (const DomEvent& d : sax.events) {
    ++wantPh[d.ph.empty() ? std::string(1, '\0') : d.ph];
    ++wantCat[d.cat];
  }
  EXPECT_EQ(i, sax.events.size());
  EXPECT_EQ(r.info.events, sax.events.size());
  EXPECT_EQ(byPh, wantPh);
  EXPECT_EQ(byCat, wantCat);
  EXPECT_EQ(r.info.rank, wantRank);
  EXPECT_TRUE(r.info.gzip);
}

TEST(ChromeSharedTraces, TraceFilterRank0) {
  compareWithSax("trace_filter/sampled_rank-0.json.gz", 0);
}
TEST(ChromeSharedTraces, TraceFilterRank1) {
  compareWithSax("trace_filter/sampled_rank-1.json.gz", 1);
}
TEST(ChromeSharedTraces, NcclData) { compareWithSax("nccl_data/nccl_data.json.gz", 0); }

TEST(ChromeSharedTraces, NcclDataCountsAndBase) {
  const std::filesystem::path path = sharedDir() / "traces/kineto/nccl_data/nccl_data.json.gz";
  if (!std::filesystem::exists(path)) GTEST_SKIP() << path << " absent (../shared not here)";
  std::map<char, uint64_t> byPh;
  uint64_t collectives = 0;
  ReadResult r = readTrace(path.string(), [&](const TraceEvent& e) {
    ++byPh[e.ph];
    if (e.arg(ArgKey::CollectiveName) && e.cat == "kernel") ++collectives;
  });
  ASSERT_TRUE(r.ok()) << r.error->text();
  // FORMAT-NOTES section 1 (nccl_data row) and section 4 (21 kernels with Collective name).
  EXPECT_EQ(r.info.events, 40573u);
  EXPECT_EQ(byPh['X'], 26933u);
  EXPECT_EQ(byPh['f'], 9195u);
  EXPECT_EQ(byPh['s'], 4405u);
  EXPECT_EQ(byPh['M'], 38u);
  EXPECT_EQ(r.info.baseTimeNs, 1711964646000000000);
  EXPECT_EQ(r.info.worldSize, 2);
  EXPECT_EQ(collectives, 21u);
  ReadResult h = readTraceHeader(path.string());
  ASSERT_TRUE(h.ok());
  EXPECT_EQ(h.info.baseTimeNs, r.info.baseTimeNs);
  EXPECT_EQ(h.info.rank, 0);
}

}  // namespace
}  // namespace xstack::chrome
