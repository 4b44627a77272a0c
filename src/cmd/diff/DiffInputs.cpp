// The readers of `xstack diff` (cmd/diff/DiffInputs.h): the analysis files of one
// `xstack report` output folder, streamed line by line.
#include "xstack/cmd/diff/DiffInputs.h"

#include <algorithm>
#include <charconv>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <map>
#include <nlohmann/json.hpp>
#include <set>
#include <sstream>
#include <tuple>
#include <unordered_set>

#include "xstack/core/CheckedMath.h"
#include "xstack/io/LineReader.h"

namespace fs = std::filesystem;

namespace xstack {
namespace {

// A record longer than this (quoted line breaks joined) is an error, not memory.
// Far above any record report writes: a name comes from one input event (at
// most 64 MiB, TraceReaderOptions::maxEventBytes) and grows at most 6-fold in
// a CSV (a control byte becomes the text \u00XX), so 384 MiB at most.
constexpr size_t kMaxRecordBytes = size_t{1} << 30;

bool quotesOpen(std::string_view s) { return std::count(s.begin(), s.end(), '"') % 2 == 1; }

// Column indexes of `need` in `header`; the missing names in `absent`.
std::vector<size_t> columnsOf(const std::vector<std::string>& header,
                              const std::vector<std::string>& need, std::string& absent) {
  std::vector<size_t> col;
  for (const std::string& n : need) {
    auto it = std::find(header.begin(), header.end(), n);
    if (it == header.end()) absent += (absent.empty() ? "" : ", ") + n;
    col.push_back(static_cast<size_t>(it - header.begin()));
  }
  return col;
}

// State of one readCsv pass: the record being joined, the header's columns.
struct CsvPass {
  const std::vector<std::string>& need;
  const std::function<std::string(const std::vector<std::string>&, const std::vector<size_t>&)>&
      onRecord;
  std::string pending;
  uint64_t pendingLine = 0;
  bool header = true;
  std::vector<size_t> column;
  std::vector<std::string> fields;
  std::string error;  // "line N: ..." once something failed
  const std::vector<std::string>* optional = nullptr;

  void record(uint64_t line) {
    if (!splitCsvRecord(pending, fields)) {
      error = "line " + std::to_string(line) + ": unclosed quote";
      return;
    }
    if (header) {
      header = false;
      std::string absent;
      column = columnsOf(fields, need, absent);
      if (!absent.empty()) error = "line 1: not the expected header (no column " + absent + ")";
      for (const std::string& name : *optional) {
        auto it = std::find(fields.begin(), fields.end(), name);
        column.push_back(it == fields.end() ? kNoColumn : static_cast<size_t>(it - fields.begin()));
      }
      return;
    }
    for (size_t c : column)
      if (c != kNoColumn && c >= fields.size()) {
        error = "line " + std::to_string(line) + ": " + std::to_string(fields.size()) +
                " fields, fewer than the header's";
        return;
      }
    std::string bad = onRecord(fields, column);
    if (!bad.empty()) error = "line " + std::to_string(line) + ": " + bad;
  }

