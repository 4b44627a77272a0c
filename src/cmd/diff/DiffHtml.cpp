// diff.html of `xstack diff` (cmd/diff/Diff.h): one self-contained file (inline
// CSS, a small sorting script, SVG drawn here; no request of any kind). Axis
// titles and tick labels are SVG <text class="axis"> with their units.
#include <algorithm>
#include <cmath>
#include <cstdio>

#include "xstack/cmd/common/VersionInfo.h"
#include "xstack/cmd/diff/Diff.h"
#include "xstack/core/TextWriting.h"

namespace xstack {
namespace {

constexpr size_t kMaxBars = 256;         // rank chart bins beyond this many ranks
constexpr size_t kMaxRankRows = 4096;    // beyond: the ranks table lists the changed ranks only
constexpr double kW = 900, kH = 260;     // plot area, px
constexpr double kLeft = 70, kTop = 30;  // margins, px

std::string num(double v, int decimals) {
  char buf[64];
  std::snprintf(buf, sizeof buf, "%.*f", decimals, v);
  return buf;
}

std::string esc(std::string_view s) { return htmlText(s); }

double msOf(uint64_t ns) { return static_cast<double>(ns) / 1e6; }

// A "nice" tick step for a range (1, 2 or 5 x 10^k), about 5 ticks.
double tickStep(double range) {
  if (!(range > 0)) return 1;
  const double raw = range / 5, p = std::pow(10, std::floor(std::log10(raw)));
  const double m = raw / p;
  return (m <= 1 ? 1 : m <= 2 ? 2 : m <= 5 ? 5 : 10) * p;
}

std::string text(double x, double y, const std::string& t, const char* anchor = "middle",
                 const char* extra = "") {
  return "<text class=\"axis\" x=\"" + num(x, 1) + "\" y=\"" + num(y, 1) + "\" text-anchor=\"" +
         anchor + "\"" + extra + ">" + esc(t) + "</text>";
}

// The y axis of a plot over [lo, hi] (lo <= 0 <= hi): ticks, labels with the
// unit, the title, and the zero baseline. y(v) maps a value to px.
struct YAxis {
  double lo, hi;
  double y(double v) const { return kTop + kH - (hi > lo ? (v - lo) / (hi - lo) * kH : 0); }
};

std::string yAxisSvg(const YAxis& a, const std::string& title, const std::string& unit) {
  std::string s;
  const double step = tickStep(a.hi - a.lo);
  for (double v = std::ceil(a.lo / step) * step; v <= a.hi + step * 1e-9; v += step) {
    s += "<line x1=\"" + num(kLeft - 4, 1) + "\" x2=\"" + num(kLeft, 1) + "\" y1=\"" +
         num(a.y(v), 1) + "\" y2=\"" + num(a.y(v), 1) + "\" stroke=\"#888\"/>";
    s += text(kLeft - 6, a.y(v) + 4,
              num(std::fabs(v) < step * 1e-9 ? 0 : v, step < 1 ? 2 : 0) + " " + unit, "end");
  }
  s += "<line class=\"zero\" x1=\"" + num(kLeft, 1) + "\" x2=\"" + num(kLeft + kW, 1) + "\" y1=\"" +
       num(a.y(0), 1) + "\" y2=\"" + num(a.y(0), 1) + "\" stroke=\"#000\"/>";
  s += text(kLeft + kW, a.y(0) - 4, "zero baseline", "end", " font-style=\"italic\"");
  s += text(14, kTop + kH / 2, title + " (" + unit + ")", "middle",
            (" transform=\"rotate(-90 14 " + num(kTop + kH / 2, 1) + ")\"").c_str());
  return s;
}

// x tick labels: at most ~10 of the n positions, labelled by label(i).
template <class F>
std::string xTicksSvg(size_t n, double (*x)(size_t, size_t), F label, const std::string& title) {
  std::string s;
  const size_t every = std::max<size_t>(1, (n + 9) / 10);
  for (size_t i = 0; i < n; i += every) s += text(x(i, n), kTop + kH + 16, label(i));
  s += text(kLeft + kW / 2, kTop + kH + 36, title);
  return s;
}

double xPoint(size_t i, size_t n) {
  return kLeft + (n > 1 ? static_cast<double>(i) * kW / static_cast<double>(n - 1) : kW / 2);
}

double xBar(size_t i, size_t n) {
  return kLeft + (static_cast<double>(i) + 0.5) * kW / static_cast<double>(std::max<size_t>(n, 1));
}

std::string svgOpen(const char* id) {
  return "<svg id=\"" + std::string(id) + "\" width=\"" + num(kLeft + kW + 20, 0) + "\" height=\"" +
         num(kTop + kH + 50, 0) + "\" role=\"img\">";
}

std::string legend(const std::vector<std::pair<std::string, std::string>>& items) {
  std::string s;
  double x = kLeft;
  for (const auto& [label, color] : items) {
    s += "<rect x=\"" + num(x, 1) + "\" y=\"8\" width=\"12\" height=\"12\" fill=\"" + color +
         "\"/>" + text(x + 16, 18, label, "start", " class=\"legend\"");
    x += 24 + 8 * static_cast<double>(label.size());
  }
  return s;
}

std::string polyline(const std::vector<StepDelta>& v, const YAxis& a, bool b, const char* color) {
  std::string pts;
  for (size_t i = 0; i < v.size(); ++i) {
    if (i) pts += ' ';
    pts += num(xPoint(i, v.size()), 1);
    pts += ',';
    pts += num(a.y(msOf(b ? v[i].bNs : v[i].aNs)), 1);
  }
  return "<polyline points=\"" + pts + "\" fill=\"none\" stroke=\"" + color +
         "\" stroke-width=\"2\"><title>" + (b ? "B" : "A") + "</title></polyline>";
}

std::string stepChart(const StepsDiff& s) {
  if (s.common.empty()) return "<p>No step in both runs.</p>";
  double hi = 0;
  for (const StepDelta& d : s.common) hi = std::max({hi, msOf(d.aNs), msOf(d.bNs)});
  const YAxis a{0, hi > 0 ? hi * 1.1 : 1};
  std::string svg = svgOpen("steptime") + legend({{"A (baseline)", "#999"}, {"B", "#36c"}}) +
                    yAxisSvg(a, "step time, cross-rank median", "ms");
  svg += xTicksSvg(
      s.common.size(), xPoint, [&](size_t i) { return std::to_string(s.common[i].step); }, "step");
  svg += polyline(s.common, a, false, "#999") + polyline(s.common, a, true, "#36c");
  return svg + "</svg>";
}

// Per rank bin: the change of compute and idle (pt of span), largest |value| in the bin.
std::string rankChart(const RanksDiff& r) {
  const size_t n = r.all.size(), bins = std::min(n, kMaxBars);
  if (n == 0) return "<p>No rank in both runs.</p>";
  std::vector<double> dc(bins, 0), di(bins, 0);
  double lo = 0, hi = 0;
  for (size_t b = 0, i = 0; i < n; ++i) {
    while ((b + 1) * n / bins <= i) ++b;  // bin b holds [b * n / bins, (b + 1) * n / bins)
    const RankDelta& d = r.all[i];
    const double c = d.bPct.compute - d.aPct.compute, id = d.bPct.idle - d.aPct.idle;
    if (std::fabs(c) > std::fabs(dc[b])) dc[b] = c;
    if (std::fabs(id) > std::fabs(di[b])) di[b] = id;
    lo = std::min({lo, c, id});
    hi = std::max({hi, c, id});
  }
  if (hi - lo < 1) hi = lo + 1;
  const YAxis a{lo, hi};
  std::string svg = svgOpen("rankchange") +
                    legend({{"compute change", "#4a7"}, {"idle change", "#bbb"}}) +
                    yAxisSvg(a, "change of % of GPU span", "pt");
  const double w = kW / static_cast<double>(bins) / 2;
  for (size_t b = 0; b < bins; ++b) {
    const size_t first = b * n / bins, last = (b + 1) * n / bins - 1;
    const std::string label = first == last ? "rank " + std::to_string(r.all[first].rank)
                                            : "ranks " + std::to_string(r.all[first].rank) + "-" +
                                                  std::to_string(r.all[last].rank);
    for (int k = 0; k < 2; ++k) {
      const double v = k ? di[b] : dc[b], x = kLeft + static_cast<double>(b) * 2 * w + k * w;
      svg += "<rect x=\"" + num(x, 1) + "\" y=\"" + num(std::min(a.y(v), a.y(0)), 1) +
             "\" width=\"" + num(std::max(w - 0.5, 0.5), 1) + "\" height=\"" +
             num(std::fabs(a.y(v) - a.y(0)), 1) + "\" fill=\"" + (k ? "#bbb" : "#4a7") +
             "\"><title>" + label + ": " + (k ? "idle " : "compute ") + num(v, 2) +
             " pt</title></rect>";
    }
  }
  svg += xTicksSvg(
      bins, xBar, [&](size_t b) { return std::to_string(r.all[b * n / bins].rank); },
      bins < n ? "rank (bins of ranks; a bin shows its largest change)" : "rank");
  return svg + "</svg>";
}

// A sortable table: th click sorts by the cells' data-v (number) or text.
std::string th(const std::vector<std::string>& cols) {
  std::string s = "<thead><tr>";
  for (const std::string& c : cols) s += "<th>" + esc(c) + "</th>";
  return s + "</tr></thead><tbody>";
}

std::string td(const std::string& t) { return "<td>" + esc(t) + "</td>"; }
std::string tdNum(double v, int decimals) {
  return "<td class=\"n\" data-v=\"" + num(v, 6) + "\">" + num(v, decimals) + "</td>";
}
std::string tdPct(double v) { return v < 0 ? "<td class=\"n\" data-v=\"-1\">-</td>" : tdNum(v, 2); }

std::string stepTable(const StepsDiff& s) {
  std::string h = "<table class=\"sortable\" id=\"steps\">" +
                  th({"step", "A (ms)", "B (ms)", "change (ms)", "change (%)"});
  for (const StepDelta& d : s.common) {
    const double da = msOf(d.aNs), db = msOf(d.bNs);
    h += "<tr>" + tdNum(static_cast<double>(d.step), 0) + tdNum(da, 3) + tdNum(db, 3) +
         tdNum(db - da, 3) + tdNum(da > 0 ? 100 * (db - da) / da : 0, 1) + "</tr>";
  }
  return h + "</tbody></table>";
}

std::string rankRow(const RankDelta& d) {
  return "<tr>" + tdNum(static_cast<double>(d.rank), 0) + tdNum(static_cast<double>(d.trainer), 0) +
         tdNum(static_cast<double>(d.gpu), 0) + tdNum(d.aPct.idle, 2) + tdNum(d.bPct.idle, 2) +
         tdNum(d.aPct.compute, 2) + tdNum(d.bPct.compute, 2) + tdNum(d.aPct.nonCompute, 2) +
         tdNum(d.bPct.nonCompute, 2) + tdPct(d.aPct.overlap) + tdPct(d.bPct.overlap) +
         tdNum(msOf(d.a.computeNs), 3) + tdNum(msOf(d.b.computeNs), 3) + tdNum(d.scorePt, 2) +
         td(d.why) + "</tr>";
}

// A per-rank table's rows: every rank up to kMaxRankRows, beyond only the
// named ones (`named`: indexes into `all`, in their order).
template <class Row, class MakeRow>
std::string rankRows(const std::vector<Row>& all, const std::vector<size_t>& named,
                     MakeRow makeRow) {
  std::string h;
  if (all.size() <= kMaxRankRows)
    for (const Row& r : all) h += makeRow(r);
  else
    for (size_t i : named) h += makeRow(all[i]);
  return h;
}

std::string rankTable(const RanksDiff& r) {
  std::string h =
      "<table class=\"sortable\" id=\"ranks\">" +
      th({"rank", "trainer", "gpu", "idle A (%)", "idle B (%)", "compute A (%)", "compute B (%)",
          "non-compute A (%)", "non-compute B (%)", "overlap A (%)", "overlap B (%)",
          "compute A (ms)", "compute B (ms)", "off the median rank (pt)", "moved most in"});
  return h + rankRows(r.all, r.changed, rankRow) + "</tbody></table>";
}

std::string kernelTable(const KernelsDiff& k) {
  std::string h = "<table class=\"sortable\" id=\"kernels\">" +
                  th({"kernel", "category", "count A", "count B", "total A (ms)", "total B (ms)",
                      "change (ms)", "change (%)", "mean A (us)", "mean B (us)", "ranks changed",
                      "ranks that changed most (change, ms)"});
  for (const KernelDelta& d : k.top) {
    const KernelTotalsAB& t = d.t;
    const double a = msOf(t.aNs), b = msOf(t.bNs);
    std::string ranks;
    for (const RankKernelDelta& r : d.topRanks)
      ranks += (ranks.empty() ? "" : ", ") + ("rank " + std::to_string(r.rank) + " ") +
               num(msOf(r.bNs) - msOf(r.aNs), 3);
    h += "<tr>" + td(d.name) + td(d.category) + tdNum(static_cast<double>(t.aCount), 0) +
         tdNum(static_cast<double>(t.bCount), 0) + tdNum(a, 3) + tdNum(b, 3) + tdNum(b - a, 3) +
         tdNum(a > 0 ? 100 * (b - a) / a : 0, 1) +
         tdNum(t.aCount ? 1e3 * a / static_cast<double>(t.aCount) : 0, 1) +
         tdNum(t.bCount ? 1e3 * b / static_cast<double>(t.bCount) : 0, 1) +
         tdNum(static_cast<double>(d.ranksChanged), 0) + td(ranks) + "</tr>";
  }
  return h + "</tbody></table>";
}

std::string findingRow(const char* status, const FindingEntry& f) {
  std::string ranks;
  for (int64_t r : f.ranks) ranks += (ranks.empty() ? "" : ", ") + std::to_string(r);
  return std::string("<tr><td class=\"status\">") + status + "</td>" + td(f.kind) + td(ranks) +
         td(f.steps) + td(f.cause) + tdNum(f.costMs, 3) + td(f.evidence) + "</tr>";
}

std::string findingTable(const FindingsDiff& f) {
  std::string h = "<table class=\"sortable\" id=\"findings\">" +
                  th({"status", "kind", "ranks", "steps", "cause", "cost (ms)", "evidence"});
  for (const FindingEntry& e : f.added) h += findingRow("new", e);
  for (const FindingEntry& e : f.vanished) h += findingRow("vanished", e);
  for (const auto& [a, b] : f.kept) h += findingRow("in both", b);
  return h + "</tbody></table>";
}

double usMs(uint64_t us) { return static_cast<double>(us) / 1e3; }

std::string status(const CollectiveDelta& r) {
  return r.inA && r.inB ? "changed" : r.inB ? "new" : "vanished";
}

std::string collectiveRow(const CollectiveDelta& r) {
  const CollectiveStat &a = r.a, &b = r.b;
  // A number, or "-" (sorting as -1) for a row or a bandwidth missing on that side.
  auto n = [](bool there, double v, int decimals) {
    return there ? tdNum(v, decimals) : std::string("<td class=\"n\" data-v=\"-1\">-</td>");
  };
  return "<tr><td class=\"status\">" + status(r) + "</td>" +
         td(a.group.empty() ? "(default)" : a.group) + td(a.collective) +
         tdNum(static_cast<double>(a.bytes), 0) +
         n(r.inA && a.bytesP50 >= 0, static_cast<double>(a.bytesP50), 0) +
         n(r.inB && b.bytesP50 >= 0, static_cast<double>(b.bytesP50), 0) +
         n(r.inA, static_cast<double>(a.count), 0) + n(r.inB, static_cast<double>(b.count), 0) +
         n(r.inA, usMs(a.transferP50Us), 3) + n(r.inB, usMs(b.transferP50Us), 3) +
         n(r.inA, usMs(a.transferP95Us), 3) + n(r.inB, usMs(b.transferP95Us), 3) +
         n(r.inA && a.busbwGbps >= 0, a.busbwGbps, 3) +
         n(r.inB && b.busbwGbps >= 0, b.busbwGbps, 3) + n(r.inA, usMs(a.waitUs), 3) +
         n(r.inB, usMs(b.waitUs), 3) + n(r.inA, static_cast<double>(a.topLateRank), 0) +
         n(r.inB, static_cast<double>(b.topLateRank), 0) + "</tr>";
}

std::string collectiveTable(const CollectivesDiff& c) {
  std::string h =
      "<table class=\"sortable\" id=\"collectives\">" +
      th({"status", "group", "collective", "bytes", "size p50 A (bytes)", "size p50 B (bytes)",
          "count A", "count B", "transfer p50 A (ms)", "transfer p50 B (ms)", "transfer p95 A (ms)",
          "transfer p95 B (ms)", "busbw p50 A (GB/s)", "busbw p50 B (GB/s)", "wait A (ms)",
          "wait B (ms)", "most often last A (rank)", "most often last B (rank)"});
  for (const CollectiveDelta& r : c.top) h += collectiveRow(r);
  for (const CollectiveDelta& r : c.added) h += collectiveRow(r);
  for (const CollectiveDelta& r : c.vanished) h += collectiveRow(r);
  return h + "</tbody></table>";
}

std::string waitRow(const RankWaitDelta& r) {
  const double wa = usMs(r.a.waitedUs), wb = usMs(r.b.waitedUs);
  const double ca = usMs(r.a.causedUs), cb = usMs(r.b.causedUs);
  return "<tr>" + tdNum(static_cast<double>(r.b.rank), 0) + td(r.b.node) + tdNum(wa, 3) +
         tdNum(wb, 3) + tdNum(wb - wa, 3) + tdNum(ca, 3) + tdNum(cb, 3) + tdNum(cb - ca, 3) +
         td(r.a.topCause) + td(r.b.topCause) + "</tr>";
}

std::string waitTable(const WaitsDiff& w) {
  std::string h = "<table class=\"sortable\" id=\"waits\">" +
                  th({"rank", "node", "waited A (ms/step)", "waited B (ms/step)",
                      "waited change (ms/step)", "caused A (ms/step)", "caused B (ms/step)",
                      "caused change (ms/step)", "top cause A", "top cause B"});
  return h + rankRows(w.all, w.moved, waitRow) + "</tbody></table>";
}

std::string pathRow(const RankPathDelta& r) {
  const double a = msOf(r.aNs), b = msOf(r.bNs);
  return "<tr>" + tdNum(static_cast<double>(r.rank), 0) + tdNum(a, 3) + tdNum(b, 3) +
         tdNum(b - a, 3) + td(r.aKind.empty() ? "-" : r.aKind) +
         td(r.bKind.empty() ? "-" : r.bKind) + "</tr>";
}

std::string pathTable(const CriticalPathDiff& p) {
  std::string h = "<table class=\"sortable\" id=\"critical_path\">" +
                  th({"rank", "on the path A (ms/step)", "on the path B (ms/step)",
                      "change (ms/step)", "mostly A", "mostly B"});
  return h + rankRows(p.ranks, p.moved, pathRow) + "</tbody></table>";
}

const char* kStyle = R"(<style>
body{font:14px/1.4 system-ui,sans-serif;margin:16px;color:#222}
h1{font-size:20px}h2{font-size:16px;margin-top:24px}
table{border-collapse:collapse}td,th{border:1px solid #ccc;padding:2px 6px;text-align:left}
th{cursor:pointer;background:#f4f4f4}td.n{text-align:right}.status{font-weight:bold}
.axis{font-size:11px;fill:#333}.legend{font-size:12px}
pre{background:#f8f8f8;padding:8px;white-space:pre-wrap}
.note{color:#666}
</style>)";

// Click a header: sort its table by that column (numbers by data-v), again: reverse.
const char* kScript = R"(<script>
(function(){
document.querySelectorAll('table.sortable').forEach(function(t){
  t.querySelectorAll('th').forEach(function(h,i){h.addEventListener('click',function(){
    var b=t.tBodies[0],rows=Array.prototype.slice.call(b.rows),dir=h.dataset.dir==='1'?-1:1;
    h.dataset.dir=dir===1?'1':'-1';
    rows.sort(function(x,y){var p=x.cells[i],q=y.cells[i];
      if(p.dataset.v!==undefined&&q.dataset.v!==undefined)return dir*(parseFloat(p.dataset.v)-parseFloat(q.dataset.v));
      return dir*p.textContent.localeCompare(q.textContent);});
    rows.forEach(function(r){b.appendChild(r);});});});});
})();
</script>)";

void section(std::string& h, const char* title, bool present, const std::string& body) {
  h += "<h2>" + std::string(title) + "</h2>";
  h += present ? body : "<p>Not compared: the file is missing in a folder (see above).</p>";
}

}  // namespace

std::string diffHtml(const DiffResult& d, const std::string& commandLine) {
  std::string h =
      "<!DOCTYPE html>\n<html lang=\"en\"><head><meta charset=\"utf-8\">"
      "<title>xstack diff</title>";
  h += kStyle;
  h += "</head><body><h1>xstack diff: A " + esc(d.a) + ", B " + esc(d.b) + "</h1>";
  std::string version = versionText();  // lines: xstack, git, protobuf, mpi
  while (!version.empty() && version.back() == '\n') version.pop_back();
  for (size_t at = version.find('\n'); at != std::string::npos; at = version.find('\n', at))
    version.replace(at, 1, "; ");
  h += "<p class=\"note\" id=\"version\">" + esc(version) +
       "</p><p class=\"note\">command: " + esc(commandLine) + "</p><pre id=\"summary\">" +
       esc(diffText(d)) + "</pre>";
  section(h, "Step time per step (cross-rank median)", d.steps.has_value(),
          d.steps ? stepChart(*d.steps) + stepTable(*d.steps) : "");
  section(h, "Per-rank GPU time categories (ranks.csv, % of the rank's GPU span)",
          d.ranks.has_value(), d.ranks ? rankChart(*d.ranks) + rankTable(*d.ranks) : "");
  section(h, "Kernels whose total time changed most (summed over ranks)", d.kernels.has_value(),
          d.kernels ? kernelTable(*d.kernels) : "");
  section(h, "Findings: new, vanished, in both", d.findings.has_value(),
          d.findings ? findingTable(*d.findings) : "");
  section(h, "Collectives whose transfer or bus bandwidth changed most (collectives.csv)",
          d.collectives.has_value(), d.collectives ? collectiveTable(*d.collectives) : "");
  section(h, "Waits per rank in collectives (waits.csv, ms per step)", d.waits.has_value(),
          d.waits ? waitTable(*d.waits) : "");
  section(h, "Time on the critical path per rank (critical_path.csv, ms per step)",
          d.criticalPath.has_value(), d.criticalPath ? pathTable(*d.criticalPath) : "");
  h += kScript;
  h += "</body></html>\n";
  return h;
}

}  // namespace xstack
