#include "xstack/analysis/StepTable.h"

#include <algorithm>
#include <charconv>
#include <iterator>
#include <stdexcept>

#include "xstack/core/FileIdentity.h"

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

void StepTableBuilder::addSlice(const SliceEvent& e) {
  if (e.row.kind == RowKind::CpuBlock || e.row.kind == RowKind::CudaApi) {
    key_.assign(e.name);
    auto [id, fresh] = cpuNameIds_.emplace(key_, static_cast<uint32_t>(cpuNames_.size()));
    if (fresh) cpuNames_.push_back(key_);
    cpu_.push_back({e.startNs, std::max(e.endNs, e.startNs), id->second});
    return;
  }
  if (e.row.kind != RowKind::Gpu) return;
  key_.assign(e.name);
  auto it = totals_.find(key_);
  if (it == totals_.end())
    it = totals_.emplace(key_, NameEntry{{key_, 0, 0}, kernelCategoryOf(e.name, 0)}).first;
  KernelCategory c = it->second.category;
  if (c == KernelCategory::Compute && e.bytes > 0) c = KernelCategory::Memcpy;
  uint64_t end = std::max(e.endNs, e.startNs);
  byCategory_[static_cast<int>(c)].push_back({e.startNs, end});
  if (c == KernelCategory::Comm) comm_.push_back({e.startNs, end});
  it->second.total.ns += end - e.startNs;
  ++it->second.total.count;
}

void StepTableBuilder::addMemory(const MemoryEvent& m) {
  if (m.place != MemPlace::Gpu) return;
  auto bytes = static_cast<int64_t>(m.bytes);
  memDeltas_.emplace_back(m.startNs, bytes);
  if (m.endNs >= m.startNs && m.endNs != 0) memDeltas_.emplace_back(m.endNs, -bytes);
}

namespace {

uint64_t memoryPeak(std::vector<std::pair<uint64_t, int64_t>>& deltas) {
  std::sort(deltas.begin(), deltas.end());
  int64_t sum = 0, peak = 0;
  for (size_t i = 0; i < deltas.size(); ++i) {
    sum += deltas[i].second;
    bool lastAtNs = i + 1 == deltas.size() || deltas[i + 1].first != deltas[i].first;
    if (lastAtNs) peak = std::max(peak, sum);  // changes at one ns are one sample
  }
  return static_cast<uint64_t>(peak);
}

// The last interval of `sorted` (by start, then end) that starts in [lo, hi], or null.
const Interval* lastStartingIn(const std::vector<Interval>& sorted, uint64_t lo, uint64_t hi) {
  auto it = std::upper_bound(sorted.begin(), sorted.end(), hi,
                             [](uint64_t v, const Interval& iv) { return v < iv.start; });
  if (it == sorted.begin() || (it - 1)->start < lo) return nullptr;
  return &*(it - 1);
}

// The longest stretch of [lo, hi) that no interval of `merged` covers (the
// first of equal ones); empty when there is none.
Interval longestGap(const std::vector<Interval>& merged, uint64_t lo, uint64_t hi) {
  Interval best{lo, lo};
  uint64_t cur = lo;
  auto it = std::lower_bound(merged.begin(), merged.end(), lo,
                             [](const Interval& iv, uint64_t v) { return iv.end <= v; });
  for (; it != merged.end() && it->start < hi && cur < hi; ++it) {
    if (it->start > cur && it->start - cur > best.end - best.start) best = {cur, it->start};
    cur = std::max(cur, it->end);
  }
  if (cur < hi && hi - cur > best.end - best.start) best = {cur, hi};
  return best;
}

}  // namespace