  void line(std::string_view text, uint64_t number) {
    if (!error.empty()) return;
    if (pending.empty() && pendingLine == 0) {
      pendingLine = number;
      pending.assign(text);
    } else {
      pending += '\n';
      pending += text;
    }
    if (pending.size() > kMaxRecordBytes) {
      error = "line " + std::to_string(pendingLine) + ": record longer than 1 GiB";
      return;
    }
    if (quotesOpen(pending)) return;
    if (!pending.empty()) record(pendingLine);
    pending.clear();
    pendingLine = 0;
  }
};

std::string parseUint(const std::string& text, const char* column, uint64_t& v) {
  auto [p, ec] = std::from_chars(text.data(), text.data() + text.size(), v);
  if (ec != std::errc() || p != text.data() + text.size() || text.empty())
    return std::string(column) + " is not a non-negative integer: '" + text + "'";
  return {};
}

std::string parseInt(const std::string& text, const char* column, int64_t& v) {
  auto [p, ec] = std::from_chars(text.data(), text.data() + text.size(), v);
  if (ec != std::errc() || p != text.data() + text.size() || text.empty())
    return std::string(column) + " is not an integer: '" + text + "'";
  return {};
}

// Every name of `names` parsed into the matching `out` (fields[column[i]]).
template <class T, size_t N>
std::string parseColumns(const std::vector<std::string>& fields, const std::vector<size_t>& column,
                         size_t first, const char* const (&names)[N], T* const (&out)[N]) {
  for (size_t i = 0; i < N; ++i) {
    std::string bad;
    if constexpr (std::is_signed_v<T>)
      bad = parseInt(fields[column[first + i]], names[i], *out[i]);
    else
      bad = parseUint(fields[column[first + i]], names[i], *out[i]);
    if (!bad.empty()) return bad;
  }
  return {};
}

// A non-negative decimal with at most 3 decimals ("12.345", "7", "0.5") as thousandths:
// the files' ms read as integer microseconds, exactly.
std::string parseThousandths(const std::string& text, const char* column, uint64_t& v) {
  const std::string bad =
      std::string(column) + " is not a number with at most 3 decimals: '" + text + "'";
  const size_t dot = text.find('.');
  const std::string whole = text.substr(0, dot);
  std::string frac = dot == std::string::npos ? "" : text.substr(dot + 1);
  if (frac.size() > 3 || (dot != std::string::npos && frac.empty())) return bad;
  if (frac.find_first_not_of("0123456789") != std::string::npos) return bad;
  uint64_t w = 0;
  if (!parseUint(whole, column, w).empty() || w > UINT64_MAX / 1000 - 1) return bad;
  frac.resize(3, '0');
  v = w * 1000 + static_cast<uint64_t>(std::stoul(frac));
  return {};
}

// A finite number in [lo, hi]; empty text gives `empty` when `allowEmpty`.
std::string parseReal(const std::string& text, const char* column, double lo, double hi,
                      bool allowEmpty, double& v) {
  if (text.empty() && allowEmpty) {
    v = -1;
    return {};
  }
  char* end = nullptr;
  v = std::strtod(text.c_str(), &end);
  if (text.empty() || end != text.c_str() + text.size() || !(v >= lo && v <= hi))
    return std::string(column) + " is not a number in range: '" + text + "'";
  return {};
}

std::string collectiveRow(const std::vector<std::string>& f, const std::vector<size_t>& c,
                          CollectiveStat& r) {
  r.group = f[c[0]];
  r.collective = f[c[1]];
  std::string bad = parseUint(f[c[2]], "bytes", r.bytes);
  if (bad.empty()) bad = parseUint(f[c[3]], "count", r.count);
  if (bad.empty()) bad = parseThousandths(f[c[4]], "transfer_p50_ms", r.transferP50Us);
  if (bad.empty()) bad = parseThousandths(f[c[5]], "transfer_p95_ms", r.transferP95Us);
  if (bad.empty()) bad = parseReal(f[c[6]], "busbw_p50_gbps", 0, 1e12, true, r.busbwGbps);
  if (bad.empty()) bad = parseThousandths(f[c[7]], "wait_ms", r.waitUs);
  if (bad.empty()) bad = parseInt(f[c[8]], "top_late_rank", r.topLateRank);
  if (bad.empty()) bad = parseReal(f[c[9]], "top_late_share", 0, 1, false, r.topLateShare);
  if (bad.empty() && c[10] != kNoColumn) {  // optional: an older xstack's file has none
    uint64_t p50 = 0;
    bad = parseUint(f[c[10]], "bytes_p50", p50);
    if (bad.empty() && p50 > static_cast<uint64_t>(INT64_MAX)) bad = "bytes_p50 out of range";
    r.bytesP50 = static_cast<int64_t>(p50);
  }
  return bad;
}

std::string parsePct(const std::string& text, double& v) {
  if (text.empty()) {
    v = -1;
    return {};
  }
  char* end = nullptr;
  v = std::strtod(text.c_str(), &end);
  if (end != text.c_str() + text.size() || !(v >= 0 && v <= 100.01))
    return "comm_comp_overlap_pct is not a percentage: '" + text + "'";
  return {};
}

std::string stepsText(const nlohmann::json& s) {
  if (s.is_string()) return s.get<std::string>();
  std::string out;
  for (const auto& v : s) out += (out.empty() ? "" : ",") + std::to_string(v.get<int64_t>());
  return out;
}

FindingEntry findingOf(const nlohmann::json& f) {
  FindingEntry e;
  e.kind = f.at("kind").get<std::string>();
  e.ranks = f.at("ranks").get<std::vector<int64_t>>();
  e.steps = stepsText(f.at("steps"));
  if (f.contains("cause") && f["cause"].is_string()) e.cause = f["cause"].get<std::string>();
  if (f.contains("evidence")) e.evidence = f["evidence"].get<std::string>();
  if (f.contains("cost_ms"))
    e.costMs = f["cost_ms"].get<double>();
  else if (f.contains("cost_s"))  // findings.json of older xstack releases (seconds)
    e.costMs = f["cost_s"].get<double>() * 1e3;
  return e;
}

bool isFile(const fs::path& p) {
  std::error_code ec;
  return fs::is_regular_file(p, ec);
}

bool hasTraceFile(const std::string& dir) {
  std::error_code ec;
  for (fs::directory_iterator it(dir, ec), end; !ec && it != end; it.increment(ec))
    if (it->path().filename().string().rfind("traceFile_", 0) == 0) return true;
  return false;
}

}  // namespace

uint64_t medianNs(std::vector<uint64_t> v) {
  if (v.empty()) return 0;
  const size_t mid = v.size() / 2;
  std::nth_element(v.begin(), v.begin() + static_cast<std::ptrdiff_t>(mid), v.end());
  const uint64_t hi = v[mid];
  if (v.size() % 2) return hi;
  const uint64_t lo = *std::max_element(v.begin(), v.begin() + static_cast<std::ptrdiff_t>(mid));
  return lo + (hi - lo) / 2;
}

bool splitCsvRecord(std::string_view record, std::vector<std::string>& fields) {
  // The strings of `fields` are reused (cleared, capacity kept): no allocation
  // per record once the widest record has been seen.
  size_t n = 0;
  auto next = [&]() -> std::string& {
    if (n == fields.size()) fields.emplace_back();
    fields[n].clear();
    return fields[n++];
  };
  std::string* field = &next();
  bool quoted = false;
  for (size_t i = 0; i < record.size(); ++i) {
    const char c = record[i];
    if (!quoted && c != '"' && c != ',') {  // a run of plain bytes at once
      const size_t end = std::min(record.find_first_of(",\"", i), record.size());
      field->append(record.substr(i, end - i));
      i = end - 1;
    } else if (quoted && c == '"' && i + 1 < record.size() && record[i + 1] == '"') {
      *field += '"';
      ++i;
    } else if (c == '"') {
      quoted = !quoted;
    } else if (c == ',' && !quoted) {
      field = &next();
    } else {
      *field += c;
    }
  }
  fields.resize(n);
  return !quoted;
}

Status readCsv(const std::string& path, const std::vector<std::string>& needColumns,
               const std::function<std::string(const std::vector<std::string>&,
                                               const std::vector<size_t>&)>& onRecord,
               const std::vector<std::string>& optionalColumns) {
  CsvPass pass{needColumns, onRecord, {}, 0, true, {}, {}, {}, &optionalColumns};
  std::string overlong;
  Status st = readLines(
      path, [&](std::string_view text, const LineInfo& info) { pass.line(text, info.number); },
      [&](const LineInfo& info, uint64_t) {
        if (overlong.empty())
          overlong = "line " + std::to_string(info.number) + ": longer than 1 GiB";
      },
      LineReaderOptions{kMaxRecordBytes});
  if (!st) return st;
  if (pass.error.empty() && !overlong.empty()) pass.error = overlong;
  if (pass.error.empty() && !pass.pending.empty())
    pass.error = "line " + std::to_string(pass.pendingLine) + ": unclosed quote at the end";
  if (pass.error.empty() && pass.header) pass.error = "empty file (no header)";
  if (!pass.error.empty()) return Error{path + ": " + pass.error}.atFile(path);
  return {};
}

Expected<StepTimes> readStepsCsv(const std::string& path) {
  std::map<int64_t, std::vector<uint64_t>> byStep;  // step -> step_ns of its ranks
  std::unordered_set<int64_t> ranks;
  StepTimes t;
  Status st = readCsv(path, {"rank", "step", "step_ns"},
                      [&](const std::vector<std::string>& f, const std::vector<size_t>& c) {
                        int64_t rank = 0, step = 0;
                        uint64_t ns = 0;
                        std::string bad = parseInt(f[c[0]], "rank", rank);
                        if (bad.empty()) bad = parseInt(f[c[1]], "step", step);
                        if (bad.empty()) bad = parseUint(f[c[2]], "step_ns", ns);
                        if (!bad.empty()) return bad;
                        byStep[step].push_back(ns);
                        ranks.insert(rank);
                        ++t.rows;
                        return std::string();
                      });
  if (!st) return st.error();
  for (auto& [step, values] : byStep) {
    t.steps.push_back(step);
    t.medianNs.push_back(medianNs(std::move(values)));
  }
  t.medianStepNs = medianNs(t.medianNs);
  t.ranks = static_cast<int64_t>(ranks.size());
  return t;
}

Expected<std::vector<RankCategories>> readRanksCsv(const std::string& path) {
  std::vector<RankCategories> rows;
  static const std::vector<std::string> kNeed = {
      "rank",       "trainer",        "gpu",
      "steps",      "span_ns",        "idle_ns",
      "compute_ns", "non_compute_ns", "comm_comp_overlap_pct"};
  Status st = readCsv(
      path, kNeed,
      [&](const std::vector<std::string>& f, const std::vector<size_t>& c) {
        RankCategories r;
        static const char* const kInts[] = {"rank", "trainer", "gpu", "steps"};
        static const char* const kUints[] = {"span_ns", "idle_ns", "compute_ns", "non_compute_ns"};
        std::string bad =
            parseColumns<int64_t, 4>(f, c, 0, kInts, {&r.rank, &r.trainer, &r.gpu, &r.steps});
        if (bad.empty())
          bad = parseColumns<uint64_t, 4>(f, c, 4, kUints,
                                          {&r.spanNs, &r.idleNs, &r.computeNs, &r.nonComputeNs});
        if (bad.empty()) bad = parsePct(f[c[8]], r.overlapPct);
        if (bad.empty() && c[9] != kNoColumn && c[10] != kNoColumn) {  // PyTorch's words
          r.node = f[c[9]];
          bad = parseInt(f[c[10]], "local_rank", r.localRank);
        }
        if (bad.empty() && !rows.empty() && r.rank <= rows.back().rank)
          bad = "rank " + std::to_string(r.rank) + " out of order (ranks ascend)";
        if (bad.empty()) rows.push_back(r);
        return bad;
      },
      {"node", "local_rank"});
  if (!st) return st.error();
  return rows;
}

Expected<std::vector<FindingEntry>> readFindingsJson(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) return Error{path + ": cannot open"}.atFile(path);
  std::vector<FindingEntry> out;
  try {
    nlohmann::json doc = nlohmann::json::parse(in);
    for (const auto& f : doc.at("findings")) out.push_back(findingOf(f));
  } catch (const std::exception& e) {
    return Error{path + ": not a findings.json of xstack report: " + e.what()}.atFile(path);
  }
  return out;
}

