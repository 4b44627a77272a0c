#include "xstack/analysis/StepTable.h"

#include <algorithm>
#include <array>
#include <charconv>
#include <iterator>
#include <stdexcept>

#include "Sweeps.h"
#include "xstack/core/CheckedMath.h"
#include "xstack/core/FileIdentity.h"
#include "xstack/model/MemoryTrack.h"
#include "xstack/wire/Wire.h"

namespace xstack {

namespace {

bool containsNoCase(std::string_view hay, std::string_view lowerNeedle) {
  if (hay.size() < lowerNeedle.size()) return false;
  for (size_t i = 0; i + lowerNeedle.size() <= hay.size(); ++i) {
    size_t k = 0;
    while (k < lowerNeedle.size()) {
      char c = hay[i + k];
      if (c >= 'A' && c <= 'Z') c = static_cast<char>(c - 'A' + 'a');
      if (c != lowerNeedle[k]) break;
      ++k;
    }
    if (k == lowerNeedle.size()) return true;
  }
  return false;
}

constexpr std::string_view kCollectiveMarks[] = {"nccl",   "rccl",  "msccl",  "hccl",
                                                 "oneccl", "ccl::", "nvshmem"};

}  // namespace

KernelCategory kernelCategoryOf(std::string_view name, uint64_t memcopyBytes) {
  for (std::string_view m : kCollectiveMarks)
    if (containsNoCase(name, m)) return KernelCategory::Comm;
  if (memcopyBytes > 0 || containsNoCase(name, "memcpy") || containsNoCase(name, "memset"))
    return KernelCategory::Memcpy;
  return KernelCategory::Compute;
}

namespace {

// `percent` of a builder's budget, for one of its sorters.
SpillOptions shareOf(const SpillOptions& s, uint64_t percent) {
  return {s.dir, s.memoryBytes / 100 * percent};
}

}  // namespace

SpillOptions analysisBuilderBudget(const SpillOptions& input) {
  return {input.dir, input.memoryBytes / kAnalysisBudgetDivisor / 2};
}

// The shares follow what a Kineto trace holds per operator: two CPU-side
// slices (the op, its launch), one kernel; fewer collectives and copies.
StepTableBuilder::StepTableBuilder(SpillOptions spill)
    : spill_(std::move(spill)),
      kernels_{KernelSorter(shareOf(spill_, 25)), KernelSorter(shareOf(spill_, 5)),
               KernelSorter(shareOf(spill_, 10))},
      cpu_(shareOf(spill_, 50)),
      mem_(shareOf(spill_, 10)) {}

void StepTableBuilder::addSlice(const SliceEvent& e) {
  if (e.row.kind == RowKind::CpuBlock || e.row.kind == RowKind::CudaApi) {
    const uint32_t name = cpuNames_.indexOf(e, [](std::string_view) { return CpuName{}; });
    cpu_.push({e.startNs, std::max(e.endNs, e.startNs), name});
    return;
  }
  if (e.row.kind != RowKind::Gpu) return;
  NameEntry& entry = totals_.at(e, [](std::string_view name) {
    return NameEntry{{std::string(name), 0, 0}, kernelCategoryOf(name, 0)};
  });
  KernelCategory c = entry.category;
  if (c == KernelCategory::Compute && e.bytes > 0) c = KernelCategory::Memcpy;
  uint64_t end = std::max(e.endNs, e.startNs);
  if (c == KernelCategory::Comm || end > e.startNs)
    kernels_[static_cast<int>(c)].push({e.startNs, end});
  // Held at 2^63 - 1 like kernels.csv's total_ns (counted there: sum_saturated).
  (void)addSaturating(entry.total.ns, end - e.startNs);
  ++entry.total.count;
}

void StepTableBuilder::addMemory(const MemoryEvent& m) {
  if (m.place != MemPlace::Gpu) return;
  const int64_t bytes = memoryChangeBytes(m.bytes);
  mem_.push({m.startNs, bytes});
  if (m.endNs >= m.startNs && m.endNs != 0) mem_.push({m.endNs, -bytes});
}

Status StepTableBuilder::finishSorters() {
  Status st;
  for (KernelSorter& k : kernels_)
    if (Status s = k.finish(); st && !s) st = s;
  if (Status s = cpu_.finish(); st && !s) st = s;
  if (Status s = mem_.finish(); st && !s) st = s;
  return st;
}

namespace {

// The rows of the forward spans, ordered by step (stable), and each row's
// window end: [forward start, end of the step's first backward span, or of
// the forward span when later or when there is none].
void stepRows(const std::vector<Span>& spans, std::vector<StepRow>& rows,
              std::vector<uint64_t>& ends) {
  std::vector<StepRow> inSpanOrder;
  std::vector<uint64_t> endsInSpanOrder;
  std::unordered_map<int64_t, const Span*> backwardOf;  // first backward span of each step
  for (const Span& b : spans)
    if (b.phase == Phase::Backward) backwardOf.emplace(b.step, &b);
  for (const Span& f : spans) {
    if (f.phase != Phase::Forward) continue;
    StepRow r;
    r.step = f.step;
    r.startNs = f.startNs;
    r.forwardNs = f.endNs - f.startNs;
    uint64_t end = f.endNs;
    if (auto it = backwardOf.find(f.step); it != backwardOf.end()) {
      r.backwardNs = it->second->endNs - it->second->startNs;
      end = std::max(end, it->second->endNs);
    }
    r.stepNs = end - f.startNs;
    inSpanOrder.push_back(r);
    endsInSpanOrder.push_back(end);
  }
  std::vector<size_t> order(inSpanOrder.size());
  for (size_t i = 0; i < order.size(); ++i) order[i] = i;
  std::stable_sort(order.begin(), order.end(),
                   [&](size_t a, size_t b) { return inSpanOrder[a].step < inSpanOrder[b].step; });
  for (size_t i : order) {
    rows.push_back(inSpanOrder[i]);
    ends.push_back(endsInSpanOrder[i]);
  }
}

// The span host_idle_ns looks at: from the lead-in start (the end of the
// previous row's window when it is before this one's start) to the arrival
// (the window end when the step has no collective).
Interval hostIdleSpan(const std::vector<StepRow>& rows, const std::vector<uint64_t>& ends,
                      size_t i) {
  const StepRow& r = rows[i];
  uint64_t lo = i > 0 && ends[i - 1] < r.startNs ? ends[i - 1] : r.startNs;
  uint64_t hi = r.arrivalNs >= 0 ? r.startNs + static_cast<uint64_t>(r.arrivalNs) : ends[i];
  return {lo, hi};
}

// The kernels of the three sorters in one (start, end) order: next() gives
// each with its category.
template <class Reader>
class MergedKernels {
 public:
  explicit MergedKernels(std::array<Reader, 3>& readers) : r_(readers) {
    for (size_t k = 0; k < 3; ++k) has_[k] = r_[k].next(head_[k]);
  }
  bool next(Interval& out, size_t& category) {
    int best = -1;
    for (int k = 0; k < 3; ++k) {
      if (!has_[k]) continue;
      const Interval& h = head_[k];
      const Interval& b = head_[best < 0 ? 0 : best];
      if (best < 0 || h.start < b.start || (h.start == b.start && h.end < b.end)) best = k;
    }
    if (best < 0) return false;
    out = head_[best];
    category = static_cast<size_t>(best);
    has_[best] = r_[best].next(head_[best]);
    return true;
  }
  Status status() const {
    for (const Reader& r : r_)
      if (!r.status()) return r.status();
    return {};
  }