// The CPU-side slice starting in [lo, gap.end) that overlaps `gap` most (ties:
// the shorter, then the name), skipping step spans (those covering [windowStart, hi]).
int64_t StepTableBuilder::gapOpOf(uint64_t lo, uint64_t windowStart, uint64_t hi,
                                  const Interval& gap, uint64_t& overlapNs) const {
  int64_t best = -1;
  uint64_t bestDur = 0;
  overlapNs = 0;
  auto it = std::lower_bound(cpu_.begin(), cpu_.end(), lo,
                             [](const CpuSlice& c, uint64_t v) { return c.start < v; });
  for (; it != cpu_.end() && it->start < gap.end; ++it) {
    if (it->start <= windowStart && it->end >= hi) continue;
    uint64_t a = std::max(it->start, gap.start), b = std::min(it->end, gap.end);
    if (b <= a) continue;
    uint64_t ov = b - a, dur = it->end - it->start;
    bool better =
        ov > overlapNs ||
        (ov == overlapNs &&
         (dur < bestDur || (dur == bestDur && best >= 0 && cpuNames_[it->name] < cpuNames_[best])));
    if (!better) continue;
    best = it->name;
    overlapNs = ov;
    bestDur = dur;
  }
  return best;
}

namespace {}  // namespace

void StepTableBuilder::addHostIdle(RankTable& t, const std::vector<uint64_t>& ends,
                                   const std::vector<Interval>& all) const {
  std::unordered_map<int64_t, int64_t> indexOfName;  // cpu name id -> index in t.gapOps
  for (size_t i = 0; i < t.steps.size(); ++i) {
    StepRow& r = t.steps[i];
    uint64_t lo = i > 0 && ends[i - 1] < r.startNs ? ends[i - 1] : r.startNs;
    uint64_t hi = r.arrivalNs >= 0 ? r.startNs + static_cast<uint64_t>(r.arrivalNs) : ends[i];
    r.hostIdleNs = hi - lo - unionLengthIn(all, lo, hi);
    Interval gap = longestGap(all, lo, hi);
    if (gap.end == gap.start) continue;
    int64_t name = gapOpOf(lo, r.startNs, hi, gap, r.gapOpNs);
    if (name < 0) continue;
    auto [it, fresh] = indexOfName.emplace(name, static_cast<int64_t>(t.gapOps.size()));
    if (fresh) t.gapOps.push_back(cpuNames_[static_cast<size_t>(name)]);
    r.gapOp = it->second;
  }
}

RankTable StepTableBuilder::build(int64_t rank, const std::vector<Span>& spans) {
  RankTable t;
  t.rank = rank;
  auto byStartEnd = [](const Interval& a, const Interval& b) {
    return a.start != b.start ? a.start < b.start : a.end < b.end;
  };
  std::sort(comm_.begin(), comm_.end(), byStartEnd);
  std::sort(cpu_.begin(), cpu_.end(), [](const CpuSlice& a, const CpuSlice& b) {
    return a.start != b.start ? a.start < b.start
           : a.end != b.end   ? a.end < b.end
                              : a.name < b.name;
  });
  for (auto& v : byCategory_) mergeIntervals(v);
  std::vector<Interval> all, two;  // the three sorted unions merged in linear time
  auto byStart = byStartEnd;
  std::merge(byCategory_[0].begin(), byCategory_[0].end(), byCategory_[1].begin(),
             byCategory_[1].end(), std::back_inserter(two), byStart);
  std::merge(two.begin(), two.end(), byCategory_[2].begin(), byCategory_[2].end(),
             std::back_inserter(all), byStart);
  mergeIntervals(all);
  std::vector<uint64_t> ends;                           // window end of each row
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
    r.computeNs = unionLengthIn(byCategory_[0], f.startNs, end);
    r.commNs = unionLengthIn(byCategory_[1], f.startNs, end);
    r.memcpyNs = unionLengthIn(byCategory_[2], f.startNs, end);
    r.idleNs = r.stepNs - unionLengthIn(all, f.startNs, end);
    r.overlapNs = intersectionLengthIn(byCategory_[0], byCategory_[1], f.startNs, end);
    if (const Interval* last = lastStartingIn(comm_, f.startNs, end)) {
      r.arrivalNs = static_cast<int64_t>(last->start - f.startNs);
      r.lastCommNs = static_cast<int64_t>(last->end - last->start);
    }
    t.steps.push_back(r);
    ends.push_back(end);
  }
  std::vector<size_t> order(t.steps.size());
  for (size_t i = 0; i < order.size(); ++i) order[i] = i;
  std::stable_sort(order.begin(), order.end(),
                   [&](size_t a, size_t b) { return t.steps[a].step < t.steps[b].step; });
  std::vector<StepRow> sorted;
  std::vector<uint64_t> sortedEnds;
  for (size_t i : order) {
    sorted.push_back(t.steps[i]);
    sortedEnds.push_back(ends[i]);
  }
  t.steps = std::move(sorted);
  addHostIdle(t, sortedEnds, all);
  for (auto& [name, k] : totals_) t.kernels.push_back(std::move(k.total));
  std::sort(t.kernels.begin(), t.kernels.end(), [](const KernelTotal& a, const KernelTotal& b) {
    return a.ns != b.ns ? a.ns > b.ns : a.name < b.name;
  });
  if (t.kernels.size() > kKernelsPerRank) t.kernels.resize(kKernelsPerRank);
  t.gpuMemoryPeakBytes = memoryPeak(memDeltas_);
  *this = StepTableBuilder{};
  return t;
}