Expected<std::vector<CollectiveStat>> readCollectivesCsv(const std::string& path) {
  std::vector<CollectiveStat> rows;
  std::set<std::tuple<std::string, std::string, uint64_t>> seen;
  static const std::vector<std::string> kNeed = {
      "group",           "collective",     "bytes",   "count",         "transfer_p50_ms",
      "transfer_p95_ms", "busbw_p50_gbps", "wait_ms", "top_late_rank", "top_late_share"};
  Status st = readCsv(path, kNeed,
                      [&](const std::vector<std::string>& f, const std::vector<size_t>& c) {
                        CollectiveStat r;
                        std::string bad = collectiveRow(f, c, r);
                        if (bad.empty() && !seen.emplace(r.group, r.collective, r.bytes).second)
                          bad = "group, collective and bytes twice";
                        if (bad.empty()) rows.push_back(std::move(r));
                        return bad;
                      },
                      {"bytes_p50"});
  if (!st) return st.error();
  return rows;
}

Expected<std::vector<RankWaits>> readWaitsCsv(const std::string& path) {
  std::vector<RankWaits> rows;
  static const std::vector<std::string> kNeed = {"rank", "node", "waited_ms_per_step",
                                                 "caused_ms_per_step", "top_cause"};
  Status st =
      readCsv(path, kNeed, [&](const std::vector<std::string>& f, const std::vector<size_t>& c) {
        RankWaits r;
        std::string bad = parseInt(f[c[0]], "rank", r.rank);
        if (bad.empty()) bad = parseThousandths(f[c[2]], "waited_ms_per_step", r.waitedUs);
        if (bad.empty()) bad = parseThousandths(f[c[3]], "caused_ms_per_step", r.causedUs);
        if (bad.empty() && !rows.empty() && r.rank <= rows.back().rank)
          bad = "rank " + std::to_string(r.rank) + " out of order (ranks ascend)";
        if (!bad.empty()) return bad;
        r.node = f[c[1]];
        r.topCause = f[c[4]];
        rows.push_back(std::move(r));
        return std::string();
      });
  if (!st) return st.error();
  return rows;
}