 private:
  std::array<Reader, 3>& r_;
  Interval head_[3];
  bool has_[3] = {false, false, false};
};

}  // namespace

// Pass 1, over the collectives alone: each row's last collective (the last
// by start, then end, that starts inside [window start, window end]).
Status StepTableBuilder::addLastCollectives(std::vector<StepRow>& rows,
                                            const std::vector<uint64_t>& ends) const {
  struct Last {
    uint64_t from, until;  // the window, both ends included
    Interval comm;
    bool found = false;
  };
  std::vector<Last> last(rows.size());
  for (size_t i = 0; i < rows.size(); ++i) last[i] = {rows[i].startNs, ends[i], {}, false};
  sweep::ActiveQueries<Last> windows(last);
  auto reader = kernels_[static_cast<int>(KernelCategory::Comm)].read();
  Interval c;
  while (reader.next(c))
    windows.at(c.start, [&c](Last& q) {
      q.comm = c;
      q.found = true;
    });
  if (!reader.status()) return reader.status();
  for (size_t i = 0; i < rows.size(); ++i) {
    if (!last[i].found) continue;
    rows[i].arrivalNs = static_cast<int64_t>(last[i].comm.start - rows[i].startNs);
    rows[i].lastCommNs = static_cast<int64_t>(last[i].comm.end - last[i].comm.start);
  }
  return {};
}

struct StepTableBuilder::GapQuery {
  uint64_t from = 0, until = 0;  // CPU slices starting in [lead-in start, gap end)
  uint64_t windowStart = 0, hi = 0;
  Interval gap;
  size_t row = 0;
  int64_t best = -1;  // cpu name id
  uint64_t bestDur = 0, overlapNs = 0;
};

// Pass 2, over every kernel in start order: the unions per category, of
// compute and comm, of all, each added to the windows it touches; the host
// idle spans' cover and longest gap; then the gap ops (pass 3).
Status StepTableBuilder::addUnions(RankTable& t, const std::vector<uint64_t>& ends) const {
  const size_t n = t.steps.size();
  std::vector<Interval> windows(n), both(2 * n);
  for (size_t i = 0; i < n; ++i) {
    windows[i] = both[i] = {t.steps[i].startNs, ends[i]};
    both[n + i] = hostIdleSpan(t.steps, ends, i);
  }
  // 0 compute, 1 comm, 2 memcpy, 3 compute or comm (the overlap), 4 all.
  std::vector<sweep::WindowCover> cover(4, sweep::WindowCover(windows));
  cover.emplace_back(both);
  UnionStream unions[5];
  std::array<KernelSorter::Reader, 3> readers{kernels_[0].read(), kernels_[1].read(),
                                              kernels_[2].read()};
  MergedKernels<KernelSorter::Reader> kernels(readers);
  Interval iv;
  size_t category = 0;
  auto feed = [&](size_t u, const Interval& k) {
    unions[u].add(k, [&cover, u](const Interval& done) { cover[u].add(done); });
  };
  while (kernels.next(iv, category)) {
    feed(category, iv);
    if (category != static_cast<size_t>(KernelCategory::Memcpy)) feed(3, iv);
    feed(4, iv);
  }
  if (Status st = kernels.status(); !st) return st;
  for (size_t u = 0; u < 5; ++u) {
    unions[u].finish([&cover, u](const Interval& done) { cover[u].add(done); });
    cover[u].finish();
  }
  std::vector<GapQuery> queries;
  for (size_t i = 0; i < n; ++i) {
    StepRow& r = t.steps[i];
    r.computeNs = cover[0].covered(i);
    r.commNs = cover[1].covered(i);
    r.memcpyNs = cover[2].covered(i);
    r.idleNs = r.stepNs - cover[4].covered(i);
    r.overlapNs = r.computeNs + r.commNs - cover[3].covered(i);
    const Interval span = both[n + i];
    r.hostIdleNs = span.end - span.start - cover[4].covered(n + i);
    const Interval gap = cover[4].longestGap(n + i);
    if (gap.end == gap.start) continue;
    queries.push_back({span.start, gap.end - 1, r.startNs, span.end, gap, i});
  }
  return addGapOps(t, queries);
}

// Pass 3, over the CPU-side slices in (start, end, name) order: for each step
// with an idle gap, the slice starting in [lead-in start, gap end) that
// overlaps the gap most (ties: the shorter, then the name), skipping step
// spans (those covering [window start, hi]).
Status StepTableBuilder::addGapOps(RankTable& t, std::vector<GapQuery>& queries) const {
  sweep::ActiveQueries<GapQuery> active(queries);
  auto reader = cpu_.read();
  CpuSlice c;
  auto consider = [this, &c](GapQuery& q) {
    if (c.start <= q.windowStart && c.end >= q.hi) return;
    uint64_t a = std::max(c.start, q.gap.start), b = std::min(c.end, q.gap.end);
    if (b <= a) return;
    uint64_t ov = b - a, dur = c.end - c.start;
    bool better = ov > q.overlapNs ||
                  (ov == q.overlapNs &&
                   (dur < q.bestDur ||
                    (dur == q.bestDur && q.best >= 0 &&
                     cpuNames_.name(c.name) < cpuNames_.name(static_cast<uint32_t>(q.best)))));
    if (!better) return;
    q.best = c.name;
    q.overlapNs = ov;
    q.bestDur = dur;
  };
  while (reader.next(c)) active.at(c.start, consider);
  if (!reader.status()) return reader.status();
  std::unordered_map<int64_t, int64_t> indexOfName;  // cpu name id -> index in t.gapOps
  for (const GapQuery& q : queries) {                // in row order
    StepRow& r = t.steps[q.row];
    r.gapOpNs = q.overlapNs;
    if (q.best < 0) continue;
    auto [it, fresh] = indexOfName.emplace(q.best, static_cast<int64_t>(t.gapOps.size()));
    if (fresh) t.gapOps.push_back(cpuNames_.name(static_cast<uint32_t>(q.best)));
    r.gapOp = it->second;
  }
  return {};
}

// The peak of the summed GPU memory, one sample per ns (changes at one ns
// are one sample), in bytes: the sum is MemoryInUse's, as the trace's counters
// (0..2^63 - 1), so a job of one GPU per rank has the peak its counter shows.
Expected<uint64_t> StepTableBuilder::memoryPeak() const {
  auto reader = mem_.read();
  MemDelta d{}, prev{};
  bool any = false;
  MemoryInUse sum;
  int64_t peak = 0;
  while (reader.next(d)) {
    if (any && d.ns != prev.ns) peak = std::max(peak, sum.bytes());
    (void)sum.add(d.bytes);  // counted where drawn (memory_sum_overflow)
    prev = d;
    any = true;
  }
  if (!reader.status()) return reader.status().error();
  if (any) peak = std::max(peak, sum.bytes());
  return static_cast<uint64_t>(peak);
}

Expected<RankTable> StepTableBuilder::build(int64_t rank, const std::vector<Span>& spans) {
  RankTable t;
  t.rank = rank;
  std::vector<uint64_t> ends;  // window end of each row
  stepRows(spans, t.steps, ends);
  Status st = finishSorters();
  if (st) st = addLastCollectives(t.steps, ends);
  if (st) st = addUnions(t, ends);
  if (st) {
    Expected<uint64_t> peak = memoryPeak();
    if (peak)
      t.gpuMemoryPeakBytes = *peak;
    else
      st = peak.error();
  }
  for (auto& [name, k] : totals_.entries()) t.kernels.push_back(std::move(k.total));
  std::sort(t.kernels.begin(), t.kernels.end(), [](const KernelTotal& a, const KernelTotal& b) {
    return a.ns != b.ns ? a.ns > b.ns : a.name < b.name;
  });
  if (t.kernels.size() > kKernelsPerRank) t.kernels.resize(kKernelsPerRank);
  SpillOptions spill = spill_;
  *this = StepTableBuilder(std::move(spill));
  if (!st) return st.error();
  return t;
}

namespace {

void writeBreakdown(wire::Writer& w, const RankBreakdown& b) {
  for (uint64_t v : {b.spanNs, b.idleNs, b.computeNs, b.nonComputeNs}) w.u64(v);
  w.boolean(b.hasComm);
  w.u64(b.commNs);
  w.u64(b.overlapNs);
  w.boolean(b.hasIdleSplit);
  for (uint64_t v : {b.idle.hostWaitNs, b.idle.kernelWaitNs, b.idle.otherNs}) w.u64(v);
}

RankBreakdown readBreakdown(wire::Reader& r) {
  RankBreakdown b;
  for (uint64_t* f : {&b.spanNs, &b.idleNs, &b.computeNs, &b.nonComputeNs}) *f = r.u64();
  b.hasComm = r.boolean();
  b.commNs = r.u64();
  b.overlapNs = r.u64();
  b.hasIdleSplit = r.boolean();
  for (uint64_t* f : {&b.idle.hostWaitNs, &b.idle.kernelWaitNs, &b.idle.otherNs}) *f = r.u64();
  return b;
}

void writeStep(wire::Writer& w, const StepRow& s) {
  w.i64(s.step);
  for (uint64_t v : {s.startNs, s.stepNs, s.forwardNs, s.backwardNs, s.computeNs, s.commNs,
                     s.memcpyNs, s.idleNs, s.overlapNs})
    w.u64(v);
  w.i64(s.arrivalNs);
  w.i64(s.lastCommNs);
  w.u64(s.hostIdleNs);
  w.u64(s.gapOpNs);
  w.i64(s.gapOp);
}

StepRow readStep(wire::Reader& r) {
  StepRow s;
  s.step = r.i64();
  for (uint64_t* f : {&s.startNs, &s.stepNs, &s.forwardNs, &s.backwardNs, &s.computeNs, &s.commNs,
                      &s.memcpyNs, &s.idleNs, &s.overlapNs})
    *f = r.u64();
  s.arrivalNs = r.i64();
  s.lastCommNs = r.i64();
  s.hostIdleNs = r.u64();
  s.gapOpNs = r.u64();
  s.gapOp = r.i64();
  return s;
}

// A kernel's digest travels with it (the name may be dropped on the way).
void writeKernel(wire::Writer& w, const KernelTotal& k) {
  w.u64(k.ns);
  w.u64(k.count);
  w.u64(k.name.empty() ? k.nameDigest : digestOf(k.name));
  w.str(k.name);
}

KernelTotal readKernel(wire::Reader& r) {
  KernelTotal k;
  k.ns = r.u64();
  k.count = r.u64();
  k.nameDigest = r.u64();
  k.name = r.str();
  return k;
}

void writeTable(wire::Writer& w, const RankTable& t) {
  w.i64(t.rank);
  w.u64(t.gpuMemoryPeakBytes);
  writeBreakdown(w, t.gpuBreakdown);
  w.list(t.steps, writeStep);
  w.list(t.kernels, writeKernel);
  w.strings(t.gapOps);
}

RankTable readTable(wire::Reader& r) {
  RankTable t;
  t.rank = r.i64();
  t.gpuMemoryPeakBytes = r.u64();
  t.gpuBreakdown = readBreakdown(r);
  r.list(t.steps, readStep);
  r.list(t.kernels, readKernel);
  t.gapOps = r.strings();
  const auto gapOps = static_cast<int64_t>(t.gapOps.size());
  for (const StepRow& s : t.steps)
    if (s.gapOp < -1 || s.gapOp >= gapOps) r.fail("a step's gap op is out of range");
  return t;
}

}  // namespace

// One wire message: the list of tables.
std::string encodeRankTables(const std::vector<RankTable>& tables) {
  wire::Writer w;
  w.list(tables, writeTable);
  return w.take();
}

Expected<std::vector<RankTable>> decodeRankTables(std::string_view bytes, const std::string& what) {
  wire::Reader r(bytes, what);
  std::vector<RankTable> tables;
  r.list(tables, readTable);
  if (Status st = r.finish(); !st) return st.error();
  return tables;
}

void dropKernelNames(std::vector<RankTable>& tables) {
  for (RankTable& t : tables) {
    std::erase_if(t.kernels, [](const KernelTotal& k) {
      return kernelCategoryOf(k.name, 0) == KernelCategory::Comm;
    });
    for (KernelTotal& k : t.kernels) {
      if (!k.name.empty()) k.nameDigest = digestOf(k.name);
      std::string().swap(k.name);
    }
  }
}

Expected<std::string> withoutKernelNames(std::string_view encoded) {
  Expected<std::vector<RankTable>> tables = decodeRankTables(encoded);
  if (!tables) return tables.error();
  dropKernelNames(*tables);
  return encodeRankTables(*tables);
}

std::string kernelNameOf(std::string_view encoded, int64_t rank, uint64_t digest) {
  Expected<std::vector<RankTable>> tables = decodeRankTables(encoded);
  if (!tables) return {};
  for (RankTable& t : *tables) {
    if (t.rank != rank) continue;
    for (KernelTotal& k : t.kernels)
      if (k.nameDigest == digest && !k.name.empty()) return std::move(k.name);
  }
  return {};
}

}  // namespace xstack
