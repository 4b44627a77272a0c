// The kernel-name requests of the "steps" analysis: rank 0 asks the reader of
// a kernel's slowest rank for its name (the report's kernel-spread table), so
// the step tables travel to rank 0 without names.
#include "StepsJob.h"
#include "xstack/transport/TypedMessages.h"

namespace xstack {

namespace {

struct NameRequest {
  int64_t rank = 0;     // training rank
  uint64_t digest = 0;  // KernelTotal::nameDigest
};

void writeRequest(wire::Writer& w, const NameRequest& q) {
  w.i64(q.rank);
  w.u64(q.digest);
}

NameRequest readRequest(wire::Reader& r) {
  NameRequest q;
  q.rank = r.i64();
  q.digest = r.u64();
  return q;
}

// The name of kernel `q` from this rank's own step tables: empty when unknown.
std::string localKernelName(const std::vector<RankPart>& local, const NameRequest& q) {
  for (const RankPart& p : local)
    if (p.rank == q.rank) return kernelNameOf(p.bytes, q.rank, q.digest);
  return {};
}

}  // namespace

std::string kernelNameFrom(Comm& comm, const std::vector<RankPart>& local, int64_t rank,
                           uint64_t digest, int reader) {
  const NameRequest q{rank, digest};
  if (reader == 0) return localKernelName(local, q);
  sendTyped(comm, reader, MessageTag::KernelTableRequest, q, writeRequest);
  return receiveMessage(comm, reader, MessageTag::KernelName);
}

void serveKernelNames(Comm& comm, const std::vector<RankPart>& local) {
  for (;;) {
    const std::string request = receiveMessage(comm, 0, MessageTag::KernelTableRequest);
    if (request.empty()) return;
    auto q = decodeMessage<NameRequest>(request, "a kernel name request", readRequest);
    sendMessage(comm, 0, MessageTag::KernelName, q ? localKernelName(local, *q) : "");
  }
}

void releaseNameServers(Comm& comm) {
  for (int r = 1; r < comm.size(); ++r) sendMessage(comm, r, MessageTag::KernelTableRequest, "");
}

}  // namespace xstack