Expected<CriticalPathTotals> readCriticalPathCsv(const std::string& path) {
  CriticalPathTotals t;
  int64_t lastStep = 0;
  static const std::vector<std::string> kNeed = {"step", "rank", "kind", "dur_ns"};
  Status st =
      readCsv(path, kNeed, [&](const std::vector<std::string>& f, const std::vector<size_t>& c) {
        int64_t step = 0, rank = 0;
        uint64_t dur = 0;
        std::string bad = parseInt(f[c[0]], "step", step);
        if (bad.empty()) bad = parseInt(f[c[1]], "rank", rank);
        if (bad.empty()) bad = parseUint(f[c[3]], "dur_ns", dur);
        if (bad.empty() && f[c[2]].empty()) bad = "kind is empty";
        if (bad.empty() && t.steps > 0 && step < lastStep)
          bad = "step " + std::to_string(step) + " after step " + std::to_string(lastStep) +
                " (rows by step)";
        if (!bad.empty()) return bad;
        if (t.steps == 0 || step != lastStep) ++t.steps;
        lastStep = step;
        (void)addSaturating(t.totalNs, dur);
        (void)addSaturating(t.kindNs[f[c[2]]], dur);
        (void)addSaturating(t.rankKindNs[rank][f[c[2]]], dur);
        return std::string();
      });
  if (!st) return st.error();
  return t;
}

