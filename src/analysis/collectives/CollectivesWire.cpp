// The "collectives" analysis' wire forms (wire/Wire.h): a rank's arrivals and
// an owner's summary.
#include <algorithm>
#include <utility>

#include "xstack/analysis/collectives/CollectiveMatch.h"

namespace xstack {

namespace {

// An arrival's times other than its start travel as differences from its
// start (mod 2^64, so any value comes back exactly): a few bytes each
// instead of nine, so less to copy when routed and less to decode.
int64_t fromStart(uint64_t startNs, uint64_t t) { return static_cast<int64_t>(startNs - t); }
uint64_t backFromStart(uint64_t startNs, int64_t d) { return startNs - static_cast<uint64_t>(d); }

void writeArrival(wire::Writer& w, const Arrival& a) {
  w.str(a.group);
  w.str(a.collective);
  w.u64(a.bytes);
  w.i64(a.instance);
  w.i64(a.peer);
  w.u64(a.startNs);
  w.u64(a.endNs - a.startNs);  // wraps when endNs < startNs: the reader refuses it
  w.i64(fromStart(a.startNs, a.launchNs));
  w.i64(fromStart(a.startNs, a.freeNs));
  for (uint64_t v : {a.computeNs, a.idleNs, a.memcpyNs}) w.u64(v);
  w.i64(a.step);
}

void writeRank(wire::Writer& w, int64_t v) { w.i64(v); }
int64_t readRank(wire::Reader& r) { return r.i64(); }

void writeRow(wire::Writer& w, const CollectiveRow& row) {
  w.str(row.group);
  w.str(row.collective);
  for (uint64_t v : {row.bytes, row.count, row.bytesP50, row.transferP50Ns, row.transferP95Ns})
    w.u64(v);
  w.boolean(row.hasBusbw);
  w.f64(row.busbwP50Gbps);
  w.u64(row.waitNs);
  w.i64(row.topLateRank);
  w.u64(row.topLateCount);
}

CollectiveRow readRow(wire::Reader& r) {
  CollectiveRow row;
  row.group = r.str();
  row.collective = r.str();
  for (uint64_t* v :
       {&row.bytes, &row.count, &row.bytesP50, &row.transferP50Ns, &row.transferP95Ns})
    *v = r.u64();
  row.hasBusbw = r.boolean();
  row.busbwP50Gbps = r.f64();
  row.waitNs = r.u64();
  row.topLateRank = r.i64();
  row.topLateCount = r.u64();
  return row;
}

void writeBlame(wire::Writer& w, const RankBlame& b) {
  w.i64(b.rank);
  w.u64(b.waitedNs);
  for (uint64_t v : b.causedNs) w.u64(v);
}

RankBlame readBlame(wire::Reader& r) {
  RankBlame b;
  b.rank = r.i64();
  b.waitedNs = r.u64();
  for (uint64_t& v : b.causedNs) v = r.u64();
  return b;
}

void writeProblem(wire::Writer& w, const Problem& p) {
  w.str(p.group);
  w.u64(p.order);
  w.str(p.text);
}

Problem readProblem(wire::Reader& r) {
  Problem p;
  p.group = r.str();
  p.order = r.u64();
  p.text = r.str();
  return p;
}

void writeNetCell(wire::Writer& w, const NetCell& c) {
  w.str(c.collective);
  for (uint64_t v : {c.bytes, c.members}) w.u64(v);
  w.i64(c.node);
  for (uint64_t v : {c.instances, c.transferNs, c.groups}) w.u64(v);
}

NetCell readNetCell(wire::Reader& r) {
  NetCell c;
  c.collective = r.str();
  for (uint64_t* v : {&c.bytes, &c.members}) *v = r.u64();
  c.node = r.i64();
  for (uint64_t* v : {&c.instances, &c.transferNs, &c.groups}) *v = r.u64();
  return c;
}

void writeGroupBlame(wire::Writer& w, const GroupBlame& g) {
  w.str(g.group);
  w.i64(g.rank);
  w.u64(g.waitedForNs);
  w.u64(g.instances);
}

GroupBlame readGroupBlame(wire::Reader& r) {
  GroupBlame g;
  g.group = r.str();
  g.rank = r.i64();
  g.waitedForNs = r.u64();
  g.instances = r.u64();
  return g;
}

}  // namespace

void readArrivalInto(wire::Reader& r, Arrival& a) {
  a.group.assign(r.view());
  a.collective.assign(r.view());
  a.bytes = r.u64();
  a.instance = r.i64();
  a.peer = r.i64();
  a.startNs = r.u64();
  a.endNs = a.startNs + r.u64();
  a.launchNs = backFromStart(a.startNs, r.i64());
  a.freeNs = backFromStart(a.startNs, r.i64());
  for (uint64_t* v : {&a.computeNs, &a.idleNs, &a.memcpyNs}) *v = r.u64();
  a.step = r.i64();
  if (a.endNs < a.startNs) r.fail("an arrival that ends before it starts");
}

void readArrivalKey(wire::Reader& r, ArrivalKey& a) {
  a.group = r.view();
  a.collective = r.view();
  a.bytes = r.u64();
  r.skipVarints(1);  // instance
  a.peer = r.i64();
  a.startNs = r.u64();
  a.endNs = a.startNs + r.u64();
  r.skipVarints(6);  // launch, free, compute, idle, memcpy, step
  if (a.endNs < a.startNs) r.fail("an arrival that ends before it starts");
}

void writeGroupRanks(wire::Writer& w, const GroupRanks& g) {
  w.str(g.group);
  w.list(g.ranks, writeRank);
}

GroupRanks readGroupRanks(wire::Reader& r) {
  GroupRanks g;
  g.group = r.str();
  r.list(g.ranks, readRank);
  return g;
}

void writeRankArrivals(wire::Writer& w, const RankArrivals& a) {
  w.i64(a.rank);
  w.u64(a.steps);
  w.list(a.arrivals, writeArrival);
  w.list(a.groups, writeGroupRanks);
}

RankArrivals readRankArrivals(wire::Reader& r) {
  RankArrivals a;
  a.rank = r.i64();
  a.steps = r.u64();
  // Room for as many arrivals as the bytes left can hold (each takes at
  // least 14: two strings and twelve numbers of one byte), read in place.
  const uint64_t n = r.count();
  a.arrivals.reserve(std::min<uint64_t>(n, r.left() / 14));
  for (uint64_t i = 0; i < n && r.ok(); ++i) readArrivalInto(r, a.arrivals.emplace_back());
  r.list(a.groups, readGroupRanks);
  for (Arrival& x : a.arrivals) x.rank = a.rank;
  return a;
}

void writeSummary(wire::Writer& w, const CollectivesSummary& s) {
  for (uint64_t v : {s.groups, s.matched, s.problems}) w.u64(v);
  w.list(s.rows, writeRow);
  w.list(s.ranks, writeBlame);
  w.list(s.examples, writeProblem);
  w.list(s.net, writeNetCell);
  w.list(s.groupBlame, writeGroupBlame);
}

CollectivesSummary readSummary(wire::Reader& r) {
  CollectivesSummary s;
  for (uint64_t* v : {&s.groups, &s.matched, &s.problems}) *v = r.u64();
  r.list(s.rows, readRow);
  r.list(s.ranks, readBlame);
  r.list(s.examples, readProblem);
  r.list(s.net, readNetCell);
  r.list(s.groupBlame, readGroupBlame);
  return s;
}

}  // namespace xstack