namespace {

void appendNumbers(std::string& out, std::initializer_list<int64_t> values) {
  char buf[24];
  bool first = true;
  for (int64_t v : values) {
    if (!first) out += ' ';
    first = false;
    out.append(buf, std::to_chars(buf, buf + sizeof buf, v).ptr);
  }
  out += '\n';
}

class Cursor {
 public:
  explicit Cursor(std::string_view t) : t_(t) {}
  bool done() const { return p_ >= t_.size(); }
  int64_t number() {
    while (p_ < t_.size() && (t_[p_] == ' ' || t_[p_] == '\n')) ++p_;
    int64_t v = 0;
    auto [ptr, ec] = std::from_chars(t_.data() + p_, t_.data() + t_.size(), v);
    if (ec != std::errc()) throw std::runtime_error("bad step table encoding");
    p_ = static_cast<size_t>(ptr - t_.data());
    return v;
  }
  std::string bytes(size_t n) {  // after one separator
    if (p_ + 1 + n > t_.size()) throw std::runtime_error("bad step table encoding");
    std::string s(t_.substr(p_ + 1, n));
    p_ += 1 + n;
    return s;
  }

 private:
  std::string_view t_;
  size_t p_ = 0;
};

auto u(uint64_t v) { return static_cast<int64_t>(v); }

}  // namespace

std::string encodeRankTables(const std::vector<RankTable>& tables) {
  std::string out;
  for (const RankTable& t : tables) {
    const RankBreakdown& b = t.gpuBreakdown;
    appendNumbers(
        out, {t.rank, u(t.steps.size()), u(t.kernels.size()), u(t.gpuMemoryPeakBytes), u(b.spanNs),
              u(b.idleNs), u(b.computeNs), u(b.nonComputeNs), b.hasComm ? 1 : 0, u(b.commNs),
              u(b.overlapNs), b.hasIdleSplit ? 1 : 0, u(b.idle.hostWaitNs), u(b.idle.kernelWaitNs),
              u(b.idle.otherNs), u(t.gapOps.size())});
    for (const StepRow& r : t.steps)
      appendNumbers(out, {r.step, u(r.startNs), u(r.stepNs), u(r.forwardNs), u(r.backwardNs),
                          u(r.computeNs), u(r.commNs), u(r.memcpyNs), u(r.idleNs), u(r.overlapNs),
                          r.arrivalNs, r.lastCommNs, u(r.hostIdleNs), u(r.gapOpNs), r.gapOp});
    for (const KernelTotal& k : t.kernels) {
      const uint64_t digest = k.name.empty() ? k.nameDigest : digestOf(k.name);
      appendNumbers(out, {u(k.ns), u(k.count), u(digest), u(k.name.size())});
      out.pop_back();
      out += ' ';
      out += k.name;
      out += '\n';
    }
    for (const std::string& name : t.gapOps) {
      appendNumbers(out, {u(name.size())});
      out.pop_back();
      out += ' ';
      out += name;
      out += '\n';
    }
  }
  return out;
}