Status forEachKernelRow(const std::string& path,
                        const std::function<void(const KernelRow&)>& onRow) {
  int64_t lastRank = INT64_MIN;
  return readCsv(path, {"rank", "name", "category", "count", "total_ns"},
                 [&](const std::vector<std::string>& f, const std::vector<size_t>& c) {
                   KernelRow r;
                   std::string bad = parseInt(f[c[0]], "rank", r.rank);
                   if (bad.empty()) bad = parseUint(f[c[3]], "count", r.count);
                   if (bad.empty()) bad = parseUint(f[c[4]], "total_ns", r.totalNs);
                   if (!bad.empty()) return bad;
                   if (r.rank < lastRank)
                     return "rank " + std::to_string(r.rank) + " after rank " +
                            std::to_string(lastRank) + " (rows must be ordered by rank)";
                   lastRank = r.rank;
                   r.name = f[c[1]];
                   r.category = f[c[2]];
                   onRow(r);
                   return std::string();
                 });
}

Expected<FolderAnalysis> readFolderAnalysis(const std::string& dir) {
  std::error_code ec;
  if (!fs::is_directory(dir, ec))
    return Error{dir + ": not a folder (give two output folders of xstack report)"}.atFile(dir);
  FolderAnalysis a;
  a.dir = dir;
  a.hasTraces = hasTraceFile(dir);
  const fs::path d(dir);
  auto note = [&](const char* name) {
    const bool there = isFile(d / name);
    if (!there) a.missing.push_back(name);
    return there;
  };
  if (note("steps.csv")) {
    auto s = readStepsCsv((d / "steps.csv").string());
    if (!s) return s.error();
    a.steps = std::move(*s);
  }
  if (note("ranks.csv")) {
    auto r = readRanksCsv((d / "ranks.csv").string());
    if (!r) return r.error();
    a.ranks = std::move(*r);
  }
  a.hasKernels = note("kernels.csv");
  if (note("findings.json")) {
    auto f = readFindingsJson((d / "findings.json").string());
    if (!f) return f.error();
    a.findings = std::move(*f);
  }
  if (note("collectives.csv")) {
    auto c = readCollectivesCsv((d / "collectives.csv").string());
    if (!c) return c.error();
    a.collectives = std::move(*c);
  }
  if (note("waits.csv")) {
    auto w = readWaitsCsv((d / "waits.csv").string());
    if (!w) return w.error();
    a.waits = std::move(*w);
  }
  if (note("critical_path.csv")) {
    auto p = readCriticalPathCsv((d / "critical_path.csv").string());
    if (!p) return p.error();
    a.criticalPath = std::move(*p);
  }
  if (a.missing.size() == std::size(kAnalysisFiles) && !a.hasTraces)
    return Error{dir +
                 ": no output of xstack report here (no steps.csv, ranks.csv, kernels.csv, "
                 "findings.json, collectives.csv, waits.csv, critical_path.csv, traceFile_*)"}
        .atFile(dir);
  return a;
}

}  // namespace xstack
