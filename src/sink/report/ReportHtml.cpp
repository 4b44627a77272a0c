// report.html: one self-contained file (inline CSS, JS and SVG, no network).
// Rows beyond kMaxRows ranks and columns beyond kMaxCols steps are
// aggregated into contiguous bins (the heatmap shows a bin's largest ratio,
// so a straggler stays visible at any size).
#include <algorithm>
#include <cstdio>
#include <map>

#include "xstack/sink/json/JsonText.h"
#include "xstack/sink/report/AnalysisFiles.h"

namespace xstack {
namespace {

constexpr size_t kMaxRows = 256, kMaxCols = 500;

std::string num(double v, int decimals) {
  char buf[64];
  std::snprintf(buf, sizeof buf, "%.*f", decimals, v);
  return buf;
}

std::string htmlEscape(std::string_view s) {
  std::string o;
  for (char c : s) {
    switch (c) {
      case '<':
        o += "&lt;";
        break;
      case '>':
        o += "&gt;";
        break;
      case '&':
        o += "&amp;";
        break;
      case '"':
        o += "&quot;";
        break;
      default:
        o += c;
    }
  }
  return o;
}

// [first, last] of bin b of n items in `bins` bins.
std::pair<size_t, size_t> binRange(size_t b, size_t n, size_t bins) {
  return {b * n / bins, (b + 1) * n / bins - 1};
}

template <class T>
void appendArray(std::string& out, const std::vector<T>& v, int decimals) {
  out += '[';
  for (size_t i = 0; i < v.size(); ++i) {
    if (i) out += ',';
    out += num(static_cast<double>(v[i]), decimals);
  }
  out += ']';
}

// step -> column index (before binning): the steps of every rank, sorted.
std::map<int64_t, size_t> columnsOf(const std::vector<RankTable>& tables) {
  std::vector<int64_t> steps;
  for (const RankTable& t : tables)
    for (const StepRow& r : t.steps) steps.push_back(r.step);
  std::sort(steps.begin(), steps.end());
  steps.erase(std::unique(steps.begin(), steps.end()), steps.end());
  std::map<int64_t, size_t> colOfStep;
  for (size_t i = 0; i < steps.size(); ++i) colOfStep[steps[i]] = i;
  return colOfStep;
}

// The plot data as one JSON object (in a <script type="application/json">).
std::string plotData(const std::vector<RankTable>& tables, const JobAnalysis& a) {
  const size_t nr = tables.size(), nc = a.stepComputeMedian.size();
  const size_t rows = std::min(nr, kMaxRows), cols = std::min(nc, kMaxCols);
  std::map<int64_t, size_t> colOfStep = columnsOf(tables);
  std::vector<double> heat(rows * cols, 0), stepMax(cols, 0), brk(rows * 4, 0);
  std::vector<size_t> colBin(nc);
  for (size_t c = 0; c < nc; ++c) colBin[c] = c * cols / nc;
  std::vector<std::string> rowLabel(rows), colLabel(cols);
  for (size_t b = 0; b < rows; ++b) {
    auto [f, l] = binRange(b, nr, rows);
    rowLabel[b] = f == l ? std::to_string(tables[f].rank)
                         : std::to_string(tables[f].rank) + "-" + std::to_string(tables[l].rank);
    uint64_t stepsInBin = 0;
    for (size_t t = f; t <= l; ++t)
      for (const StepRow& r : tables[t].steps) {
        size_t c = colBin[colOfStep[r.step]];
        double med = static_cast<double>(a.stepComputeMedian[colOfStep[r.step]]);
        double ratio = med > 0 ? static_cast<double>(r.computeNs) / med : 0;
        heat[b * cols + c] = std::max(heat[b * cols + c], ratio);
        stepMax[c] = std::max(stepMax[c], static_cast<double>(r.stepNs) / 1e6);
        uint64_t v[4] = {r.computeNs, r.commNs, r.memcpyNs, r.idleNs};
        for (int k = 0; k < 4; ++k) brk[b * 4 + k] += static_cast<double>(v[k]) / 1e6;
        ++stepsInBin;
      }
    for (int k = 0; k < 4; ++k) brk[b * 4 + k] /= static_cast<double>(stepsInBin ? stepsInBin : 1);
  }
  for (size_t c = 0; c < cols; ++c) {
    auto [f, l] = binRange(c, nc, cols);
    colLabel[c] = f == l ? std::to_string(f) : std::to_string(f) + "-" + std::to_string(l);
  }
  std::string o = "{\"rows\":[";
  for (size_t i = 0; i < rows; ++i) {
    if (i) o += ',';
    appendJsonString(o, rowLabel[i]);
  }
  o += "],\"cols\":[";
  for (size_t i = 0; i < cols; ++i) {
    if (i) o += ',';
    appendJsonString(o, colLabel[i]);
  }
  o += "],\"heat\":";
  appendArray(o, heat, 3);
  o += ",\"stepMaxMs\":";
  appendArray(o, stepMax, 3);
  o += ",\"breakdownMs\":";
  appendArray(o, brk, 3);
  o += ",\"aggregated\":" + std::string(rows < nr || cols < nc ? "true" : "false") + "}";
  std::string safe;  // "</" must not end the script element
  for (size_t i = 0; i < o.size(); ++i) {
    if (o[i] == '<')
      safe += "\\u003c";
    else
      safe += o[i];
  }
  return safe;
}

const char* kStyle = R"(<style>
body{font:14px/1.4 system-ui,sans-serif;margin:16px;color:#222}
h1{font-size:20px}h2{font-size:16px;margin-top:24px}
table{border-collapse:collapse}td,th{border:1px solid #ccc;padding:2px 6px;text-align:left}
.kind{font-weight:bold;color:#b00}#tip{position:fixed;background:#fff;border:1px solid #888;
padding:4px;pointer-events:none;display:none;font-size:12px}
.note{color:#666}
</style>)";

const char* kScript = R"(<script>
(function(){
var d=JSON.parse(document.getElementById('data').textContent);
var NS='http://www.w3.org/2000/svg';
function el(n,a,p){var e=document.createElementNS(NS,n);for(var k in a)e.setAttribute(k,a[k]);if(p)p.appendChild(e);return e;}
var tip=document.getElementById('tip');
function show(ev,t){tip.textContent=t;tip.style.display='block';tip.style.left=(ev.clientX+12)+'px';tip.style.top=(ev.clientY+12)+'px';}
function hide(){tip.style.display='none';}
function color(r){if(r<=0)return '#eee';var x=Math.max(-1,Math.min(1,(r-1)/0.3));
if(x>=0){var g=Math.round(255*(1-x));return 'rgb(255,'+g+','+g+')';}var b=Math.round(255*(1+x));return 'rgb('+b+','+b+',255)';}
// Heatmap: canvas for the cells (any size), SVG for the axes and legend.
var R=d.rows.length,C=d.cols.length,W=Math.max(1,Math.min(40,Math.floor(900/Math.max(C,1)))),H=Math.max(1,Math.min(16,Math.floor(600/Math.max(R,1))));
var cv=document.getElementById('heat');cv.width=Math.max(1,C*W);cv.height=Math.max(1,R*H);
var cx=cv.getContext('2d');
for(var i=0;i<R;i++)for(var j=0;j<C;j++){cx.fillStyle=color(d.heat[i*C+j]);cx.fillRect(j*W,i*H,W,H);}
cv.addEventListener('mousemove',function(ev){var b=cv.getBoundingClientRect();var j=Math.floor((ev.clientX-b.left)/W),i=Math.floor((ev.clientY-b.top)/H);
if(i<0||j<0||i>=R||j>=C)return hide();show(ev,'rank '+d.rows[i]+', step '+d.cols[j]+': compute '+d.heat[i*C+j].toFixed(3)+'x the step median'+(d.aggregated?' (largest in bin)':''));});
cv.addEventListener('mouseleave',hide);
var lg=el('svg',{width:300,height:30,id:'legend'},document.getElementById('legendbox'));
[0.7,0.85,1,1.15,1.3].forEach(function(r,k){el('rect',{x:k*60,y:0,width:60,height:14,fill:color(r)},lg);var t=el('text',{x:k*60+18,y:27,'font-size':11},lg);t.textContent=r.toFixed(2)+'x';});
// Per-rank GPU time breakdown (mean ms per step), stacked bars.
var cols=['#4a7','#c44','#48c','#bbb'],names=['compute','comm','memcpy','idle'];
var bw=Math.max(2,Math.min(24,Math.floor(900/Math.max(R,1)))),mx=0;
for(var i=0;i<R;i++){var s=0;for(var k=0;k<4;k++)s+=d.breakdownMs[i*4+k];mx=Math.max(mx,s);}
var sv=el('svg',{width:R*bw+60,height:240,id:'breakdown'},document.getElementById('breakdownbox'));
for(var i=0;i<R;i++){var y=220;for(var k=0;k<4;k++){var v=d.breakdownMs[i*4+k],h=mx>0?v/mx*200:0;y-=h;
var r=el('rect',{x:50+i*bw,y:y,width:Math.max(1,bw-1),height:h,fill:cols[k]},sv);
(function(i,k,v){r.addEventListener('mousemove',function(ev){show(ev,'rank '+d.rows[i]+' '+names[k]+' '+v.toFixed(3)+' ms per step');});r.addEventListener('mouseleave',hide);})(i,k,v);}}
var t=el('text',{x:0,y:12,'font-size':11},sv);t.textContent=mx.toFixed(1)+' ms';
names.forEach(function(n,k){el('rect',{x:50+k*90,y:226,width:10,height:10,fill:cols[k]},sv);var q=el('text',{x:64+k*90,y:235,'font-size':11},sv);q.textContent=n;});
// Step time over steps (largest over ranks; equal on every rank in synchronous training).
var pw=Math.max(300,Math.min(900,C*8)),hi=0,lo=Infinity;d.stepMaxMs.forEach(function(v){hi=Math.max(hi,v);lo=Math.min(lo,v);});
if(!(hi>lo)){lo=0;}
function sy(v){return 180-(hi>lo?(v-lo)/(hi-lo)*160:80);}
function sx(j){return 60+(C>1?j*pw/(C-1):pw/2);}
var sp=el('svg',{width:pw+80,height:210,id:'steptime'},document.getElementById('stepbox'));
el('polyline',{points:d.stepMaxMs.map(function(v,j){return sx(j).toFixed(1)+','+sy(v).toFixed(1);}).join(' '),fill:'none',stroke:'#36c','stroke-width':2},sp);
d.stepMaxMs.forEach(function(v,j){var c=el('circle',{cx:sx(j),cy:sy(v),r:3,fill:'#36c'},sp);
c.addEventListener('mousemove',function(ev){show(ev,'step '+d.cols[j]+': '+v.toFixed(3)+' ms');});c.addEventListener('mouseleave',hide);});
[[hi,sy(hi)],[lo,sy(lo)]].forEach(function(p){var a=el('text',{x:0,y:p[1]+4,'font-size':11},sp);a.textContent=p[0].toFixed(2)+' ms';});
var ax=el('text',{x:60,y:200,'font-size':11},sp);ax.textContent='step '+d.cols[0]+' .. '+d.cols[C-1];
})();
</script>)";

}  // namespace

std::string reportHtml(const std::vector<RankTable>& tables, const JobAnalysis& a,
                       const Topology& topo) {
  std::string h =
      "<!DOCTYPE html>\n<html lang=\"en\"><head><meta charset=\"utf-8\">"
      "<title>xstack analysis</title>";
  h += kStyle;
  h += "</head><body><h1>xstack analysis</h1><div id=\"tip\"></div>";
  for (const std::string& line : terminalSummary(a, topo))
    h += "<div class=\"note\">" + htmlEscape(line) + "</div>";
  h += "<h2>Findings</h2>";
  if (a.findings.empty()) h += "<p>No finding: no rank holds the others back.</p>";
  h += "<table id=\"findings\"><tr><th>kind</th><th>ranks</th><th>steps</th><th>cause</th>"
       "<th>cost (ms)</th><th>score</th><th>evidence</th></tr>";
  for (const Finding& f : a.findings) {
    std::string ranks, steps;
    for (int64_t r : f.ranks) ranks += (ranks.empty() ? "" : ", ") + std::to_string(r);
    for (int64_t s : f.steps) steps += (steps.empty() ? "" : ", ") + std::to_string(s);
    h += "<tr><td class=\"kind\">" + htmlEscape(f.kind) + "</td><td>" + ranks + "</td><td>" +
         (f.allSteps ? std::string("all") : steps) + "</td><td class=\"cause\">" +
         htmlEscape(f.cause) + "</td><td>" + num(static_cast<double>(f.costNs) / 1e6, 3) +
         "</td><td>" + num(f.score, 4) + "</td><td>" + htmlEscape(f.evidence) + "</td></tr>";
  }
  h += "</table><h2>Compute time relative to the step median (rank x step)</h2>"
       "<p class=\"note\">rows: ranks (first at the top), columns: steps; red: slower than the "
       "other ranks in that step, blue: faster; hover for numbers.</p><canvas "
       "id=\"heat\"></canvas><div id=\"legendbox\"></div>"
       "<h2>GPU time per rank (mean per step)</h2><div id=\"breakdownbox\"></div>"
       "<h2>Step time over steps</h2><div id=\"stepbox\"></div>"
       "<h2>Kernels with the largest cross-rank spread</h2><table id=\"kernels\"><tr><th>kernel"
       "</th><th>median per rank</th><th>slowest rank</th><th>its time</th></tr>";
  for (const KernelSpread& k : a.kernelSpread)
    h += "<tr><td>" + htmlEscape(k.name) + "</td><td>" + formatMs(k.medianNs) + "</td><td>" +
         std::to_string(k.slowestRank) + "</td><td>" + formatMs(k.slowestNs) + "</td></tr>";
  h += "</table><script type=\"application/json\" id=\"data\">" + plotData(tables, a) + "</script>";
  h += kScript;
  h += "</body></html>\n";
  return h;
}

}  // namespace xstack
