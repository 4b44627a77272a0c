// Clock offsets between nodes: summing owners' samples and solving for the
// offsets (analysis/collectives/ClockOffsets.h).
#include "xstack/analysis/collectives/ClockOffsets.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <limits>
#include <numeric>
#include <set>

namespace xstack {

namespace {

void writeI128(wire::Writer& w, __int128 v) {
  const auto u = static_cast<unsigned __int128>(v);
  w.u64(static_cast<uint64_t>(u >> 64));
  w.u64(static_cast<uint64_t>(u));
}

__int128 readI128(wire::Reader& r) {
  const auto hi = static_cast<unsigned __int128>(r.u64());
  const uint64_t lo = r.u64();
  return static_cast<__int128>((hi << 64) | lo);
}

// The mean of a pair's samples: clock of b - clock of a, ns.
double meanOf(const ClockPair& p) {
  return static_cast<double>(static_cast<long double>(p.sumNs) / static_cast<long double>(p.count));
}

// Sum of squared deviations of a pair's samples from their mean (ns^2, >= 0).
long double squaredDeviations(const ClockPair& p) {
  const auto sum = static_cast<long double>(p.sumNs);
  const long double ss = static_cast<long double>(p.sumSqNs) - sum * sum / p.count;
  return std::max<long double>(ss, 0);
}

// Each node's reference: the lowest node connected to it through pairs.
std::map<int64_t, int64_t> referencesOf(const ClockPairs& pairs) {
  std::map<int64_t, int64_t> parent;
  auto find = [&](int64_t x) {
    while (parent[x] != x) x = parent[x] = parent[parent[x]];
    return x;
  };
  for (const auto& [key, p] : pairs) {
    parent.emplace(p.a, p.a);
    parent.emplace(p.b, p.b);
  }
  for (const auto& [key, p] : pairs) {
    const int64_t x = find(p.a), y = find(p.b);
    if (x != y) parent[std::max(x, y)] = std::min(x, y);
  }
  std::map<int64_t, int64_t> ref;
  for (const auto& [node, unused] : parent) ref[node] = find(node);
  return ref;
}

// Gauss-Seidel on the count-weighted least squares of o_b - o_a = mean(a, b),
// each reference fixed at 0; at most kSweeps sweeps, stops when no offset
// moves by half a ns.
std::map<int64_t, double> fitOffsets(const ClockPairs& pairs,
                                     const std::map<int64_t, int64_t>& ref) {
  constexpr int kSweeps = 10'000;
  struct Edge {
    int64_t other;
    double weight, mean;  // o_self ~ o_other + mean
  };
  std::map<int64_t, std::vector<Edge>> edges;
  for (const auto& [key, p] : pairs) {
    const double m = meanOf(p), w = static_cast<double>(p.count);
    edges[p.b].push_back({p.a, w, m});
    edges[p.a].push_back({p.b, w, -m});
  }
  std::map<int64_t, double> o;
  for (const auto& [node, unused] : ref) o[node] = 0;
  for (int sweep = 0; sweep < kSweeps; ++sweep) {
    double moved = 0;
    for (auto& [node, value] : o) {
      if (ref.at(node) == node) continue;
      double num = 0, den = 0;
      for (const Edge& e : edges[node]) {
        num += e.weight * (o[e.other] + e.mean);
        den += e.weight;
      }
      const double next = num / den;
      moved = std::max(moved, std::fabs(next - value));
      value = next;
    }
    if (moved < 0.5) break;
  }
  return o;
}

}  // namespace

void mergeClockPairs(ClockPairs& into, const std::vector<ClockPair>& from) {
  for (const ClockPair& p : from) {
    ClockPair& to = into[{p.a, p.b}];
    to.a = p.a;
    to.b = p.b;
    to.count += p.count;
    to.sumNs += p.sumNs;
    to.sumSqNs += p.sumSqNs;
  }
}

void writeClockPairs(wire::Writer& w, const std::vector<ClockPair>& pairs) {
  w.list(pairs, [](wire::Writer& x, const ClockPair& p) {
    x.i64(p.a);
    x.i64(p.b);
    x.u64(p.count);
    writeI128(x, p.sumNs);
    writeI128(x, p.sumSqNs);
  });
}

std::vector<ClockPair> readClockPairs(wire::Reader& r) {
  std::vector<ClockPair> out;
  r.list(out, [](wire::Reader& x) {
    ClockPair p;
    p.a = x.i64();
    p.b = x.i64();
    p.count = x.u64();
    p.sumNs = readI128(x);
    p.sumSqNs = readI128(x);
    if (p.a >= p.b || p.count == 0 || p.sumSqNs < 0) x.fail("a clock pair out of range");
    return p;
  });
  return out;
}

std::vector<NodeClock> solveClockOffsets(const ClockPairs& pairs) {
  const std::map<int64_t, int64_t> ref = referencesOf(pairs);
  const std::map<int64_t, double> o = fitOffsets(pairs, ref);
  std::map<int64_t, long double> deviations;
  std::map<int64_t, uint64_t> samples;
  for (const auto& [key, p] : pairs)
    for (int64_t node : {p.a, p.b}) {
      deviations[node] += squaredDeviations(p);
      samples[node] += p.count;
    }
  std::vector<NodeClock> out;
  for (const auto& [node, value] : o) {
    NodeClock c;
    c.node = node;
    c.offsetNs = static_cast<int64_t>(std::llround(value));
    c.reference = ref.at(node);
    c.samples = samples[node];
    c.spreadNs = static_cast<uint64_t>(
        std::llround(std::sqrt(static_cast<double>(deviations[node] / c.samples))));
    out.push_back(c);
  }
  return out;
}

void writeNodeClocks(wire::Writer& w, const std::vector<NodeClock>& clocks) {
  w.list(clocks, [](wire::Writer& x, const NodeClock& c) {
    x.i64(c.node);
    x.i64(c.reference);
    x.i64(c.offsetNs);
    x.u64(c.spreadNs);
    x.u64(c.samples);
  });
}

std::vector<NodeClock> readNodeClocks(wire::Reader& r) {
  std::vector<NodeClock> out;
  r.list(out, [](wire::Reader& x) {
    NodeClock c;
    c.node = x.i64();
    c.reference = x.i64();
    c.offsetNs = x.i64();
    c.spreadNs = x.u64();
    c.samples = x.u64();
    return c;
  });
  return out;
}

std::string usText(int64_t ns) {
  const uint64_t mag = ns < 0 ? uint64_t{0} - static_cast<uint64_t>(ns) : static_cast<uint64_t>(ns);
  char buf[48];
  std::snprintf(buf, sizeof buf, "%s%llu.%03llu", ns < 0 ? "-" : "",
                static_cast<unsigned long long>(mag / 1000),
                static_cast<unsigned long long>(mag % 1000));
  return buf;
}

std::string clockSummaryLine(const std::vector<NodeClock>& clocks) {
  auto magnitude = [](int64_t v) {
    return v < 0 ? uint64_t{0} - static_cast<uint64_t>(v) : static_cast<uint64_t>(v);
  };
  const NodeClock* largest = nullptr;
  uint64_t spread = 0;
  size_t references = 0;
  for (const NodeClock& c : clocks) {
    spread = std::max(spread, c.spreadNs);
    if (c.reference == c.node)
      ++references;
    else if (!largest || magnitude(c.offsetNs) > magnitude(largest->offsetNs))
      largest = &c;
  }
  if (!largest) return {};
  std::string line = "clocks: " + std::to_string(clocks.size()) +
                     " nodes compared by their collectives' ends; largest offset " +
                     (largest->offsetNs < 0 ? "" : "+") + usText(largest->offsetNs) + " us (node " +
                     std::to_string(largest->node) + "), spread up to " +
                     usText(static_cast<int64_t>(spread)) +
                     " us; the collectives' times moved to node " +
                     std::to_string(clocks.front().node) + "'s clock";
  if (references > 1)
    line += " (" + std::to_string(references) +
            " sets of nodes no collective links: each on its lowest node's clock)";
  return line;
}

int64_t clockOffsetOf(const std::vector<NodeClock>& clocks, int64_t node) {
  auto it = std::lower_bound(clocks.begin(), clocks.end(), node,
                             [](const NodeClock& c, int64_t n) { return c.node < n; });
  return it != clocks.end() && it->node == node ? it->offsetNs : 0;
}

uint64_t toReferenceClock(uint64_t t, int64_t offsetNs) {
  if (t == 0 || offsetNs == 0) return t;
  if (offsetNs > 0) {
    const auto d = static_cast<uint64_t>(offsetNs);
    return t > d ? t - d : 0;
  }
  const uint64_t d = uint64_t{0} - static_cast<uint64_t>(offsetNs);
  return t > std::numeric_limits<uint64_t>::max() - d ? std::numeric_limits<uint64_t>::max()
                                                      : t + d;
}

}  // namespace xstack
