// report.html: one self-contained file (inline CSS, JS and SVG, no network).
// Rows beyond kMaxRows ranks and columns beyond kMaxCols steps are
// aggregated into contiguous bins (the heatmap shows a bin's largest ratio,
// so a straggler stays visible at any size).
#include <algorithm>
#include <cstdio>
#include <map>

#include "xstack/analysis/collectives/CollectiveMatch.h"
#include "xstack/core/TextWriting.h"
#include "xstack/report/AnalysisFiles.h"

namespace xstack {
namespace {

constexpr size_t kMaxRows = 256, kMaxCols = 500;

std::string num(double v, int decimals) {
  char buf[64];
  std::snprintf(buf, sizeof buf, "%.*f", decimals, v);
  return buf;
}

std::string htmlEscape(std::string_view s) { return htmlText(s); }

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

// Per (row bin, column bin) sums the plots need, filled from every step row.
struct Bins {
  size_t rows, cols;
  std::vector<double> heat, stepMax, brk;
  std::vector<std::vector<uint64_t>> stepNs;  // per column before binning: every rank's step_ns
};

constexpr int kParts =
    5;  // compute only, overlap, comm only, memcpy, idle (they add up to step_ns)

void addRow(Bins& g, size_t b, size_t col, size_t c, const StepRow& r, double med) {
  const double ratio = med > 0 ? static_cast<double>(r.computeNs) / med : 0;
  g.heat[b * g.cols + c] = std::max(g.heat[b * g.cols + c], ratio);
  g.stepMax[c] = std::max(g.stepMax[c], static_cast<double>(r.stepNs) / 1e6);
  g.stepNs[col].push_back(r.stepNs);
  const uint64_t ov = std::min({r.overlapNs, r.computeNs, r.commNs});
  const uint64_t v[kParts] = {r.computeNs - ov, ov, r.commNs - ov, r.memcpyNs, r.idleNs};
  for (int k = 0; k < kParts; ++k) g.brk[b * kParts + k] += static_cast<double>(v[k]) / 1e6;
}

uint64_t medianOfSteps(std::vector<uint64_t> v) {
  if (v.empty()) return 0;
  std::sort(v.begin(), v.end());
  const size_t mid = v.size() / 2;
  return v.size() % 2 ? v[mid] : v[mid - 1] + (v[mid] - v[mid - 1]) / 2;
}

template <class T>
void appendLabels(std::string& o, const char* key, const std::vector<T>& v) {
  o += std::string(",\"") + key + "\":[";
  for (size_t i = 0; i < v.size(); ++i) {
    if (i) o += ',';
    appendJsonString(o, v[i]);
  }
  o += ']';
}

// "</" must not end the script element.
std::string scriptSafe(const std::string& o) {
  std::string safe;
  for (char c : o) {
    if (c == '<')
      safe += "\\u003c";
    else
      safe += c;
  }
  return safe;
}

constexpr size_t kSlowest = 20;

// Per step: the median duration of the ranks' last collective (ns), over the
// ranks that have one in that step.
std::map<int64_t, double> medianLastCommByStep(const std::vector<RankTable>& tables) {
  std::map<int64_t, std::vector<int64_t>> byStep;
  for (const RankTable& t : tables)
    for (const StepRow& r : t.steps)
      if (r.lastCommNs >= 0) byStep[r.step].push_back(r.lastCommNs);
  std::map<int64_t, double> median;
  for (auto& [step, v] : byStep) {
    std::sort(v.begin(), v.end());
    const size_t n = v.size();
    median[step] = n % 2 ? static_cast<double>(v[n / 2])
                         : (static_cast<double>(v[n / 2 - 1]) + static_cast<double>(v[n / 2])) / 2;
  }
  return median;
}

// The kSlowest ranks by how late they reach the steps' last collective: the
// mean over their steps of the step's median last-collective duration minus
// their own (ms; the later a rank arrives, the less it waits there), latest
// first (ties: lower rank), as ",\"slowest\":{\"ranks\":[...],\"lateMs\":[...]}".
// This is the lateness the findings use, so it names host stragglers too.
std::string slowestRanks(const std::vector<RankTable>& tables) {
  const std::map<int64_t, double> median = medianLastCommByStep(tables);
  std::vector<std::pair<double, int64_t>> mean;  // (-late ms, rank): sorts latest first
  for (const RankTable& t : tables) {
    double sum = 0;
    size_t steps = 0;
    for (const StepRow& r : t.steps) {
      auto m = median.find(r.step);
      if (r.lastCommNs < 0 || m == median.end()) continue;
      sum += (m->second - static_cast<double>(r.lastCommNs)) / 1e6;
      ++steps;
    }
    if (steps) mean.emplace_back(-sum / static_cast<double>(steps), t.rank);
  }
  std::sort(mean.begin(), mean.end());
  if (mean.size() > kSlowest) mean.resize(kSlowest);
  std::vector<double> late;
  std::string o = ",\"slowest\":{\"ranks\":[";
  for (size_t i = 0; i < mean.size(); ++i) {
    o += (i ? "," : "") + std::to_string(mean[i].second);
    late.push_back(-mean[i].first);
  }
  o += "],\"lateMs\":";
  appendArray(o, late, 3);
  return o + "}";
}

// The plot data as one JSON object (in a <script type="application/json">).
std::string plotData(const std::vector<RankTable>& tables, const JobAnalysis& a) {
  const size_t nr = tables.size(), nc = a.stepComputeMedian.size();
  Bins g{std::min(nr, kMaxRows),
         std::min(nc, kMaxCols),
         {},
         {},
         {},
         std::vector<std::vector<uint64_t>>(nc)};
  g.heat.assign(g.rows * g.cols, 0);
  g.stepMax.assign(g.cols, 0);
  g.brk.assign(g.rows * kParts, 0);
  std::map<int64_t, size_t> colOfStep = columnsOf(tables);
  std::vector<size_t> colBin(nc);  // the bin of binRange that holds column c
  for (size_t b = 0; b < g.cols; ++b) {
    auto [f, l] = binRange(b, nc, g.cols);
    for (size_t c = f; c <= l; ++c) colBin[c] = b;
  }
  std::vector<std::string> rowLabel(g.rows), colLabel(g.cols);
  for (size_t b = 0; b < g.rows; ++b) {
    auto [f, l] = binRange(b, nr, g.rows);
    rowLabel[b] = f == l ? std::to_string(tables[f].rank)
                         : std::to_string(tables[f].rank) + "-" + std::to_string(tables[l].rank);
    uint64_t stepsInBin = 0;
    for (size_t t = f; t <= l; ++t)
      for (const StepRow& r : tables[t].steps) {
        const size_t col = colOfStep[r.step];
        addRow(g, b, col, colBin[col], r, static_cast<double>(a.stepComputeMedian[col]));
        ++stepsInBin;
      }
    for (int k = 0; k < kParts; ++k)
      g.brk[b * kParts + k] /= static_cast<double>(stepsInBin ? stepsInBin : 1);
  }
  std::vector<double> stepMed(g.cols, 0);  // a bin shows its largest median
  for (size_t c = 0; c < nc; ++c)
    stepMed[colBin[c]] =
        std::max(stepMed[colBin[c]], static_cast<double>(medianOfSteps(g.stepNs[c])) / 1e6);
  for (size_t c = 0; c < g.cols; ++c) {
    auto [f, l] = binRange(c, nc, g.cols);
    colLabel[c] = f == l ? std::to_string(f) : std::to_string(f) + "-" + std::to_string(l);
  }
  std::string o = "{\"steps\":" + std::to_string(nc) + ",\"ranks\":" + std::to_string(nr);
  appendLabels(o, "rows", rowLabel);
  appendLabels(o, "cols", colLabel);
  o += ",\"heat\":";
  appendArray(o, g.heat, 3);
  o += ",\"stepMaxMs\":";
  appendArray(o, g.stepMax, 3);
  o += ",\"stepMedMs\":";
  appendArray(o, stepMed, 3);
  o += ",\"breakdownMs\":";
  appendArray(o, g.brk, 3);
  o += ",\"aggregated\":" + std::string(g.rows < nr || g.cols < nc ? "true" : "false");
  o += ",\"rowsBinned\":" + std::string(g.rows < nr ? "true" : "false");
  o += slowestRanks(tables) + "}";
  return scriptSafe(o);
}

const char* kStyle = R"(<style>
body{font:14px/1.4 system-ui,sans-serif;margin:16px;color:#222}
h1{font-size:20px}h2{font-size:16px;margin-top:24px}
table{border-collapse:collapse}td,th{border:1px solid #ccc;padding:2px 6px;text-align:left}
th{cursor:pointer;background:#f4f4f4}td.n{text-align:right}
td.kname{max-width:60em;overflow:hidden;text-overflow:ellipsis;white-space:nowrap}
.kind{font-weight:bold;color:#b00}#tip{position:fixed;background:#fff;border:1px solid #888;
padding:4px;pointer-events:none;display:none;font-size:12px}
.grp{font-family:monospace;background:#eef;padding:0 3px}.note{color:#666}.axis{font-size:11px;fill:#333}.heatwrap{display:flex;align-items:flex-start}
</style>)";

// Charts: every axis has tick labels and a title with its unit as SVG
// <text class="axis">, value axes start at a zero baseline; tables sort by a
// click on a header (numbers by data-v).
const char* kScript = R"(<script>
(function(){
var d=JSON.parse(document.getElementById('data').textContent);
var NS='http://www.w3.org/2000/svg';
function el(n,a,p){var e=document.createElementNS(NS,n);for(var k in a)e.setAttribute(k,a[k]);if(p)p.appendChild(e);return e;}
function txt(p,x,y,t,anchor,rot){var e=el('text',{x:x,y:y,'class':'axis','text-anchor':anchor||'middle'},p);
if(rot)e.setAttribute('transform','rotate(-90 '+x+' '+y+')');e.textContent=t;return e;}
var tip=document.getElementById('tip');
function show(ev,t){tip.textContent=t;tip.style.display='block';tip.style.left=(ev.clientX+12)+'px';tip.style.top=(ev.clientY+12)+'px';}
function hide(){tip.style.display='none';}
function hover(e,t){e.addEventListener('mousemove',function(ev){show(ev,t);});e.addEventListener('mouseleave',hide);}
function niceStep(r){if(!(r>0))return 1;var p=Math.pow(10,Math.floor(Math.log10(r/5))),m=r/5/p;return (m<=1?1:m<=2?2:m<=5?5:10)*p;}
// y axis from 0 to hi at x0, plot height h from top y0: ticks, zero baseline, title (unit in it).
function yAxis(sv,x0,y0,h,w,hi,title,unit){var st=niceStep(hi),dec=st<1?2:0;
for(var v=0;v<=hi+st*1e-9;v+=st){var y=y0+h-v/hi*h;el('line',{x1:x0-4,x2:x0,y1:y,y2:y,stroke:'#888'},sv);txt(sv,x0-6,y+4,v.toFixed(dec)+' '+unit,'end');}
el('line',{x1:x0,x2:x0+w,y1:y0+h,y2:y0+h,stroke:'#000','class':'zero'},sv);txt(sv,x0+w+4,y0+h+4,'zero baseline','start');
txt(sv,14,y0+h/2,title+' ('+unit+')','middle',true);}
// Category ticks: at most ~max labels of n positions at x(i), below y.
function xTicks(sv,n,x,y,label,max,title,tx){var every=Math.max(1,Math.ceil(n/max));
for(var i=0;i<n;i+=every)txt(sv,x(i),y+14,label(i));txt(sv,tx,y+32,title);}
function legend(sv,x,y,items){items.forEach(function(it){el('rect',{x:x,y:y,width:12,height:12,fill:it[1]},sv);
var t=txt(sv,x+16,y+10,it[0],'start');t.setAttribute('class','axis legend');x+=30+7*it[0].length;});}
function color(r){if(r<=0)return '#eee';var x=Math.max(-1,Math.min(1,(r-1)/0.3));
if(x>=0){var g=Math.round(255*(1-x));return 'rgb(255,'+g+','+g+')';}var b=Math.round(255*(1+x));return 'rgb('+b+','+b+',255)';}
// Heatmap: canvas for the cells (any size), SVG for the axes and the colour legend.
var R=d.rows.length,C=d.cols.length,W=Math.max(1,Math.min(40,Math.floor(900/Math.max(C,1)))),H=Math.max(1,Math.min(16,Math.floor(600/Math.max(R,1))));
var cv=document.getElementById('heat');cv.width=Math.max(1,C*W);cv.height=Math.max(1,R*H);
var cx=cv.getContext('2d');
for(var i=0;i<R;i++)for(var j=0;j<C;j++){cx.fillStyle=color(d.heat[i*C+j]);cx.fillRect(j*W,i*H,W,H);}
cv.addEventListener('mousemove',function(ev){var b=cv.getBoundingClientRect();var j=Math.floor((ev.clientX-b.left)/W),i=Math.floor((ev.clientY-b.top)/H);
if(i<0||j<0||i>=R||j>=C)return hide();show(ev,'rank '+d.rows[i]+', step '+d.cols[j]+': compute '+d.heat[i*C+j].toFixed(3)+'x the step median'+(d.aggregated?' (largest in bin)':''));});
cv.addEventListener('mouseleave',hide);
var ya=el('svg',{width:70,height:cv.height,id:'heat-y'},document.getElementById('heatybox'));
for(var i=0,ev=Math.max(1,Math.ceil(R*12/Math.max(cv.height,1)));i<R;i+=ev)txt(ya,62,i*H+H/2+4,d.rows[i],'end');
txt(ya,10,cv.height/2,'rank','middle',true);
var xa=el('svg',{width:Math.max(cv.width,200),height:40,id:'heat-x'},document.getElementById('heatxbox'));
xTicks(xa,C,function(j){return j*W+W/2;},0,function(j){return d.cols[j];},Math.max(1,Math.floor(cv.width/40)),'step',Math.max(cv.width,200)/2);
var lg=el('svg',{width:360,height:44,id:'legend'},document.getElementById('legendbox'));
[0.7,0.85,1,1.15,1.3].forEach(function(r,k){el('rect',{x:k*60,y:0,width:60,height:14,fill:color(r)},lg);txt(lg,k*60+30,27,r.toFixed(2)+'x');});
txt(lg,150,41,'compute / the step median (ratio)');
// Per-rank GPU time per step (mean ms), stacked: the parts add up to the step.
var cols=['#4a7','#9c6','#c44','#48c','#bbb'],names=['compute only','compute+comm overlap','comm only','memcpy','idle'];
var bw=Math.max(2,Math.min(24,Math.floor(900/Math.max(R,1)))),mx=0;
for(var i=0;i<R;i++){var s=0;for(var k=0;k<5;k++)s+=d.breakdownMs[i*5+k];mx=Math.max(mx,s);}
if(!(mx>0))mx=1;
var X0=80,Y0=30,PH=200,sv=el('svg',{width:Math.max(R*bw,760)+X0+100,height:PH+Y0+50,id:'breakdown'},document.getElementById('breakdownbox'));
legend(sv,X0,6,names.map(function(n,k){return [n,cols[k]];}));
for(var i=0;i<R;i++){var y=Y0+PH;for(var k=0;k<5;k++){var v=d.breakdownMs[i*5+k],h=v/mx*PH;y-=h;
hover(el('rect',{x:X0+i*bw,y:y,width:Math.max(1,bw-1),height:h,fill:cols[k]},sv),'rank '+d.rows[i]+' '+names[k]+' '+v.toFixed(3)+' ms per step');}}
yAxis(sv,X0,Y0,PH,R*bw,mx,'GPU time per step','ms');
xTicks(sv,R,function(i){return X0+i*bw+bw/2;},Y0+PH,function(i){return d.rows[i];},Math.max(1,Math.floor(R*bw/36)),'rank'+(d.rowsBinned?' (bins of ranks)':''),X0+R*bw/2);
// Step time over steps: the median rank (and the slowest rank, dashed).
var pw=Math.max(300,Math.min(900,C*8)),hi=0;d.stepMaxMs.forEach(function(v){hi=Math.max(hi,v);});if(!(hi>0))hi=1;hi*=1.1;
function sy(v){return Y0+PH-v/hi*PH;}
function sx(j){return X0+(C>1?j*pw/(C-1):pw/2);}
var sp=el('svg',{width:pw+X0+100,height:PH+Y0+50,id:'steptime'},document.getElementById('stepbox'));
legend(sp,X0,6,[['median rank','#36c'],['slowest rank','#999']]);
yAxis(sp,X0,Y0,PH,pw,hi,'step time','ms');
[['stepMaxMs','#999','4 3'],['stepMedMs','#36c','']].forEach(function(q){
el('polyline',{points:d[q[0]].map(function(v,j){return sx(j).toFixed(1)+','+sy(v).toFixed(1);}).join(' '),fill:'none',stroke:q[1],'stroke-width':2,'stroke-dasharray':q[2]},sp);});
d.stepMedMs.forEach(function(v,j){hover(el('circle',{cx:sx(j),cy:sy(v),r:3,fill:'#36c'},sp),'step '+d.cols[j]+': median rank '+v.toFixed(3)+' ms, slowest '+d.stepMaxMs[j].toFixed(3)+' ms');});
xTicks(sp,C,sx,Y0+PH,function(j){return d.cols[j];},10,'step',X0+pw/2);
// The latest ranks at the last collective (mean ms after the median rank), sorted, never binned: bars from a zero baseline.
var sl=d.slowest,SW=600,top=0;sl.lateMs.forEach(function(v){top=Math.max(top,v);});if(!(top>0))top=1;top*=1.05;
var ss=el('svg',{width:SW+X0+120,height:sl.ranks.length*16+Y0+50,id:'slowest'},document.getElementById('slowestbox'));
var SH=sl.ranks.length*16,stp=niceStep(top);
for(var v=0;v<=top+stp*1e-9;v+=stp){var x=X0+v/top*SW;el('line',{x1:x,x2:x,y1:Y0+SH,y2:Y0+SH+4,stroke:'#888'},ss);txt(ss,x,Y0+SH+16,v.toFixed(3)+' ms');}
sl.ranks.forEach(function(r,k){var v=sl.lateMs[k],w=Math.max(0,v)/top*SW;
hover(el('rect',{x:X0,y:Y0+k*16+2,width:w,height:12,fill:v>0?'#c44':'#48c'},ss),'rank '+r+': reaches the last collective '+v.toFixed(3)+' ms after the median rank (mean over its steps)');
txt(ss,X0-6,Y0+k*16+12,'rank '+r,'end');txt(ss,X0+w+4,Y0+k*16+12,v.toFixed(3),'start');});
el('line',{x1:X0,x2:X0,y1:Y0,y2:Y0+SH,stroke:'#000','class':'zero'},ss);txt(ss,X0,Y0-6,'zero baseline = the median rank','start');
txt(ss,X0+SW/2,Y0+SH+34,'mean lateness at the last collective (ms after the median rank)');
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

std::string head(const std::vector<std::string>& cols) {
  std::string s = "<thead><tr>";
  for (const std::string& c : cols) s += "<th>" + htmlEscape(c) + "</th>";
  return s + "</tr></thead><tbody>";
}

std::string tdNum(double v, int decimals) {
  return "<td class=\"n\" data-v=\"" + num(v, 6) + "\">" + num(v, decimals) + "</td>";
}

// The bytes cell of a row whose calls' sizes vary (an all-to-all's): "varies"
// with their median, sorted by the median.
std::string variesCell(uint64_t medianBytes) {
  const auto v = static_cast<double>(medianBytes);
  return "<td class=\"n\" data-v=\"" + num(v, 6) +
         "\" title=\"the calls' sizes vary; their median\">varies (p50 " + num(v, 0) + ")</td>";
}

// Links to the finding's trace files, beside report.html in the output folder
// (relative: the folder can be moved or shared whole; the names are ours).
std::string traceLinks(const std::vector<std::string>& files) {
  std::string cell = "<td class=\"traces\">";
  for (const std::string& f : files)
    cell += "<a class=\"trace\" href=\"" + htmlEscape(f) +
            "\" title=\"open it in ui.perfetto.dev\">" + htmlEscape(f) + "</a> ";
  return cell + "</td>";
}

std::string findingsTable(const JobAnalysis& a) {
  std::string h = "<table class=\"sortable\" id=\"findings\">" +
                  head({"kind", "ranks", "steps", "cause", "score (share of job step time)",
                        "cost (ms)", "trace to open", "evidence"});
  for (const Finding& f : a.findings) {
    std::string ranks, steps;
    for (int64_t r : f.ranks) ranks += (ranks.empty() ? "" : ", ") + std::to_string(r);
    for (int64_t s : f.steps) steps += (steps.empty() ? "" : ", ") + std::to_string(s);
    h += "<tr><td class=\"kind\">" + htmlEscape(f.kind) + "</td><td>" + ranks + "</td><td>" +
         (f.allSteps ? std::string("all") : steps) + "</td><td class=\"cause\">" +
         htmlEscape(f.cause) + "</td>" + tdNum(f.score, 4) +
         tdNum(static_cast<double>(f.costNs) / 1e6, 3) + traceLinks(f.traceFiles) + "<td>" +
         htmlEscape(f.evidence) + "</td></tr>";
  }
  return h + "</tbody></table>";
}

std::string kernelsTable(const JobAnalysis& a) {
  const std::string over = " (ms, total over " + std::to_string(a.steps) + " steps)";
  std::string h = "<table class=\"sortable\" id=\"kernels\">" +
                  head({"kernel", "median rank" + over, "slowest rank", "its time" + over,
                        "slowest / median", "ranks"});
  for (const KernelSpread& k : a.kernelSpread) {
    const double med = static_cast<double>(k.medianNs), slow = static_cast<double>(k.slowestNs);
    // Kernel names run to kilobytes (C++ templates): one line, cut with an
    // ellipsis, the whole name in the cell's text and its title (hover).
    const std::string name = htmlEscape(k.name);
    h += "<tr><td class=\"kname\" title=\"" + name + "\">" + name + "</td>" + tdNum(med / 1e6, 3) +
         tdNum(static_cast<double>(k.slowestRank), 0) + tdNum(slow / 1e6, 3) +
         tdNum(med > 0 ? slow / med : 0, 3) + tdNum(static_cast<double>(k.ranks), 0) + "</tr>";
  }
  return h + "</tbody></table>";
}

// HTA's idle split as shares of the rank's per-stream idle; "-" without one.
std::string idleSplitCells(const RankBreakdown& b) {
  const IdleSplit& s = b.idle;
  if (!b.hasIdleSplit || s.totalNs() == 0) {
    const std::string none = "<td class=\"n\" data-v=\"-1\">-</td>";
    return none + none + none;
  }
  const double total = static_cast<double>(s.totalNs());
  std::string cells;
  for (uint64_t v : {s.hostWaitNs, s.kernelWaitNs, s.otherNs})
    cells += tdNum(100 * static_cast<double>(v) / total, 2);
  return cells;
}

// HTA's per-rank numbers (ranks.csv), every rank up to kMaxRows, else the
// kMaxRows with the largest compute share.
// PyTorch's words (Topology::nodeWords): a rank's node and local rank columns.
std::vector<std::string> withNodeColumns(std::vector<std::string> cols, const Topology& topo) {
  if (topo.nodeWords) cols.insert(cols.begin() + 1, {"node", "local rank"});
  return cols;
}

std::string nodeCells(int64_t rank, const Topology& topo) {
  if (!topo.nodeWords) return "";
  return "<td>" + htmlEscape(topo.nodeOf(rank)) + "</td>" +
         tdNum(static_cast<double>(topo.gpuOf(rank)), 0);
}

std::string ranksTable(const std::vector<RankTable>& tables, const Topology& topo) {
  std::vector<const RankTable*> shown;
  for (const RankTable& t : tables) shown.push_back(&t);
  auto share = [](const RankTable* t) {
    const RankBreakdown& b = t->gpuBreakdown;
    return b.spanNs ? static_cast<double>(b.computeNs) / static_cast<double>(b.spanNs) : 0.0;
  };
  if (shown.size() > kMaxRows) {
    std::stable_sort(shown.begin(), shown.end(),
                     [&](auto* x, auto* y) { return share(x) > share(y); });
    shown.resize(kMaxRows);
  }
  std::string h = "<table class=\"sortable\" id=\"ranks\">" +
                  head(withNodeColumns(
                      {"rank", "GPU span (ms)", "idle (%)", "compute (%)", "non-compute (%)",
                       "comm/compute overlap (% of comm)", "idle: host wait (% of stream idle)",
                       "idle: kernel wait (%)", "idle: other (%)", "GPU memory peak (MiB)"},
                      topo));
  for (const RankTable* t : shown) {
    const RankBreakdown& b = t->gpuBreakdown;
    const double span = static_cast<double>(b.spanNs ? b.spanNs : 1);
    h += "<tr>" + tdNum(static_cast<double>(t->rank), 0) + nodeCells(t->rank, topo) +
         tdNum(static_cast<double>(b.spanNs) / 1e6, 3) +
         tdNum(100 * static_cast<double>(b.idleNs) / span, 2) +
         tdNum(100 * static_cast<double>(b.computeNs) / span, 2) +
         tdNum(100 * static_cast<double>(b.nonComputeNs) / span, 2) +
         (b.hasComm && b.commNs
              ? tdNum(100 * static_cast<double>(b.overlapNs) / static_cast<double>(b.commNs), 2)
              : std::string("<td class=\"n\" data-v=\"-1\">-</td>")) +
         idleSplitCells(b) + tdNum(static_cast<double>(t->gpuMemoryPeakBytes) / 1048576.0, 1) +
         "</tr>";
  }
  return h + "</tbody></table>";
}

// Shown rows of the board's tables: the ranks others waited for longest, the
// collectives.csv rows with the most wait, the ranks with the most critical-path time.
constexpr size_t kLateRanksShown = 50, kCollectiveRowsShown = 100, kCriticalRanksShown = 30;

// ns / max(1, steps) as ms with 3 decimals, rounded half up (waits.csv's and
// collectives.csv's text; their functions live in the analyses' layer above this one).
std::string msRounded(uint64_t ns, uint64_t steps = 1) {
  const uint64_t d = std::max<uint64_t>(steps, 1) * 1000;  // ns per µs per step
  const uint64_t us = ns / d + (ns % d >= (d + 1) / 2 ? 1 : 0);
  char buf[32];
  std::snprintf(buf, sizeof buf, "%llu.%03llu", static_cast<unsigned long long>(us / 1000),
                static_cast<unsigned long long>(us % 1000));
  return buf;
}

// A process group's name as shown: escaped; the default group (empty name) in italics.
std::string groupText(const std::string& group) {
  return group.empty() ? std::string("<i>default</i>") : htmlEscape(group);
}

// ns -> ms as a sortable cell: 3 decimals shown (rounded half up, as the CSV files).
std::string tdMs(uint64_t ns) {
  return "<td class=\"n\" data-v=\"" + std::to_string(ns) + "\">" + msRounded(ns) + "</td>";
}

// ns / max(1, steps) -> ms per step as a sortable cell (data-v: ns per step).
std::string tdMsPerStep(uint64_t ns, uint64_t steps) {
  return "<td class=\"n\" data-v=\"" + std::to_string(ns / std::max<uint64_t>(steps, 1)) + "\">" +
         msRounded(ns, steps) + "</td>";
}

std::string cutNote(size_t shown, size_t all, const std::string& what) {
  if (shown >= all) return {};
  return "<p class=\"note cut\">showing the " + std::to_string(shown) + " of " +
         std::to_string(all) + " " + what + "</p>";
}

uint64_t causedSum(const RankBlame& b) {
  uint64_t t = 0;
  for (uint64_t v : b.causedNs) t += v;
  return t;
}

// The waits charged to `b` that it passed on: it was itself waiting.
uint64_t passedOn(const RankBlame& b) { return b.causedNs[static_cast<int>(LateCause::Waiting)]; }

// The waits charged to `b` for its own reasons (compute, host, unknown).
uint64_t ownCaused(const RankBlame& b) { return causedSum(b) - passedOn(b); }

// The cause other than waiting most of `b`'s own caused time came from (ties:
// LateCause's order); "-" when none.
const char* ownTopCause(const RankBlame& b) {
  int top = -1;
  for (int c = 0; c < kLateCauses; ++c)
    if (c != static_cast<int>(LateCause::Waiting) && b.causedNs[c] > 0 &&
        (top < 0 || b.causedNs[c] > b.causedNs[top]))
      top = c;
  return top < 0 ? "-" : lateCauseName(static_cast<LateCause>(top));
}

// "Who waits for whom": one row per rank others waited for (caused > 0), the
// kLateRanksShown with the most time caused for their own reasons (then the
// most caused; ties: lower rank): a rank that was late only because it was
// itself waiting comes after the ranks that started waits. Per step of that
// rank (waits.csv's division), with the groups whose members waited for it
// (most first).
std::string waitsForWhom(const CollectivesSummary& s, const std::vector<RankInfo>& infos) {
  std::vector<const RankBlame*> late;
  for (const RankBlame& b : s.ranks)
    if (causedSum(b) > 0) late.push_back(&b);
  std::stable_sort(late.begin(), late.end(), [](const RankBlame* x, const RankBlame* y) {
    return std::pair(ownCaused(*x), causedSum(*x)) > std::pair(ownCaused(*y), causedSum(*y));
  });
  const size_t all = late.size();
  if (late.size() > kLateRanksShown) late.resize(kLateRanksShown);
  std::map<int64_t, std::vector<const GroupBlame*>> byRank;
  for (const GroupBlame& g : s.groupBlame)
    if (g.waitedForNs > 0) byRank[g.rank].push_back(&g);
  std::string h =
      "<p class=\"note\">the ranks the others waited for at collectives (each wait charged to "
      "the instance's last arriver), the most waited for <em>for their own reasons</em> first; "
      "per step = divided by the late rank's steps; a wait it caused is its own (compute, host, "
      "unknown: waits.csv's causes) or passed on (waiting: it arrived late because it was itself "
      "waiting at its previous collective; critical_path.csv follows the chain to its root)</p>";
  if (all == 0) return h + "<p id=\"nowaits\">No rank made another wait.</p>";
  h += cutNote(late.size(), all, "ranks others waited for (the longest waited for)");
  h += "<table class=\"sortable\" id=\"waitsfor\">" +
       head({"late rank", "node", "others waited for it (ms/step)",
             "of which for its own reasons (ms/step)", "its top own reason",
             "it waited itself (ms/step)",
             "groups that waited for it (group: ms/step (instances it was last at))"});
  for (const RankBlame* b : late) {
    auto info = std::lower_bound(infos.begin(), infos.end(), b->rank,
                                 [](const RankInfo& i, int64_t r) { return i.rank < r; });
    const bool known = info != infos.end() && info->rank == b->rank;
    const uint64_t steps = known ? info->steps : 1;
    const char* top = ownTopCause(*b);
    std::vector<const GroupBlame*> groups = byRank[b->rank];
    std::stable_sort(groups.begin(), groups.end(), [](const GroupBlame* x, const GroupBlame* y) {
      return x->waitedForNs > y->waitedForNs;
    });
    std::string cell;
    for (const GroupBlame* g : groups) {
      cell += std::string(cell.empty() ? "" : "; ") + "<span class=\"grp\">" + groupText(g->group) +
              "</span>: " + msRounded(g->waitedForNs, steps) + " (" + std::to_string(g->instances) +
              ")";
    }
    h += "<tr>" + tdNum(static_cast<double>(b->rank), 0) + "<td>" +
         (known ? htmlEscape(info->node) : std::string("-")) + "</td>" +
         tdMsPerStep(causedSum(*b), steps) + tdMsPerStep(ownCaused(*b), steps) +
         "<td class=\"cause\">" + top + "</td>" + tdMsPerStep(b->waitedNs, steps) +
         "<td class=\"groups\">" + cell + "</td></tr>";
  }
  return h + "</tbody></table>";
}

// collectives.csv's rows, the kCollectiveRowsShown with the most wait (ties:
// the CSV's order), most wait first.
std::string collectivesTable(const CollectivesSummary& s) {
  std::vector<const CollectiveRow*> rows;
  for (const CollectiveRow& r : s.rows) rows.push_back(&r);
  std::stable_sort(rows.begin(), rows.end(), [](const CollectiveRow* x, const CollectiveRow* y) {
    return x->waitNs > y->waitNs;
  });
  const size_t all = rows.size();
  if (rows.size() > kCollectiveRowsShown) rows.resize(kCollectiveRowsShown);
  std::string h = cutNote(rows.size(), all, "collectives.csv rows (the most wait)");
  h += "<table class=\"sortable\" id=\"collectives\">" +
       head({"group", "collective", "bytes", "count", "transfer p50 (ms)", "transfer p95 (ms)",
             "busbw p50 (GB/s)", "wait (ms, all members)", "top late rank",
             "its share (% of instances)"});
  for (const CollectiveRow* r : rows) {
    const uint64_t n = std::max<uint64_t>(r->count, 1);
    h += "<tr><td class=\"grp\">" + groupText(r->group) + "</td><td>" + htmlEscape(r->collective) +
         "</td>" +
         (r->bytes == 0 && r->hasBusbw && sizesMayDiffer(r->collective)
              ? variesCell(r->bytesP50)
              : tdNum(static_cast<double>(r->bytes), 0)) +
         tdNum(static_cast<double>(r->count), 0) + tdMs(r->transferP50Ns) + tdMs(r->transferP95Ns) +
         (r->hasBusbw ? tdNum(r->busbwP50Gbps, 3)
                      : std::string("<td class=\"n\" data-v=\"-1\">-</td>")) +
         tdMs(r->waitNs) + tdNum(static_cast<double>(r->topLateRank), 0) +
         tdNum(100.0 * static_cast<double>(r->topLateCount) / static_cast<double>(n), 1) + "</tr>";
  }
  return h + "</tbody></table>";
}

// The critical paths' time per rank: ms per kind (summed over every step's
// path) and the rank's share of criticalTotalNs, the kCriticalRanksShown
// ranks with the most (ties: lower rank). Kinds in the documented order, then
// any other by name.
std::string criticalTable(const std::vector<CriticalShare>& shares, uint64_t totalNs) {
  static const std::vector<std::string> kKnown = {"compute", "host", "memcpy", "transfer", "wait"};
  std::vector<std::string> kinds = kKnown, other;
  std::map<int64_t, std::map<std::string, uint64_t>> byRank;
  std::map<int64_t, uint64_t> sum;
  for (const CriticalShare& c : shares) {
    byRank[c.rank][c.kind] += c.ns;
    sum[c.rank] += c.ns;
    if (std::find(kinds.begin(), kinds.end(), c.kind) == kinds.end() &&
        std::find(other.begin(), other.end(), c.kind) == other.end())
      other.push_back(c.kind);
  }
  std::sort(other.begin(), other.end());
  kinds.insert(kinds.end(), other.begin(), other.end());
  std::vector<std::pair<int64_t, uint64_t>> ranks(sum.begin(), sum.end());  // by rank
  std::stable_sort(ranks.begin(), ranks.end(),
                   [](const auto& x, const auto& y) { return x.second > y.second; });
  const size_t all = ranks.size();
  if (ranks.size() > kCriticalRanksShown) ranks.resize(kCriticalRanksShown);
  std::vector<std::string> cols{"rank"};
  for (const std::string& k : kinds) cols.push_back(k + " (ms)");
  cols.push_back("on the path (ms)");
  cols.push_back("share of the critical paths (%)");
  std::string h =
      "<p class=\"note\">time on the steps' critical paths per rank and kind, summed over the "
      "steps (critical path total " +
      msRounded(totalNs) + " ms)</p>" +
      cutNote(ranks.size(), all, "ranks (the most time on the path)");
  h += "<table class=\"sortable\" id=\"critical\">" + head(cols);
  for (const auto& [rank, ns] : ranks) {
    h += "<tr>" + tdNum(static_cast<double>(rank), 0);
    const std::map<std::string, uint64_t>& mine = byRank[rank];
    for (const std::string& k : kinds) {
      auto it = mine.find(k);
      h += tdMs(it == mine.end() ? 0 : it->second);
    }
    h += tdMs(ns) +
         tdNum(totalNs ? 100.0 * static_cast<double>(ns) / static_cast<double>(totalNs) : 0, 2) +
         "</tr>";
  }
  return h + "</tbody></table>";
}

// The sections of the other analyses' products (JobBoard): none without them.
std::string boardSections(const JobBoard& board) {
  std::string h;
  if (board.collectives && board.collectiveRanks && board.collectives->groups > 0) {
    h += "<h2 id=\"who-waits\">Who waits for whom (collectives, waits.csv)</h2>" +
         waitsForWhom(*board.collectives, *board.collectiveRanks) +
         "<h2 id=\"collectives-h\">Collectives (collectives.csv)</h2>" +
         collectivesTable(*board.collectives);
  }
  if (board.criticalShares && !board.criticalShares->empty())
    h += "<h2 id=\"critical-h\">Critical-path share per rank</h2>" +
         criticalTable(*board.criticalShares, board.criticalTotalNs);
  return h;
}

}  // namespace

std::string reportHtml(const std::vector<RankTable>& tables, const JobAnalysis& a,
                       const Topology& topo, const std::string& toolVersion,
                       const std::string& commandLine, const JobBoard& board) {
  std::string h =
      "<!DOCTYPE html>\n<html lang=\"en\"><head><meta charset=\"utf-8\">"
      "<title>xstack analysis</title>";
  h += kStyle;
  h += "</head><body><h1>xstack analysis</h1><div id=\"tip\"></div>";
  if (!toolVersion.empty())
    h += "<p class=\"note\" id=\"version\">" + htmlEscape(toolVersion) + "</p>";
  if (!commandLine.empty())
    h += "<p class=\"note\">these numbers again (DIR: the job's data folder, on each node; "
         "--out, --display-size and --format change only the traces): <code id=\"command\">" +
         htmlEscape(commandLine) + "</code></p>";
  for (const std::string& line : terminalSummary(a, topo))
    h += "<div class=\"note\">" + htmlEscape(line) + "</div>";
  h += "<h2>Findings</h2>";
  if (a.findings.empty()) h += "<p>No finding: no rank holds the others back.</p>";
  h += findingsTable(a) + boardSections(board) +
       "<h2>Compute time relative to the step median (rank x step)</h2>"
       "<p class=\"note\">rows: ranks (first at the top), columns: steps; red: slower than the "
       "other ranks in that step, blue: faster; hover for numbers.</p><div class=\"heatwrap\">"
       "<div id=\"heatybox\"></div><div><canvas id=\"heat\"></canvas><div id=\"heatxbox\">"
       "</div></div></div><div id=\"legendbox\"></div>"
       "<h2>GPU time per rank (mean per step)</h2><div id=\"breakdownbox\"></div>"
       "<h2>Per-rank GPU breakdown (HTA, ranks.csv)</h2>" +
       ranksTable(tables, topo) +
       "<h2>Latest ranks (mean lateness at each step's last collective)</h2>"
       "<p class=\"note\">the 20 ranks that reach the steps' last collective latest (the median "
       "rank's last-collective time minus their own: the others wait for them), latest first, "
       "whatever the cause, at any job size (not binned)</p><div id=\"slowestbox\"></div>"
       "<h2>Step time over steps</h2><div id=\"stepbox\"></div>"
       "<h2>Kernels with the largest cross-rank spread</h2>" +
       kernelsTable(a);
  h += "<script type=\"application/json\" id=\"data\">" + plotData(tables, a) + "</script>";
  h += kScript;
  h += "</body></html>\n";
  return h;
}

}  // namespace xstack