std::vector<RankTable> decodeRankTables(std::string_view text) {
  std::vector<RankTable> tables;
  Cursor c(text);
  while (!c.done()) {
    RankTable t;
    t.rank = c.number();
    int64_t steps = c.number(), kernels = c.number();
    t.gpuMemoryPeakBytes = static_cast<uint64_t>(c.number());
    RankBreakdown& b = t.gpuBreakdown;
    for (uint64_t* f : {&b.spanNs, &b.idleNs, &b.computeNs, &b.nonComputeNs})
      *f = static_cast<uint64_t>(c.number());
    b.hasComm = c.number() != 0;
    b.commNs = static_cast<uint64_t>(c.number());
    b.overlapNs = static_cast<uint64_t>(c.number());
    b.hasIdleSplit = c.number() != 0;
    for (uint64_t* f : {&b.idle.hostWaitNs, &b.idle.kernelWaitNs, &b.idle.otherNs})
      *f = static_cast<uint64_t>(c.number());
    int64_t gapOps = c.number();
    if (steps < 0 || kernels < 0 || gapOps < 0) throw std::runtime_error("bad step table encoding");
    for (int64_t i = 0; i < steps; ++i) {
      StepRow r;
      r.step = c.number();
      uint64_t* fields[] = {&r.startNs, &r.stepNs,   &r.forwardNs, &r.backwardNs, &r.computeNs,
                            &r.commNs,  &r.memcpyNs, &r.idleNs,    &r.overlapNs};
      for (uint64_t* f : fields) *f = static_cast<uint64_t>(c.number());
      r.arrivalNs = c.number();
      r.lastCommNs = c.number();
      r.hostIdleNs = static_cast<uint64_t>(c.number());
      r.gapOpNs = static_cast<uint64_t>(c.number());
      r.gapOp = c.number();
      if (r.gapOp < -1 || r.gapOp >= gapOps) throw std::runtime_error("bad step table encoding");
      t.steps.push_back(r);
    }
    for (int64_t i = 0; i < kernels; ++i) {
      KernelTotal k;
      k.ns = static_cast<uint64_t>(c.number());
      k.count = static_cast<uint64_t>(c.number());
      k.nameDigest = static_cast<uint64_t>(c.number());
      int64_t len = c.number();
      if (len < 0) throw std::runtime_error("bad step table encoding");
      k.name = c.bytes(static_cast<size_t>(len));
      t.kernels.push_back(std::move(k));
    }
    for (int64_t i = 0; i < gapOps; ++i) {
      int64_t len = c.number();
      if (len < 0) throw std::runtime_error("bad step table encoding");
      t.gapOps.push_back(c.bytes(static_cast<size_t>(len)));
    }
    tables.push_back(std::move(t));
    // skip the trailing newline of the last line
    if (!c.done()) c.bytes(0);
  }
  return tables;
}

std::string withoutKernelNames(std::string_view encoded) {
  std::vector<RankTable> tables = decodeRankTables(encoded);
  for (RankTable& t : tables) {
    std::erase_if(t.kernels, [](const KernelTotal& k) {
      return kernelCategoryOf(k.name, 0) == KernelCategory::Comm;
    });
    for (KernelTotal& k : t.kernels) std::string().swap(k.name);
  }
  return encodeRankTables(tables);
}

std::string kernelNameOf(std::string_view encoded, int64_t rank, uint64_t digest) {
  for (RankTable& t : decodeRankTables(encoded)) {
    if (t.rank != rank) continue;
    for (KernelTotal& k : t.kernels)
      if (k.nameDigest == digest && !k.name.empty()) return std::move(k.name);
  }
  return {};
}

}  // namespace xstack
