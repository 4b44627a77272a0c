// The kernel-name requests of the "steps" analysis: rank 0 asks the reader of
// a kernel's slowest rank for its name (the report's kernel-spread table), so
// the step tables travel to rank 0 without names.
#include "StepsJob.h"
#include "xstack/transport/TypedMessages.h"

namespace xstack {

namespace {

// Rank 0's request to a reader: one kernel's name, or `done` (no more requests).
struct NameRequest {
  bool done = false;
  int64_t rank = 0;     // training rank
  uint64_t digest = 0;  // KernelTotal::nameDigest
};

void writeRequest(wire::Writer& w, const NameRequest& q) {
  w.boolean(q.done);
  w.i64(q.rank);
  w.u64(q.digest);
}

NameRequest readRequest(wire::Reader& r) {
  NameRequest q;
  q.done = r.boolean();
  q.rank = r.i64();
  q.digest = r.u64();
  return q;
}

void writeName(wire::Writer& w, const std::string& name) { w.str(name); }
std::string readName(wire::Reader& r) { return r.str(); }

// The name of kernel `q` from this rank's own step tables: empty when unknown.
std::string localKernelName(const std::vector<RankPart>& local, const NameRequest& q) {
  for (const RankPart& p : local)
    if (p.rank == q.rank) return kernelNameOf(p.bytes, q.rank, q.digest);
  return {};
}

}  // namespace

std::string kernelNameFrom(Comm& comm, const std::vector<RankPart>& local, int64_t rank,
                           uint64_t digest, int reader) {
  const NameRequest q{false, rank, digest};
  if (reader == 0) return localKernelName(local, q);
  sendTyped(comm, reader, MessageTag::KernelTableRequest, q, writeRequest);
  auto name =
      receiveTyped<std::string>(comm, reader, MessageTag::KernelName, "a kernel name", readName);
  return name ? *name : std::string();  // empty: the caller names the reader that sent none
}

// A request that does not decode is answered with no name (rank 0 then
// fails the analysis, naming this rank, and still releases it).
void serveKernelNames(Comm& comm, const std::vector<RankPart>& local) {
  for (;;) {
    auto q = receiveTyped<NameRequest>(comm, 0, MessageTag::KernelTableRequest,
                                       "a kernel name request", readRequest);
    if (q && q->done) return;
    sendTyped(comm, 0, MessageTag::KernelName, q ? localKernelName(local, *q) : std::string(),
              writeName);
  }
}

void releaseNameServers(Comm& comm) {
  for (int r = 1; r < comm.size(); ++r)
    sendTyped(comm, r, MessageTag::KernelTableRequest, NameRequest{true, 0, 0}, writeRequest);
}

}  // namespace xstack
